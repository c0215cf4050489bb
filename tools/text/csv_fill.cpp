#include "tools/text/csv_fill.h"

#include "tools/common/tool_error.h"

namespace ax::tools {

void fill_gaps(Table& table, const std::vector<bool>& missing, const std::vector<size_t>& lines,
               const std::vector<size_t>& file_columns, Fill fill, const std::string& source) {
    auto fail = [&](size_t r, size_t c, const std::string& what) {
        throw ToolError(source + ":" + std::to_string(lines[r]) + ": column " + std::to_string(file_columns[c]) +
                        ": missing value " + what);
    };
    for (size_t c = 0; c < table.cols; ++c) {
        for (size_t r = 0; r < table.rows; ++r) {
            if (!missing[r * table.cols + c]) continue;
            if (r == 0) fail(r, c, "in the first row: no value above it to fill from");
            const float above = table.at(r - 1, c);  // already filled when it was empty
            size_t below = r;
            while (below < table.rows && missing[below * table.cols + c]) ++below;
            if (fill == Fill::linear && below == table.rows)
                fail(r, c, "at the end: no value below it to interpolate to (--fill previous repeats the last value)");
            for (size_t k = r; k < below; ++k) {
                float v = above;
                if (fill == Fill::linear) {
                    const double f = static_cast<double>(k - r + 1) / static_cast<double>(below - r + 1);
                    v = static_cast<float>(above + (table.at(below, c) - static_cast<double>(above)) * f);
                }
                table.values[k * table.cols + c] = v;
                ++table.filled;
            }
            r = below;
        }
    }
}

}  // namespace ax::tools
