#include "runtime/config_records.h"

#include "runtime/bytes.h"

namespace ax {

void ConfigRecords::config_record(uint32_t index, uint32_t* key, uint32_t* value) const {
    *key = load_u32(config_ + index * format::kConfigRecordBytes);
    *value = load_u32(config_ + index * format::kConfigRecordBytes + 4);
}

bool ConfigRecords::config(format::ConfigKey key, uint32_t* value) const {
    for (uint32_t i = 0; i < config_count_; ++i) {
        uint32_t k = 0;
        config_record(i, &k, value);
        if (k == static_cast<uint32_t>(key)) return true;
    }
    return false;
}

}  // namespace ax
