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

std::vector<const Kernels*> available_ports() {
    std::vector<const Kernels*> ports{&generic_kernels()};
    if (const Kernels* k = avx2_kernels()) ports.push_back(k);
    if (const Kernels* k = avx2_vnni_kernels()) ports.push_back(k);
    if (const Kernels* k = neon_kernels()) ports.push_back(k);
    if (const Kernels* k = mcu_kernels()) ports.push_back(k);
    return ports;
}

}  // namespace ax::test
