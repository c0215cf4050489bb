// A model's config records: (key, value) pairs of little-endian u32, kConfigRecordBytes each, as a model file
// holds them (ModelFile is one) or as a converter lays them out before writing. The config readers
// (runtime/config_reader.h) and the families' descriptions read from either.
#pragma once
#include <cstdint>

#include "runtime/format.h"

namespace ax {

class ConfigRecords {
public:
    ConfigRecords() = default;
    // `bytes` holds `count` records and must outlive this view.
    ConfigRecords(const uint8_t* bytes, uint32_t count) : config_(bytes), config_count_(count) {}

    uint32_t config_count() const { return config_count_; }
    void config_record(uint32_t index, uint32_t* key, uint32_t* value) const;
    // False when the key is absent.
    bool config(format::ConfigKey key, uint32_t* value) const;

protected:
    const uint8_t* config_ = nullptr;
    uint32_t config_count_ = 0;
};

}  // namespace ax
