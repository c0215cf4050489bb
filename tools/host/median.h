// The median the benchmarks report: the middle of the sorted samples (the upper one of an even count), 0 for none.
#pragma once
#include <algorithm>
#include <vector>

namespace ax::tools {

inline double median(std::vector<double> samples) {
    if (samples.empty()) return 0;
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

}  // namespace ax::tools
