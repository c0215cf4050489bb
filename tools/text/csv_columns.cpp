#include "tools/text/csv_columns.h"

#include <algorithm>
#include <charconv>

#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

size_t find_name(const std::vector<std::string>& names, const std::string& wanted, const std::string& source) {
    const size_t n = static_cast<size_t>(std::count(names.begin(), names.end(), wanted));
    if (n > 1) throw ToolError(source + ": the header names column '" + wanted + "' " + std::to_string(n) + " times");
    return static_cast<size_t>(std::find(names.begin(), names.end(), wanted) - names.begin());
}

// A 1-based column number, for files without a header.
bool column_number(const std::string& s, size_t count, size_t& index) {
    size_t v = 0;
    const auto res = std::from_chars(s.data(), s.data() + s.size(), v);
    if (res.ec != std::errc() || res.ptr != s.data() + s.size() || v < 1 || v > count) return false;
    index = v - 1;
    return true;
}

// "a, b, c": at most 20 names, then "...".
std::string listed(const std::vector<std::string>& names) {
    std::string out;
    for (size_t i = 0; i < names.size() && i < 20; ++i) out += (i ? ", " : "") + names[i];
    return names.size() > 20 ? out + ", ..." : out;
}

}  // namespace

std::vector<size_t> pick_columns(const std::vector<std::string>& names, size_t count, const CsvOptions& options,
                                 const std::string& source, std::vector<std::string>& ignored) {
    std::vector<size_t> picked;
    ignored.clear();
    const bool by_columns = !options.columns.empty();
    if (!by_columns && (options.features.empty() || names.empty())) {
        for (size_t c = 0; c < count; ++c) picked.push_back(c);
        return picked;
    }
    const std::vector<std::string>& wanted = by_columns ? options.columns : options.features;
    for (const std::string& w : wanted) {
        size_t index = find_name(names, w, source);
        if (index == names.size() && !(names.empty() && column_number(w, count, index))) {
            if (names.empty())
                throw ToolError(source + " has no header line to find column '" + w +
                                "' by name (give column numbers 1.." + std::to_string(count) + ")");
            throw ToolError(source + " has no column '" + w + "'" +
                            (by_columns ? "" : " (a feature the model was trained on: " + listed(wanted) + ")") +
                            "; columns found: " + listed(names));
        }
        if (std::find(picked.begin(), picked.end(), index) != picked.end())
            throw ToolError(source + ": column '" + w + "' is asked for twice");
        picked.push_back(index);
    }
    for (size_t c = 0; c < names.size(); ++c)
        if (std::find(picked.begin(), picked.end(), c) == picked.end()) ignored.push_back(names[c]);
    return picked;
}

}  // namespace ax::tools
