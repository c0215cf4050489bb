// Chronos-Bolt files converted before its blocks had options of their own state architecture chronos_bolt and
// the T5 sizes, and leave the blocks' options implied. Read through these records, such a file gives the same
// description a file converted today states (normalization instance, input_embedding patch_mlp, positional
// encoding relative, t5 layers, decoding start_token, head residual_mlp).
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/config_records.h"
#include "runtime/format.h"
#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

struct ForecasterConfig;

// Not a ConfigWriter: no virtual call in the runtime (the firmware's stack bound follows every call).
class ChronosBoltAliasRecords {
public:
    static constexpr size_t kMaxRecords = 64;  // such files hold 16, the implied ones 12 more

    // The file's records and the implied ones it lacks (the quantile count from its quantile_levels tensor);
    // for a file whose architecture is chronos_bolt.
    Status fill(const ModelFile& f);
    ConfigRecords records() const { return ConfigRecords(bytes_, count_); }
    // Appends a record unless the key is already there.
    void put(format::ConfigKey key, uint32_t value);

private:
    void append(uint32_t key, uint32_t value);

    uint8_t bytes_[kMaxRecords * format::kConfigRecordBytes] = {};
    uint32_t count_ = 0;
    bool full_ = false;
};

// read_forecaster_records over the file's records and the implied ones (its own function: the records live on
// the stack of this call only, not of every forecaster's open).
Status read_chronos_bolt_alias(const ModelFile& f, ForecasterConfig* out);

}  // namespace ax
