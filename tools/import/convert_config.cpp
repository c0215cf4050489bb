#include "tools/import/convert_config.h"

#include "tools/common/did_you_mean.h"
#include "tools/import/config_keys.h"
#include "tools/import/config_scope.h"
#include "tools/text/json.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

ConvertConfig parse_convert_config(const JsonValue& root, const std::string& source) {
    ConvertConfig c;
    for (const auto& [key, v] : root.as_object(source)) {
        c.stated.insert(key);
        c.keys.push_back(key);
        const ConfigKeySpec* spec = find_config_key(key);
        if (spec == nullptr)
            throw ToolError(source + ": unknown config key \"" + key + "\"" + did_you_mean(key, known_config_keys()));
        spec->read(v, source + ": \"" + key + "\"", &c);
    }
    for (const ConfigKeySpec& spec : config_keys())
        if (*spec.missing && !c.stated.count(spec.name))
            throw ToolError(source + ": missing \"" + spec.name + "\" " + spec.missing);
    return c;
}

ConvertConfig read_convert_config(const std::string& path) { return parse_convert_config(parse_json_file(path), path); }

}  // namespace ax::tools
