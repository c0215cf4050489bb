#include "tools/text/csv_records.h"

#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

constexpr const char* kBom = "\xEF\xBB\xBF";

size_t skip_bom(const std::string& text) { return text.compare(0, 3, kBom) == 0 ? 3 : 0; }

// Spaces around fields are not data; a tab is, when it is the separator.
bool is_pad(char c, char delimiter) { return c == ' ' || (c == '\t' && delimiter != '\t'); }

// A line ends at '\n', or at '\r' followed by '\n' or by the end of the text.
bool at_line_end(const std::string& s, size_t i) {
    return i >= s.size() || s[i] == '\n' || (s[i] == '\r' && (i + 1 == s.size() || s[i + 1] == '\n'));
}

// Steps over the line ending at s[i] (which at_line_end accepted).
size_t past_line_end(const std::string& s, size_t i) {
    if (i < s.size() && s[i] == '\r') ++i;
    return i < s.size() ? i + 1 : i;
}

[[noreturn]] void fail(const std::string& source, size_t line, size_t col, const std::string& what) {
    throw ToolError(source + ":" + std::to_string(line) + ": column " + std::to_string(col) + ": " + what);
}

}  // namespace

char detect_delimiter(const std::string& text) {
    size_t i = skip_bom(text);
    for (;;) {  // the first line that is not blank decides
        const size_t end = text.find('\n', i);
        if (end == std::string::npos || text.find_first_not_of(" \t\r", i) < end) break;
        i = end + 1;
    }
    bool quoted = false, semicolon = false, tab = false;
    for (; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"') {
            quoted = !quoted;
        } else if (!quoted) {
            if (c == '\n') break;
            semicolon = semicolon || c == ';';
            tab = tab || c == '\t';
        }
    }
    return semicolon ? ';' : tab ? '\t' : ',';
}

std::vector<CsvRecord> split_records(const std::string& text, char delimiter, const std::string& source) {
    std::vector<CsvRecord> records;
    const std::string& s = text;
    size_t i = skip_bom(s);
    size_t line = 1;
    while (i < s.size()) {
        CsvRecord r;
        r.line = line;
        for (;;) {  // one field per pass
            while (i < s.size() && is_pad(s[i], delimiter)) ++i;
            std::string field;
            bool quoted = false;
            if (i < s.size() && s[i] == '"') {
                quoted = true;
                const size_t col = r.fields.size() + 1;
                for (++i;; ++i) {
                    if (i >= s.size()) fail(source, r.line, col, "unterminated quote");
                    if (s[i] == '"') {
                        if (i + 1 < s.size() && s[i + 1] == '"') {
                            field += '"';
                            ++i;
                            continue;
                        }
                        ++i;
                        break;
                    }
                    if (s[i] == '\n') ++line;
                    field += s[i];
                }
                while (i < s.size() && is_pad(s[i], delimiter)) ++i;
                if (!at_line_end(s, i) && s[i] != delimiter) fail(source, line, col, "text after the closing quote");
            } else {
                const size_t start = i;
                while (!at_line_end(s, i) && s[i] != delimiter) ++i;
                size_t end = i;
                while (end > start && is_pad(s[end - 1], delimiter)) --end;
                field = s.substr(start, end - start);
            }
            r.fields.push_back(std::move(field));
            r.quoted.push_back(quoted);
            if (at_line_end(s, i)) break;
            ++i;  // the separator
        }
        i = past_line_end(s, i);
        ++line;
        records.push_back(std::move(r));
    }
    return records;
}

char parse_delimiter(const std::string& name) {
    if (name == "," || name == "comma") return ',';
    if (name == ";" || name == "semicolon") return ';';
    if (name == "\t" || name == "tab" || name == "\\t") return '\t';
    if (name == "|") return '|';
    throw ToolError("--delimiter is one of , ; tab |, got \"" + name + "\"");
}

}  // namespace ax::tools
