// Which converter config keys each model family uses: a key that does not apply to the config's "arch" is
// refused, as an unknown key is; keys that change nothing (training-only, or a family's neutral default)
// are listed so the converter can say they were ignored.
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

}  // namespace ax::tools
