#include "tests/test_support.h"

#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "ports/ports.h"

namespace ax::test {

std::string fixture_path(const std::string& relative) { return std::string(AUSPEX_FIXTURE_DIR) + "/" + relative; }

double max_mixed_error(const std::vector<float>& got, const std::vector<float>& want) {
    // Vectors of different lengths are infinitely far apart: comparing only the shorter prefix would pass a
    // result that lost or gained rows.
    if (got.size() != want.size()) return INFINITY;
    double worst = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double w = want[i];
        const double e = std::fabs(static_cast<double>(got[i]) - w) / std::fmax(1.0, std::fabs(w));
        if (!(e <= worst)) worst = e;  // NaN counts as the worst
    }
    return worst;
}

void check_close(const std::vector<float>& got, const std::vector<float>& want, double tolerance,
                 const std::string& what) {
    INFO(what);
    REQUIRE(got.size() == want.size());
    size_t worst_at = 0;
    double worst = 0.0;
    for (size_t i = 0; i < got.size(); ++i) {
        const double e = max_mixed_error({got[i]}, {want[i]});
        if (!(e <= worst)) {
            worst = e;
            worst_at = i;
        }
    }
    INFO("worst element " << worst_at << ": got " << got[worst_at] << ", want " << want[worst_at]);
    // AUSPEX_REPORT_ERRORS=1 prints every comparison's worst error: how the bounds in the suites were measured.
    static const bool report = std::getenv("AUSPEX_REPORT_ERRORS") != nullptr;
    if (report) std::printf("error %-12.6g bound %-8.2g %s\n", worst, tolerance, what.c_str());
    CHECK(worst <= tolerance);
}

// Every name kernels_by_name knows or is expected to know (a port added to ports/port_select.cpp under one
// of these names is tested without touching this file; add new names here). The first call prints which
// ports this run exercises and which it cannot, so a run on a CPU without them says so instead of passing
// with fewer checks unseen.
std::vector<const Kernels*> available_ports() {
    static const std::vector<const Kernels*> ports = [] {
        const char* const names[] = {"generic", "avx2", "avx2-vnni", "avx512", "avx512-256", "neon", "mcu"};
        std::vector<const Kernels*> found;
        std::string used, missing;
        for (const char* name : names) {
            const Kernels* k = kernels_by_name(name);
            bool seen = false;
            for (const Kernels* f : found) seen = seen || f == k;
            if (k != nullptr && !seen) {
                found.push_back(k);
                used += std::string(" ") + name;
            } else if (k == nullptr) {
                missing += std::string(" ") + name;
            }
        }
        std::printf("[auspex] ports exercised:%s; not available in this build/CPU:%s\n", used.c_str(),
                    missing.empty() ? " none" : missing.c_str());
        return found;
    }();
    return ports;
}

}  // namespace ax::test
