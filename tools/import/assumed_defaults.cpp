#include "tools/import/assumed_defaults.h"

#include "tools/import/config_keys.h"

namespace ax::tools {

using format::ConfigKey;

void record_assumed_defaults(AxmModel& m, const ConvertConfig& config) {
    bool decoder = false;
    for (const auto& [key, value] : m.config) decoder = decoder || (key == ConfigKey::decoder_layers && value > 0);
    uint32_t bits = 0;
    std::string list;
    for (const ConfigKeySpec& k : config_keys()) {
        if (!k.noted_when_assumed || config.stated.count(k.name)) continue;
        for (const auto& [key, value] : m.config) {
            if (key != k.record) continue;
            // A classifier with a decoder pools nothing: its pooling record is not a choice.
            if (key == ConfigKey::pooling && decoder) continue;
            bits |= 1u << static_cast<uint32_t>(key);
            list += (list.empty() ? "" : ", ") + std::string("\"") + k.name + "\": " + k.record_text(value) +
                    k.assumed_note;
        }
    }
    if (bits == 0) return;
    m.config.insert(m.config.begin(), {ConfigKey::defaults, bits});
    m.notes.push_back("assumed (not in the config): " + list);
}

std::string assumed_defaults_text(uint32_t bits) {
    std::string s;
    for (const ConfigKeySpec& k : config_keys())
        if (k.noted_when_assumed && (bits & (1u << static_cast<uint32_t>(*k.record))))
            s += (s.empty() ? "" : ", ") + k.name;
    return s;
}

}  // namespace ax::tools
