// Filling the empty cells of a CSV column (--fill previous|linear).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tools/text/csv.h"

namespace ax::tools {

// `missing` flags the empty cells of `table` (row-major); `lines` is each row's line in the file and
// `file_columns` each column's 1-based place in it, for messages. previous: the value above; linear: on
// the straight line between the values above and below, by row. A gap with no value above it (or, for
// linear, below it) throws ToolError naming the line and column. Counts the cells in table.filled.
void fill_gaps(Table& table, const std::vector<bool>& missing, const std::vector<size_t>& lines,
               const std::vector<size_t>& file_columns, Fill fill, const std::string& source);

}  // namespace ax::tools
