// Writes a JsonValue as text (the reader is tools/text/json.h): objects keep their key order, numbers are
// written with the fewest digits that read back to the same double, so a config written by a tool looks like
// one written by hand ("layer_norm_eps": 1e-05, "nhead": 4).
#pragma once
#include <string>

#include "tools/text/json.h"

namespace ax::tools {

// Objects one member per line, indented by two spaces per level; arrays of scalars on one line.
std::string format_json(const JsonValue& value);

}  // namespace ax::tools
