#include "tools/text/csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <system_error>

#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"
#include "tools/text/csv_columns.h"
#include "tools/text/csv_fill.h"
#include "tools/text/csv_records.h"
#include "tools/text/csv_time.h"

namespace ax::tools {
namespace {

// A field shown inside a one-line message: printable ASCII only, long text shortened.
std::string show(const std::string& field) {
    constexpr size_t kMaxShown = 32;
    std::string out = "'";
    for (size_t i = 0; i < field.size() && i < kMaxShown; ++i) {
        unsigned char c = static_cast<unsigned char>(field[i]);
        out += c >= 0x20 && c < 0x7F ? static_cast<char>(c) : '?';
    }
    if (field.size() > kMaxShown) out += "...";
    return out + "'";
}

enum class NumberStatus { Ok, NotANumber, NotFinite, OutOfRange };

// from_chars ignores the locale; it rejects a leading '+', which spreadsheets write, so that is skipped here.
// With `decimal_comma`, one ',' (and no '.') is the decimal point.
NumberStatus parse_float(const std::string& text, bool decimal_comma, float& value, bool* used_comma = nullptr) {
    std::string comma_free;
    const std::string* field = &text;
    if (decimal_comma && text.find(',') != std::string::npos) {
        if (std::count(text.begin(), text.end(), ',') != 1 || text.find('.') != std::string::npos)
            return NumberStatus::NotANumber;
        comma_free = text;
        comma_free[comma_free.find(',')] = '.';
        field = &comma_free;
        if (used_comma) *used_comma = true;
    }
    const char* first = field->data();
    const char* last = first + field->size();
    bool plus = first != last && *first == '+';
    if (plus) ++first;
    if (plus && first != last && *first == '-') return NumberStatus::NotANumber;
    auto res = std::from_chars(first, last, value);
    if (res.ptr != last) return NumberStatus::NotANumber;
    if (res.ec == std::errc::result_out_of_range) return NumberStatus::OutOfRange;
    if (res.ec != std::errc()) return NumberStatus::NotANumber;
    if (!std::isfinite(value)) return NumberStatus::NotFinite;
    return NumberStatus::Ok;
}

// What loggers, spreadsheets and data tools write for a missing value (any case): R's NA, Excel's #N/A,
// numpy's and pandas' nan, JSON's null, Python's None.
bool is_missing_marker(const std::string& field) {
    std::string s;
    for (char c : field) s += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    for (const char* marker : {"na", "n/a", "#n/a", "nan", "-nan", "null", "none"})
        if (s == marker) return true;
    return false;
}

// NaN, infinity and out-of-range values still look like numbers, timestamps are data, and an empty field or
// a missing-value marker is a missing number: a line of them is read as data and the reader names the actual
// problem.
bool is_text(const std::string& field, bool decimal_comma) {
    float ignored;
    return !field.empty() && parse_float(field, decimal_comma, ignored) == NumberStatus::NotANumber &&
           !is_timestamp(field) && !is_missing_marker(field);
}

std::string count(size_t n, const std::string& noun) { return std::to_string(n) + " " + noun + (n == 1 ? "" : "s"); }

[[noreturn]] void fail(const std::string& source, size_t line, const std::string& what) {
    throw ToolError(source + ":" + std::to_string(line) + ": " + what);
}

[[noreturn]] void fail_at(const std::string& source, size_t line, size_t col, const std::string& what) {
    fail(source, line, "column " + std::to_string(col) + ": " + what);
}

bool all_digits(const std::string& s, bool sign) {
    size_t i = sign && !s.empty() && (s[0] == '-' || s[0] == '+') ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i)
        if (s[i] < '0' || s[i] > '9') return false;
    return true;
}

// A ','-separated row with more fields than the header names, two of them neighbours that read as one number
// with a decimal comma ("21,5" split in two): the file is likely a decimal-comma file without ';'.
std::string decimal_comma_hint(const CsvRecord& r, size_t expected, char delimiter, bool delimiter_given) {
    if (delimiter != ',' || delimiter_given || r.fields.size() <= expected) return "";
    for (size_t i = 0; i + 1 < r.fields.size(); ++i)
        if (!r.quoted[i] && !r.quoted[i + 1] && all_digits(r.fields[i], true) && all_digits(r.fields[i + 1], false)) {
            const std::string number = r.fields[i] + "," + r.fields[i + 1];
            return " (" + show(number) + " may be one number with a decimal comma: --delimiter ';' reads it as " +
                   r.fields[i] + "." + r.fields[i + 1] + ")";
        }
    return "";
}

// A quoted field marks a header (the writer quotes a numeric-looking name for that), except a timestamp in
// the first column: the writer quotes one holding a decimal comma, and it is data.
bool is_header(const CsvRecord& first, bool decimal_comma) {
    for (size_t c = 0; c < first.fields.size(); ++c) {
        const bool quoted_timestamp = c == 0 && first.quoted[c] && is_timestamp(first.fields[c]);
        if ((first.quoted[c] && !quoted_timestamp) || is_text(first.fields[c], decimal_comma)) return true;
    }
    return false;
}

void check_header(const CsvRecord& line, const std::string& source) {
    for (size_t c = 0; c < line.fields.size(); ++c)
        if (line.fields[c].empty())
            fail(source, line.line, "column " + std::to_string(c + 1) + " has no name in the header");
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

enum class TimeKind { none, iso, number };

TimeKind time_kind(const CsvRecord& first_data, const std::vector<std::string>& header, const CsvOptions& options) {
    if (first_data.fields.size() < 2) return TimeKind::none;  // a lone column is a feature
    if (is_timestamp(first_data.fields[0])) return TimeKind::iso;
    if (!header.empty() && is_time_name(header[0]) && !contains(options.columns, header[0]) &&
        !contains(options.features, header[0]))
        return TimeKind::number;
    return TimeKind::none;
}

void check_time(const CsvRecord& r, TimeKind kind, bool decimal_comma, const std::string& source) {
    const std::string& t = r.fields[0];
    if (t.empty()) fail_at(source, r.line, 1, "empty timestamp");
    float ignored;
    if (kind == TimeKind::iso && !is_timestamp(t))
        fail_at(source, r.line, 1,
                show(t) +
                    " is not a timestamp like the rows above (YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS], YYYY-MM, "
                    "DD/MM/YYYY or MM/DD/YYYY [HH:MM[:SS]], DD.MM.YYYY)");
    if (kind == TimeKind::number && parse_float(t, decimal_comma, ignored) != NumberStatus::Ok)
        fail_at(source, r.line, 1, show(t) + " is not a time: a number, or a date like YYYY-MM-DD[THH:MM[:SS]]");
}

float parse_value(const std::string& field, bool decimal_comma, bool& used_comma, const std::string& source,
                  size_t line, size_t col) {
    float v = 0.0f;
    switch (parse_float(field, decimal_comma, v, &used_comma)) {
        case NumberStatus::Ok:
            break;
        case NumberStatus::NotANumber: {
            // A quoted "21,5" in a ','-separated file: a decimal comma the separator did not allow.
            const bool comma_number = !decimal_comma && std::count(field.begin(), field.end(), ',') == 1 &&
                                      field.find('.') == std::string::npos &&
                                      parse_float(field, true, v) == NumberStatus::Ok;
            fail_at(source, line, col,
                    show(field) + " is not a number" +
                        (comma_number ? " (a decimal comma: --delimiter ';' or tab reads it as a number)" : ""));
            break;
        }
        case NumberStatus::NotFinite:
            fail_at(source, line, col, "NaN and infinity are not allowed");
            break;
        case NumberStatus::OutOfRange:
            fail_at(source, line, col, show(field) + " is out of float range");
            break;
    }
    return v;
}

// A name or timestamp is quoted when a plain write would not read back as the same text or would make the
// reader detect another separator; a header name also when it would not make the line a header.
std::string text_field(const std::string& text, bool must_be_text, const Table& t) {
    const bool plain = text.find_first_of(",;\t\"") == std::string::npos &&
                       text.find(t.delimiter) == std::string::npos && text.front() != ' ' && text.back() != ' ' &&
                       text.compare(0, 3, "\xEF\xBB\xBF") != 0 && (!must_be_text || is_text(text, t.delimiter != ','));
    if (plain) return text;
    std::string out = "\"";
    for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
}

std::string header_field(const std::string& name, size_t col, const Table& t) {
    if (name.empty()) throw ToolError("cannot write CSV: column " + std::to_string(col + 1) + " has no name");
    if (name.find_first_of("\r\n") != std::string::npos)
        throw ToolError("cannot write CSV: name of column " + std::to_string(col + 1) + " contains a line break");
    return text_field(name, true, t);
}

std::string read_text_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw ToolError("cannot open '" + path + "': " + std::strerror(errno));
    std::string text;
    char buf[65536];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    bool failed = std::ferror(f) != 0;
    int read_errno = errno;
    std::fclose(f);
    if (failed) throw ToolError("cannot read '" + path + "': " + std::strerror(read_errno));
    return text;
}

}  // namespace

