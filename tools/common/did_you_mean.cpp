#include "tools/common/did_you_mean.h"

#include <algorithm>

namespace ax::tools {

size_t edit_distance(const std::string& a, const std::string& b) {
    // Rows i-2, i-1 and i of the table of distances between prefixes of a and b.
    std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                cur[j] = std::min(cur[j], before[j - 2] + 1);
        }
        before = prev;
        prev = cur;
    }
    return prev[b.size()];
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& known, const std::string& quote) {
    const size_t limit = std::min<size_t>(3, std::max<size_t>(1, word.size() / 3));
    const std::string* best = nullptr;
    size_t best_distance = limit + 1;
    for (const std::string& k : known) {
        const size_t d = edit_distance(word, k);
        if (d < best_distance) {
            best = &k;
            best_distance = d;
        }
    }
    return best ? " (did you mean \"" + quote + *best + "\"?)" : "";
}

}  // namespace ax::tools
