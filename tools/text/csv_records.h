// The record layer of the CSV reader: RFC 4180 fields (quoted fields may hold the separator, "" for a
// quote, line breaks), the separator detected from the first line or given, CRLF and a UTF-8 byte order mark.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

namespace ax::tools {

struct CsvRecord {
    size_t line = 0;                  // 1-based line the record starts on, for messages
    std::vector<std::string> fields;  // unquoted fields trimmed of spaces (and tabs unless they separate)
    std::vector<bool> quoted;         // per field: it was written in quotes
    bool blank() const { return fields.size() == 1 && !quoted[0] && fields[0].empty(); }
};

// ';' when the first line has one outside quotes (spreadsheets in locales with a decimal comma write it),
// else a tab when it has one, else ','.
char detect_delimiter(const std::string& text);

// Splits text into records. Throws ToolError "<source>:<line>: column <c>: ..." for an unterminated quote or
// text after a closing quote.
std::vector<CsvRecord> split_records(const std::string& text, char delimiter, const std::string& source);

// The separator as a user names it: "," ";" "tab" (or a tab character) "|"; throws ToolError otherwise.
char parse_delimiter(const std::string& name);

}  // namespace ax::tools
