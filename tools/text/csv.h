// CSV time series: one row per time step, one column per feature, comma-separated, optional header line.
#pragma once
#include <string>
#include <vector>

namespace ax::tools {

struct Table {
    std::vector<std::string> header;  // empty when the file had none
    size_t rows = 0;
    size_t cols = 0;
    std::vector<float> values;        // row-major, rows * cols
    float at(size_t r, size_t c) const { return values[r * cols + c]; }
};

// Reads a CSV. The first line is a header when any of its fields is not a number. Blank lines at the end
// are ignored; CRLF is accepted. Wrong column count, a non-number, NaN or Inf, or a value out of float
// range throws ToolError "<path>:<line>: <what>". An empty file (no data rows) is an error too.
Table read_csv(const std::string& path);
Table parse_csv(const std::string& text, const std::string& source_name);

// Writes values with enough digits to round-trip a float (%.9g). Header written when non-empty.
void write_csv(const std::string& path, const Table& table);
std::string format_csv(const Table& table);

}  // namespace ax::tools
