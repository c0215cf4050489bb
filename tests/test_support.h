// Shared helpers of the doctest suites: fixture paths, tolerant comparison, error measures, the ports to test.
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "runtime/kernels.h"

namespace ax::test {

std::string fixture_path(const std::string& relative);

// Largest error of got against want, each measured as |g - w| / max(1, |w|): absolute error for values
// below 1, relative above, as "within 1e-4 absolute or relative, whichever is larger" asks.
double max_mixed_error(const std::vector<float>& got, const std::vector<float>& want);

// Checks sizes match and max_mixed_error <= tolerance; on failure the message names `what` and the
// worst element.
void check_close(const std::vector<float>& got, const std::vector<float>& want, double tolerance,
                 const std::string& what);

inline double rms(const std::vector<float>& v) {
    double s = 0;
    for (float x : v) s += static_cast<double>(x) * x;
    return v.empty() ? 0.0 : std::sqrt(s / static_cast<double>(v.size()));
}

// Infinite when the sizes differ, so a result with rows lost or added never passes.
inline double max_abs_error(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double e = std::fabs(static_cast<double>(a[i]) - b[i]);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

inline bool all_finite(const std::vector<float>& v) {
    for (float x : v)
        if (!std::isfinite(x)) return false;
    return true;
}

// Every kernel port this build and CPU can run, generic first.
std::vector<const Kernels*> available_ports();

}  // namespace ax::test
