#include "runtime/float_math.h"

#include <cstdint>
#include <cstring>
#include <limits>

#include "runtime/float_math_constants.h"

namespace ax {

namespace {

using namespace float_math;

// 2^n for -126 <= n <= 127, built in the exponent field.
float pow2(int n) {
    const uint32_t bits = static_cast<uint32_t>(n + 127) << 23;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

// Round half away from zero; |t| is small enough for int in every caller.
int round_to_int(float t) { return static_cast<int>(t + (t < 0.0f ? -0.5f : 0.5f)); }

float horner(const float* c, int count, float x) {
    float p = c[0];
    for (int i = 1; i < count; ++i) p = p * x + c[i];
    return p;
}

// Cephes' sinf and cosf polynomials, for |r| <= pi/4 (and a little beyond, from rounding).
float sin_poly(float r) {
    const float z = r * r;
    return ((-1.9515295891e-4f * z + 8.3321608736e-3f) * z - 1.6666654611e-1f) * z * r + r;
}

float cos_poly(float r) {
    const float z = r * r;
    return ((2.443315711809948e-5f * z - 1.388731625493765e-3f) * z + 4.166664568298827e-2f) * z * z - 0.5f * z + 1.0f;
}

}  // namespace

float exp_f32(float x) {
    if (x != x) return x;
    if (x < kExpMin) return 0.0f;
    if (x > kExpMax) return std::numeric_limits<float>::infinity();
    const int n = round_to_int(x * kLog2e);  // -126 ... 128
    const float nf = static_cast<float>(n);
    float r = x - nf * kLn2Hi;
    r = r - nf * kLn2Lo;
    const float p = horner(kExpP, 6, r) * (r * r) + r + 1.0f;
    // 2^128 is not a float: e^x just below the overflow threshold is p * 2^127 * 2.
    return n > 127 ? p * pow2(127) * 2.0f : p * pow2(n);
}

float erf_f32(float x) {
    if (x != x) return x;
    const float a = x < 0.0f ? -x : x;
    const float x2 = x * x;
    if (a < kErfSmallLimit) return horner(kErfSmallP, 6, x2) * x + x;
    float y = 1.0f;
    if (a < kErfOneLimit) {
        float q = (kErfQ[0] * a + kErfQ[1]) * x2 + (kErfQ[2] * a + kErfQ[3]);
        q = q * a + kErfQ[4];
        q = q * a + kErfQ[5];
        q = q * a + kErfQ[6];
        q = q * a + a;
        y = 1.0f - exp_f32(-q);
        if (y > 1.0f) y = 1.0f;
    }
    return x < 0.0f ? -y : y;
}

void sin_cos_f32(float x, float* sin_x, float* cos_x) {
    const float a = x < 0.0f ? -x : x;
    if (!(a < 0x1p50f)) {  // NaN, infinities and angles no reduction here can place
        *sin_x = *cos_x = std::numeric_limits<float>::quiet_NaN();
        return;
    }
    // x = n pi/2 + r, |r| <= pi/4. Cody-Waite in float while n < 4096: the first two parts of pi/2 have 8
    // and 12 significant bits, so n times either is exact. Larger angles reduce in double, with pi/2 in
    // three parts of 30, 30 and 53 bits (n times the first is exact for n < 2^23).
    int quadrant;
    float r;
    if (a < 6433.0f) {
        const int n = round_to_int(x * 0.636619772367581343f);
        const float nf = static_cast<float>(n);
        r = ((x - nf * 1.5703125f) - nf * 4.837512969970703125e-4f) - nf * 7.54978995489188216e-8f;
        quadrant = n & 3;
    } else {
        const double round_magic = 0x1.8p52;  // adding and subtracting it rounds a double below 2^51
        const double n = (static_cast<double>(x) * 0.63661977236758134308 + round_magic) - round_magic;
        const double rd = ((static_cast<double>(x) - n * 0x1.921fb54000000p+0) - n * 0x1.10b4611800000p-30) -
                          n * 0x1.313198a2e0370p-61;
        r = static_cast<float>(rd);
        quadrant = static_cast<int>(static_cast<int64_t>(n) & 3);
    }
    const float s = sin_poly(r), c = cos_poly(r);
    // sin by quadrant is s, c, -s, -c and cos the next one along: a lookup, not a branch (positional
    // encodings walk the quadrants in no pattern a predictor learns).
    const float by_quadrant[4] = {s, c, -s, -c};
    *sin_x = by_quadrant[quadrant];
    *cos_x = by_quadrant[(quadrant + 1) & 3];
}

}  // namespace ax
