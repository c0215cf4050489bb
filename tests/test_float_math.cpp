// The runtime's own exp, erf, sin and cos (runtime/float_math.h) against the C library's double-precision
// functions, in float ulp of the exact value, over dense grids of the ranges the kernels use, plus the
// special values. These functions replace libm in the reference kernels so that every target computes
// the same bits; the boards' firmware tests check that part (forecast bit-identical to the host's).
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>
#include <limits>

#include "runtime/float_math.h"

namespace {

// |got - want| in units of the float spacing at want (at FLT_MIN for subnormal wants).
double ulp_error(float got, double want) {
    const float w = static_cast<float>(want);
    const float above = std::nextafter(std::fabs(w), std::numeric_limits<float>::infinity());
    double ulp = static_cast<double>(above) - std::fabs(static_cast<double>(w));
    if (std::fabs(want) < std::numeric_limits<float>::min()) ulp = std::numeric_limits<float>::denorm_min();
    return std::fabs(static_cast<double>(got) - want) / ulp;
}

struct Worst {
    double error = 0.0;
    float at = 0.0f;
    void add(double e, float x) {
        if (e > error || e != e) {
            error = e;
            at = x;
        }
    }
};

}  // namespace

TEST_CASE("exp_f32 is within 1 ulp of exp on [-87.3, 88.7]") {
    Worst w;
    for (double x = -87.3; x <= 88.7; x += 7.3e-4) {
        const float f = static_cast<float>(x);
        w.add(ulp_error(ax::exp_f32(f), std::exp(static_cast<double>(f))), f);
    }
    INFO("worst at x = " << w.at);
    CHECK(w.error <= 1.0);
}

TEST_CASE("exp_f32: special values and the ends of the range") {
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(ax::exp_f32(0.0f) == 1.0f);
    CHECK(ax::exp_f32(-inf) == 0.0f);
    CHECK(ax::exp_f32(-90.0f) == 0.0f);  // below FLT_MIN: 0 rather than a subnormal
    CHECK(ax::exp_f32(inf) == inf);
    CHECK(ax::exp_f32(89.0f) == inf);
    CHECK(std::isnan(ax::exp_f32(std::numeric_limits<float>::quiet_NaN())));
    const float top = 88.72f;  // n = 128 in the reduction: the 2^127 * 2 path
    CHECK(ulp_error(ax::exp_f32(top), std::exp(static_cast<double>(top))) <= 1.0);
    CHECK(ax::exp_f32(-87.3f) >= std::numeric_limits<float>::min());
}

TEST_CASE("erf_f32 is within 1.5 ulp of erf on [-6, 6]") {
    Worst w;
    for (double x = -6.0; x <= 6.0; x += 3.1e-5) {
        const float f = static_cast<float>(x);
        w.add(ulp_error(ax::erf_f32(f), std::erf(static_cast<double>(f))), f);
    }
    INFO("worst at x = " << w.at);
    CHECK(w.error <= 1.5);
    const float inf = std::numeric_limits<float>::infinity();
    CHECK(ax::erf_f32(0.0f) == 0.0f);
    CHECK(ax::erf_f32(inf) == 1.0f);
    CHECK(ax::erf_f32(-inf) == -1.0f);
    CHECK(std::isnan(ax::erf_f32(std::numeric_limits<float>::quiet_NaN())));
}

// Positional-encoding angles: position * div_term with div_term <= 1, positions up to 2^20. Values near a
// zero of sin or cos are checked in absolute terms (the ulp there is tiny, and so is the error).
TEST_CASE("sin_cos_f32 is within 2 ulp of sin and cos, in both reduction ranges") {
    struct Range {
        double from, to, step;
    };
    for (const Range& r : {Range{-10.0, 10.0, 1.1e-4}, Range{-6500.0, 6500.0, 0.0173}, Range{6000.0, 1100000.0, 2.9}}) {
        Worst ws, wc;
        double abs_error = 0.0;
        for (double x = r.from; x <= r.to; x += r.step) {
            const float f = static_cast<float>(x);
            float s = 0.0f, c = 0.0f;
            ax::sin_cos_f32(f, &s, &c);
            const double es = std::sin(static_cast<double>(f)), ec = std::cos(static_cast<double>(f));
            abs_error = std::fmax(abs_error, std::fmax(std::fabs(s - es), std::fabs(c - ec)));
            if (std::fabs(es) > 1e-3) ws.add(ulp_error(s, es), f);
            if (std::fabs(ec) > 1e-3) wc.add(ulp_error(c, ec), f);
        }
        INFO("range [" << r.from << ", " << r.to << "]: worst sin at " << ws.at << ", cos at " << wc.at);
        CHECK(ws.error <= 2.0);
        CHECK(wc.error <= 2.0);
        CHECK(abs_error <= 1.2e-7);
    }
}

TEST_CASE("sin_cos_f32: exact points and unsupported arguments") {
    float s = 1.0f, c = 0.0f;
    ax::sin_cos_f32(0.0f, &s, &c);
    CHECK(s == 0.0f);
    CHECK(c == 1.0f);
    ax::sin_cos_f32(-0.0f, &s, &c);
    CHECK(s == 0.0f);
    CHECK(c == 1.0f);
    for (float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity(), 1e30f}) {
        ax::sin_cos_f32(bad, &s, &c);
        CHECK(std::isnan(s));
        CHECK(std::isnan(c));
    }
}
