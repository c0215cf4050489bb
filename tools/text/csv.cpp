#include "tools/text/csv.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <system_error>

#include "tools/common/tool_error.h"

namespace ax::tools {
namespace {

struct Line {
    size_t number;       // 1-based, for messages
    std::string text;    // without the line ending
};

// Splits on '\n' and drops a '\r' before it, so both LF and CRLF files read the same.
std::vector<Line> split_lines(const std::string& text) {
    std::vector<Line> lines;
    size_t start = 0;
    // Excel writes a UTF-8 byte order mark in front of the header.
    if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) start = 3;
    while (start < text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        size_t stop = end > start && text[end - 1] == '\r' ? end - 1 : end;
        lines.push_back({lines.size() + 1, text.substr(start, stop - start)});
        start = end + 1;
    }
    return lines;
}

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t");
    if (b == std::string::npos) return "";
    size_t e = s.find_last_not_of(" \t");
    return s.substr(b, e - b + 1);
}

bool is_blank(const std::string& s) { return s.find_first_not_of(" \t") == std::string::npos; }

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
NumberStatus parse_float(const std::string& field, float& value) {
    const char* first = field.data();
    const char* last = first + field.size();
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

// NaN, infinity and out-of-range values still look like numbers, and an empty field is a missing number:
// the line is then read as data and the reader names the actual problem.
bool is_text(const std::string& field) {
    float ignored;
    return !field.empty() && parse_float(field, ignored) == NumberStatus::NotANumber;
}

std::vector<std::string> split_plain(const std::string& line) {
    std::vector<std::string> fields;
    size_t start = 0;
    for (;;) {
        size_t comma = line.find(',', start);
        fields.push_back(trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
        if (comma == std::string::npos) return fields;
        start = comma + 1;
    }
}

std::string count(size_t n, const std::string& noun) {
    return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

[[noreturn]] void fail(const std::string& source, size_t line, const std::string& what) {
    throw ToolError(source + ":" + std::to_string(line) + ": " + what);
}

// Reads the quoted name whose opening quote is at s[i], RFC 4180 style ("" stands for one quote), and
// leaves i on the comma after it or at the end of the line.
std::string read_quoted(const Line& line, const std::string& source, size_t col, size_t& i) {
    const std::string& s = line.text;
    std::string name;
    for (++i; i < s.size(); ++i) {
        if (s[i] != '"') {
            name += s[i];
        } else if (i + 1 < s.size() && s[i + 1] == '"') {
            name += '"';
            ++i;
        } else {
            i = std::min(s.find_first_not_of(" \t", i + 1), s.size());
            if (i < s.size() && s[i] != ',')
                fail(source, line.number, "column " + std::to_string(col) + ": text after the closing quote");
            return name;
        }
    }
    fail(source, line.number, "column " + std::to_string(col) + ": unterminated quote");
}

// Splits the first line and tells whether it is a header, i.e. has a field that is text. Names may be
// quoted ("a,b", "say ""hi"""), as pandas writes them; a quoted name counts as text even if it looks
// like a number, which lets all-numeric names survive a round trip.
bool split_header(const Line& line, const std::string& source, std::vector<std::string>& names) {
    const std::string& s = line.text;
    bool any_text = false;
    for (size_t i = 0;; ++i) {  // ++i steps over the comma that ended the previous field
        i = std::min(s.find_first_not_of(" \t", i), s.size());
        if (i < s.size() && s[i] == '"') {
            names.push_back(read_quoted(line, source, names.size() + 1, i));
            any_text = true;
        } else {
            size_t comma = std::min(s.find(',', i), s.size());
            names.push_back(trim(s.substr(i, comma - i)));
            any_text = any_text || is_text(names.back());
            i = comma;
        }
        if (i >= s.size()) return any_text;
    }
}

void check_header(const Line& line, const std::string& source, const std::vector<std::string>& names) {
    for (size_t c = 0; c < names.size(); ++c)
        if (names[c].empty())
            fail(source, line.number, "column " + std::to_string(c + 1) + " has no name in the header");
}

void parse_row(const Line& line, const std::string& source, size_t cols, std::vector<float>& values) {
    std::vector<std::string> fields = split_plain(line.text);
    if (fields.size() != cols) {
        fail(source, line.number, "expected " + count(cols, "column") + ", found " + std::to_string(fields.size()));
    }
    for (size_t c = 0; c < fields.size(); ++c) {
        auto fail_field = [&](const std::string& what) {
            fail(source, line.number, "column " + std::to_string(c + 1) + ": " + what);
        };
        if (fields[c].empty()) fail_field("empty field");
        float v = 0.0f;
        switch (parse_float(fields[c], v)) {
            case NumberStatus::Ok: break;
            case NumberStatus::NotANumber: fail_field(show(fields[c]) + " is not a number"); break;
            case NumberStatus::NotFinite: fail_field("NaN and infinity are not allowed"); break;
            case NumberStatus::OutOfRange: fail_field(show(fields[c]) + " is out of float range"); break;
        }
        values.push_back(v);
    }
}

// Header names are quoted when a plain write would not read back as the same header.
std::string header_field(const std::string& name, size_t col) {
    if (name.empty()) throw ToolError("cannot write CSV: column " + std::to_string(col + 1) + " has no name");
    if (name.find_first_of("\r\n") != std::string::npos)
        throw ToolError("cannot write CSV: name of column " + std::to_string(col + 1) + " contains a line break");
    // A leading byte order mark would be dropped on reading when this is the first column: quote it.
    bool plain = name.find_first_of(",\"") == std::string::npos && trim(name) == name && is_text(name) &&
                 name.compare(0, 3, "\xEF\xBB\xBF") != 0;
    if (plain) return name;
    std::string out = "\"";
    for (char ch : name) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
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

Table parse_csv(const std::string& text, const std::string& source_name) {
    std::vector<Line> lines = split_lines(text);
    while (!lines.empty() && is_blank(lines.back().text)) lines.pop_back();
    if (lines.empty()) throw ToolError(source_name + ": no data rows (the file is empty)");

    Table table;
    size_t first_data = 0;
    std::vector<std::string> names;
    if (split_header(lines[0], source_name, names)) {
        check_header(lines[0], source_name, names);
        table.header = std::move(names);
        table.cols = table.header.size();
        first_data = 1;
    } else {
        table.cols = split_plain(lines[0].text).size();
    }
    if (first_data == lines.size()) throw ToolError(source_name + ": no data rows after the header");

    for (size_t i = first_data; i < lines.size(); ++i) {
        if (is_blank(lines[i].text)) fail(source_name, lines[i].number, "blank line before the end of the data");
        parse_row(lines[i], source_name, table.cols, table.values);
        ++table.rows;
    }
    return table;
}

Table read_csv(const std::string& path) { return parse_csv(read_text_file(path), path); }

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
    std::string out;
    for (size_t c = 0; c < table.header.size(); ++c) out += (c ? "," : "") + header_field(table.header[c], c);
    if (!table.header.empty()) out += '\n';
    for (size_t r = 0; r < table.rows; ++r) {
        for (size_t c = 0; c < table.cols; ++c) {
            float v = table.at(r, c);
            // The reader refuses NaN and infinity, so writing them would produce a file we cannot read back.
            if (!std::isfinite(v)) {
                throw ToolError("cannot write CSV: row " + std::to_string(r + 1) + ", column " +
                                std::to_string(c + 1) + " is NaN or infinite");
            }
            // to_chars with precision 9 is exactly %.9g, minus the locale's decimal separator.
            char buf[32];
            auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 9);
            if (c) out += ',';
            out.append(buf, res.ptr);
        }
        out += '\n';
    }
    return out;
}

void write_csv(const std::string& path, const Table& table) {
    std::string text = format_csv(table);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw ToolError("cannot write '" + path + "': " + std::strerror(errno));
    bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    ok = std::fclose(f) == 0 && ok;
    if (!ok) throw ToolError("cannot write '" + path + "': " + std::strerror(errno));
}

}  // namespace ax::tools