Table parse_csv(const std::string& text, const std::string& source_name, const CsvOptions& options) {
    const char delimiter = options.delimiter ? options.delimiter : detect_delimiter(text);
    const bool comma_ok = delimiter != ',';
    std::vector<CsvRecord> records = split_records(text, delimiter, source_name);
    while (!records.empty() && records.back().blank()) records.pop_back();
    if (records.empty()) throw ToolError(source_name + ": no data rows (the file is empty)");

    Table table;
    table.delimiter = delimiter;
    const size_t first_newline = text.find('\n');
    table.crlf = first_newline != std::string::npos && first_newline > 0 && text[first_newline - 1] == '\r';
    std::vector<std::string> header;
    size_t first_data = 0;
    if (is_header(records[0], comma_ok)) {
        check_header(records[0], source_name);
        header = records[0].fields;
        first_data = 1;
    }
    if (first_data == records.size()) throw ToolError(source_name + ": no data rows after the header");
    if (options.last_rows != 0 && records.size() - first_data > options.last_rows) {
        // A gap at the top of the rows kept is filled from the rows above: keep them back to one with none.
        size_t start = records.size() - options.last_rows;
        auto has_gap = [](const CsvRecord& r) {
            return std::any_of(r.fields.begin(), r.fields.end(),
                               [](const std::string& f) { return f.empty() || is_missing_marker(f); });
        };
        if (options.fill != Fill::none)
            while (start > first_data && has_gap(records[start])) --start;
        records.erase(records.begin() + static_cast<long>(first_data), records.begin() + static_cast<long>(start));
    }
    const size_t file_cols = header.empty() ? records[first_data].fields.size() : header.size();
    if (records[first_data].blank())
        fail(source_name, records[first_data].line, "blank line before the end of the data");
    const TimeKind kind = time_kind(records[first_data], header, options);
    const size_t skip = kind == TimeKind::none ? 0 : 1;
    if (!header.empty() && skip) table.time_name = header[0];
    const std::vector<std::string> names(header.begin() + static_cast<long>(std::min(skip, header.size())),
                                         header.end());
    const std::vector<size_t> picked = pick_columns(names, file_cols - skip, options, source_name, table.ignored);
    if (!header.empty())
        for (size_t c : picked) table.header.push_back(names[c]);
    table.cols = picked.size();

    const bool as_nan = options.missing_as_nan && options.fill == Fill::none;
    std::vector<bool> missing;
    std::vector<size_t> lines;
    for (size_t i = first_data; i < records.size(); ++i) {
        const CsvRecord& r = records[i];
        if (r.blank()) fail(source_name, r.line, "blank line before the end of the data");
        if (r.fields.size() != file_cols)
            fail(source_name, r.line,
                 "expected " + count(file_cols, "column") + ", found " + std::to_string(r.fields.size()) +
                     (header.empty() ? "" : decimal_comma_hint(r, file_cols, delimiter, options.delimiter != 0)));
        if (skip) {
            check_time(r, kind, comma_ok, source_name);
            table.times.push_back(r.fields[0]);
        }
        for (size_t c : picked) {
            const std::string& field = r.fields[c + skip];
            const bool empty = field.empty() || is_missing_marker(field);
            if (empty && options.fill == Fill::none && !as_nan)
                fail_at(source_name, r.line, c + skip + 1,
                        (field.empty() ? std::string("empty field") : show(field) + " marks a missing value") +
                            " (--fill previous or --fill linear fills gaps)");
            missing.push_back(empty);
            table.values.push_back(
                empty ? (as_nan ? std::numeric_limits<float>::quiet_NaN() : 0.0f)
                      : parse_value(field, comma_ok, table.decimal_comma, source_name, r.line, c + skip + 1));
        }
        lines.push_back(r.line);
        ++table.rows;
    }
    if (table.cols == 0) throw ToolError(source_name + ": no feature columns besides the time column");
    if (kind == TimeKind::iso) {
        std::string why;
        if (!date_order(table.times, options.date_order, table.date_order, why))
            throw ToolError(source_name + ": " + why);
    }
    if (!as_nan && std::find(missing.begin(), missing.end(), true) != missing.end()) {
        std::vector<size_t> file_columns;
        for (size_t c : picked) file_columns.push_back(c + skip + 1);
        fill_gaps(table, missing, lines, file_columns, options.fill, source_name);
    }
    return table;
}

