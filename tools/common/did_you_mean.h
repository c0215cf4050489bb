// " (did you mean \"nhead\"?)" for a mistyped key or option, by edit distance.
#pragma once
#include <string>
#include <vector>

namespace ax::tools {

// The closest of `known` when it is within a third of the word's length (at least 1, at most 3 edits;
// an adjacent swap counts as one edit) as ` (did you mean "<quote><name>"?)`, else "".
std::string did_you_mean(const std::string& word, const std::vector<std::string>& known, const std::string& quote = "");

// Edits (insert, delete, replace, swap two neighbours) that turn a into b.
size_t edit_distance(const std::string& a, const std::string& b);

}  // namespace ax::tools
