// Text split at a separator: the names stored one per line in a model's text records, a list of files
// given with commas on the command line.
#pragma once
#include <string>
#include <vector>

namespace ax::tools {

// The pieces of `text` between `separator`s, empty ones kept; none for an empty text.
inline std::vector<std::string> split_text(const std::string& text, char separator) {
    std::vector<std::string> pieces;
    if (text.empty()) return pieces;
    size_t start = 0;
    for (;;) {
        const size_t end = text.find(separator, start);
        pieces.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return pieces;
        start = end + 1;
    }
}

// The lines of a text file: '\n'-separated, a final newline ending the last line (not starting another), a
// CR before a newline dropped.
inline std::vector<std::string> split_lines(const std::string& text) {
    std::vector<std::string> lines = split_text(text, '\n');
    if (!lines.empty() && lines.back().empty()) lines.pop_back();
    for (std::string& line : lines)
        if (!line.empty() && line.back() == '\r') line.pop_back();
    return lines;
}

}  // namespace ax::tools
