// Reading a model's config records with range checks, shared by the model families. Every value comes from
// an untrusted file, so each read names the key (format::kConfigKeyNames) and the allowed range when it fails.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/format.h"
#include "runtime/config_records.h"
#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

// Largest sizes a model may declare: they keep every size computation far from overflow.
constexpr size_t kMaxModelWidth = 1u << 16;  // d_model, dim_feedforward, features, outputs, vocabularies
constexpr size_t kMaxModelLayers = 256;
constexpr size_t kMaxSequenceLength = 1u << 20;

// A required u32 in [lo, hi].
Status read_config_u32(const ConfigRecords& f, format::ConfigKey key, uint32_t lo, uint32_t hi, uint32_t* out);
// An optional size in [lo, hi]: `fallback` when the file has no such record (files written before it).
Status read_config_optional_size(const ConfigRecords& f, format::ConfigKey key, size_t lo, size_t hi, size_t fallback,
                                 size_t* out);
// A required value of a format enum, 0..the largest its names table holds.
template <typename E>
Status read_config_enum(const ConfigRecords& f, format::ConfigKey key, E* out) {
    uint32_t v = 0;
    AX_RETURN_IF_ERROR(read_config_u32(f, key, 0, format::enum_max<E>(), &v));
    *out = static_cast<E>(v);
    return Status::ok();
}
// A required size in [lo, hi].
Status read_config_size(const ConfigRecords& f, format::ConfigKey key, size_t lo, size_t hi, size_t* out);
Status read_config_flag(const ConfigRecords& f, format::ConfigKey key, bool* out);
// A required finite float32 > 0.
Status read_config_positive_float(const ConfigRecords& f, format::ConfigKey key, float* out);
// A required token id: below `vocab`, or format::kNoToken when `optional`.
Status read_config_token(const ConfigRecords& f, format::ConfigKey key, size_t vocab, bool optional, uint32_t* out);
// The feature families' (forecaster, tvae) positional_encoding: none or sinusoidal, which needs an even
// d_model. (The token families read theirs with read_token_input_config, runtime/embedding.h.)
Status read_config_feature_positions(const ConfigRecords& f, size_t d_model, format::PositionalEncoding* out);

// Where a model description's config records go when a converter writes them (the records' readers above
// and the description's writers live side by side, block by block).
class ConfigWriter {
public:
    virtual void put(format::ConfigKey key, uint32_t value) = 0;
    template <typename E>
    void put_enum(format::ConfigKey key, E value) {
        put(key, static_cast<uint32_t>(value));
    }
    void put_size(format::ConfigKey key, size_t value) { put(key, static_cast<uint32_t>(value)); }
    void put_float(format::ConfigKey key, float value) {
        uint32_t bits = 0;
        std::memcpy(&bits, &value, sizeof bits);
        put(key, bits);
    }

protected:
    ~ConfigWriter() = default;
};

}  // namespace ax