Table read_csv(const std::string& path, const CsvOptions& options) {
    return parse_csv(read_text_file(path), path, options);
}

std::string format_csv(const Table& table) {
    if (table.cols == 0 || table.rows == 0) throw ToolError("cannot write CSV: the table is empty");
    if (table.values.size() != table.rows * table.cols) {
        throw ToolError("cannot write CSV: " + std::to_string(table.values.size()) + " values do not fill " +
                        std::to_string(table.rows) + " rows of " + count(table.cols, "column"));
    }
    if (!table.header.empty() && table.header.size() != table.cols) {
        throw ToolError("cannot write CSV: header has " + count(table.header.size(), "name") + " for " +
                        count(table.cols, "column"));
    }
    if (!table.times.empty() && table.times.size() != table.rows)
        throw ToolError("cannot write CSV: " + count(table.times.size(), "timestamp") + " for " +
                        count(table.rows, "row"));
    const std::string sep(1, table.delimiter);
    const char* eol = table.crlf ? "\r\n" : "\n";
    std::string out;
    if (!table.header.empty()) {
        if (!table.times.empty())
            out += header_field(table.time_name.empty() ? "time" : table.time_name, 0, table) + sep;
        for (size_t c = 0; c < table.header.size(); ++c)
            out += (c ? sep : "") + header_field(table.header[c], c, table);
        out += eol;
    }
    for (size_t r = 0; r < table.rows; ++r) {
        if (!table.times.empty()) {
            if (table.times[r].empty() || table.times[r].find_first_of("\r\n") != std::string::npos)
                throw ToolError("cannot write CSV: timestamp of row " + std::to_string(r + 1) +
                                " is empty or has a line break");
            out += text_field(table.times[r], false, table) + sep;
        }
        for (size_t c = 0; c < table.cols; ++c) {
            float v = table.at(r, c);
            // The reader refuses NaN and infinity, so writing them would produce a file we cannot read back.
            if (!std::isfinite(v)) {
                throw ToolError("cannot write CSV: row " + std::to_string(r + 1) + ", column " + std::to_string(c + 1) +
                                " is NaN or infinite");
            }
            // to_chars with precision 9 is exactly %.9g, minus the locale's decimal separator.
            char buf[32];
            auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
            if (table.decimal_comma) std::replace(buf, res.ptr, '.', ',');
            if (c) out += sep;
            out.append(buf, res.ptr);
        }
        out += eol;
    }
    return out;
}

void write_csv(const std::string& path, const Table& table) { write_file_atomic(path, format_csv(table)); }

void keep_last_rows(Table& table, size_t rows) {
    if (rows >= table.rows) return;
    const size_t drop = table.rows - rows;
    table.values.erase(table.values.begin(), table.values.begin() + static_cast<long>(drop * table.cols));
    if (!table.times.empty()) table.times.erase(table.times.begin(), table.times.begin() + static_cast<long>(drop));
    table.rows = rows;
}

}  // namespace ax::tools
