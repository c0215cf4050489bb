#include "tools/import/config_scope.h"

#include "tools/common/enum_text.h"
#include "tools/import/config_keys.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

const std::vector<std::string>& known_config_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k;
        for (const ConfigKeySpec& s : config_keys()) k.push_back(s.name);
        return k;
    }();
    return keys;
}

std::vector<std::string> check_config_scope(const ConvertConfig& config) {
    std::vector<std::string> ignored, refused;
    for (const std::string& key : config.keys) {
        const ConfigKeySpec* spec = find_config_key(key);
        if (spec == nullptr || spec->applies_to(config.arch)) continue;  // unknown keys: refused by the reader
        if (spec->ignored() || (spec->neutral && spec->neutral(config)))
            ignored.push_back(key);
        else
            refused.push_back(key);
    }
    if (!refused.empty()) {
        std::string list;
        for (const std::string& k : refused) list += (list.empty() ? "\"" : ", \"") + k + "\"";
        throw ToolError("config keys that do not apply to a " + enum_text(config.arch) + " model: " + list +
                        " (remove " + (refused.size() > 1 ? "them" : "it") + ")");
    }
    return ignored;
}

void check_config_values_scope(const ConvertConfig& config) {
    for (const ConfigKeySpec& k : config_keys())
        if (k.is_set && k.is_set(config) && !k.applies_to(config.arch))
            throw ToolError("config key " + k.name + " does not apply to a " + enum_text(config.arch) + " model");
}

}  // namespace ax::tools
