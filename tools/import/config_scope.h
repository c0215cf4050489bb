// Which converter config keys each model family uses (the families of tools/import/config_keys.h): a key
// that does not apply to the config's "arch" is refused, as an unknown key is; keys that change nothing
// (training-only, or a family's neutral default) are listed so the converter can say they were ignored.
#pragma once
#include <string>
#include <vector>

#include "tools/import/convert_config.h"

namespace ax::tools {

// Every key the config file knows, for "did you mean" suggestions.
const std::vector<std::string>& known_config_keys();

// Throws ToolError for a key given in `config` that the family of config.arch does not use; returns the
// given keys it ignores.
std::vector<std::string> check_config_scope(const ConvertConfig& config);

// The same for a config built in code rather than read from a file (config.keys empty): throws ToolError
// for a value set for a key the family does not use.
void check_config_values_scope(const ConvertConfig& config);

}  // namespace ax::tools
