// CSV time series: one row per time step, one column per feature, optional header line, optional first
// column of timestamps. Reads what sensors and spreadsheets write: ',' or ';' or tab separators (detected),
// decimal commas with ';' or tab, RFC 4180 quoted fields, CRLF, a UTF-8 byte order mark.
#pragma once
#include <string>
#include <vector>

#include "tools/text/csv_time.h"

namespace ax::tools {

struct Table {
    std::vector<std::string> header;  // feature names; empty when the file had none
    size_t rows = 0;
    size_t cols = 0;
    std::vector<float> values;  // row-major, rows * cols
    // The first column when it holds timestamps (tools/text/csv_time.h), kept as written, one per row;
    // empty when there is none. Written back before the features.
    std::string time_name;
    std::vector<std::string> times;
    char delimiter = ',';                       // as read, and as written
    bool decimal_comma = false;                 // numbers were read, and are written, with ',' for the decimal point
    bool crlf = false;                          // lines end in CR LF (as read, and as written), else LF
    DateOrder date_order = DateOrder::unknown;  // of the time column's local dates (D/M/YYYY or M/D/YYYY)
    std::vector<std::string> ignored;           // header names of the columns the reader did not pick
    size_t filled = 0;                          // empty cells filled (CsvOptions::fill)
    float at(size_t r, size_t c) const { return values[r * cols + c]; }
};

enum class Fill { none, previous, linear };

struct CsvOptions {
    char delimiter = 0;                // 0: detected (tools/text/csv_records.h)
    std::vector<std::string> columns;  // columns to read, by header name (or 1-based number); empty: all
    // The names the model was trained on: when `columns` is empty and the file has a header, these columns
    // are picked by name (one missing is an error listing the columns found; others are left out and listed
    // in Table::ignored).
    std::vector<std::string> features;
    Fill fill = Fill::none;  // empty cells: an error, the previous row's value, or linear in rows
    // Without fill: missing cells are read as NaN instead of refused (for models that take missing values,
    // such as Chronos-Bolt; every other model refuses them).
    bool missing_as_nan = false;
    // Read only the last `last_rows` data rows (0: all): the rows above them are neither read nor validated
    // (a forecast's window is the end of a long log). With `fill`, a gap in the first of them is filled
    // from above: the rows back to one without a gap are read too.
    size_t last_rows = 0;
    // Day or month first in D/M/YYYY dates: unknown lets a day or month over 12 tell (an error if none does).
    DateOrder date_order = DateOrder::unknown;
};

// Reads a CSV. The first line is a header when a field is quoted or is text (not a number or timestamp).
// The first column holds times when its first value is an ISO 8601 date or datetime or a local date
// (csv_time.h: is_timestamp), or when its header
// name says so (csv_time.h: is_time_name) and it is not one of the columns or features asked for. Blank
// lines at the end are ignored. A cell of NA, N/A, #N/A, NaN, null or None (any case) is a missing value, as
// an empty one is. A wrong column count, a non-number, NaN or Inf, a value out of float range
// or a missing value (without `fill`) throws ToolError "<path>:<line>: column <c>: <what>". An empty file
// (no data rows) is an error too.
Table read_csv(const std::string& path, const CsvOptions& options = {});
Table parse_csv(const std::string& text, const std::string& source_name, const CsvOptions& options = {});

// Writes values with enough digits to round-trip a float (%.9g), with the table's separator, decimal
// mark and line ends. Header written when non-empty (the time column's name first).
void write_csv(const std::string& path, const Table& table);
std::string format_csv(const Table& table);

// Keeps the last `rows` rows (values and timestamps).
void keep_last_rows(Table& table, size_t rows);

}  // namespace ax::tools
