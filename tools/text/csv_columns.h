// Picking a CSV's feature columns by header name: --columns, or the feature names stored in the model.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tools/text/csv.h"

namespace ax::tools {

// Indices into `names` (the header without the time column; empty without a header) of `count` columns
// to read, in the order asked for. Throws ToolError naming `source` for a column that is not there
// (listing the columns found), a name asked for twice or a name the header holds twice. Sets `ignored` to
// the names not picked when picking by name.
std::vector<size_t> pick_columns(const std::vector<std::string>& names, size_t count, const CsvOptions& options,
                                 const std::string& source, std::vector<std::string>& ignored);

}  // namespace ax::tools
