// The reference's exp_f32 and erf_f32 (runtime/float_math.cpp) and its softmax and GELU (softmax_generic.cpp,
// gelu_generic.cpp), written once for any 4-lane float vector: the same operations in the same order on
// every lane, each multiply and add rounded on its own (no FMA, as the scalar code under -ffp-contract=off).
// Where the vector unit is IEEE single precision with denormals (AArch64 NEON) the lanes give the scalar's
// bits. Where it may flush denormals to zero (ARMv7 NEON always does; Helium is treated the same way),
// V::kFlushes is true and the few inputs where that could change a bit (values near the underflow threshold,
// tiny GELU inputs) take the scalar path, so the results stay bit-identical. NaN stays NaN; which NaN
// payload comes out is not part of the contract (the compiler may swap a float add's operands, in generic
// too, and ARMv7 NEON answers the default NaN).
//
// V is a struct of static functions over V::F (4 floats), V::I (4 int32) and V::M (a lane mask):
// dup, add, sub, mul, lt, gt, sel (mask ? a : b), trunc (toward zero), to_float, min127, gt127, pow2_bits
// (2^n built in the exponent field), abs, neg, is_nan, and_mask, any, load, store, tiny (0 < |x| < 2^-99;
// only where kFlushes), and sum_in_order (s + lane 0 + lane 1
// + lane 2 + lane 3, left to right). ports/neon/math_neon.h and ports/mcu/math_mve.h implement it.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ports/generic/generic.h"
#include "runtime/float_math.h"
#include "runtime/float_math_constants.h"

namespace ax::lanes {

// Inlined into each port's kernel: the constants stay in registers across a row, no call per vector.
#define AUSPEX_LANES_INLINE __attribute__((always_inline)) inline

// exp_f32 on every lane: round half away from zero of x log2(e), Cody-Waite reduction, the polynomial, 2^n.
template <class V>
AUSPEX_LANES_INLINE typename V::F exp(typename V::F x) {
    using namespace float_math;
    using F = typename V::F;
    const F t = V::mul(x, V::dup(kLog2e));
    const auto n = V::trunc(V::add(t, V::sel(V::lt(t, V::dup(0.0f)), V::dup(-0.5f), V::dup(0.5f))));
    const F nf = V::to_float(n);
    F r = V::sub(x, V::mul(nf, V::dup(kLn2Hi)));
    r = V::sub(r, V::mul(nf, V::dup(kLn2Lo)));
    F p = V::dup(kExpP[0]);
    for (int i = 1; i < 6; ++i) p = V::add(V::mul(p, r), V::dup(kExpP[i]));
    p = V::add(V::add(V::mul(p, V::mul(r, r)), r), V::dup(1.0f));
    // n = 128 (just below overflow): p * 2^127 * 2 as the scalar; elsewhere the extra * 1 is exact.
    F y = V::mul(p, V::pow2_bits(V::min127(n)));
    y = V::mul(y, V::sel(V::gt127(n), V::dup(2.0f), V::dup(1.0f)));
    // Lanes out of range computed garbage above; the scalar's early returns replace them (a NaN lane is
    // NaN already: r, and so p, are).
    y = V::sel(V::lt(x, V::dup(kExpMin)), V::dup(0.0f), y);
    return V::sel(V::gt(x, V::dup(kExpMax)), V::dup(__builtin_inff()), y);
}

// erf_f32 on every lane: both branches computed, the scalar's choice taken per lane.
template <class V>
AUSPEX_LANES_INLINE typename V::F erf(typename V::F x) {
    using namespace float_math;
    using F = typename V::F;
    const F a = V::abs(x);
    const F x2 = V::mul(x, x);
    F p = V::dup(kErfSmallP[0]);
    for (int i = 1; i < 6; ++i) p = V::add(V::mul(p, x2), V::dup(kErfSmallP[i]));
    const F small = V::add(V::mul(p, x), x);

    F q = V::add(V::mul(V::add(V::mul(V::dup(kErfQ[0]), a), V::dup(kErfQ[1])), x2),
                 V::add(V::mul(V::dup(kErfQ[2]), a), V::dup(kErfQ[3])));
    for (int i = 4; i < 7; ++i) q = V::add(V::mul(q, a), V::dup(kErfQ[i]));
    q = V::add(V::mul(q, a), a);
    F y = V::sub(V::dup(1.0f), exp<V>(V::neg(q)));
    y = V::sel(V::gt(y, V::dup(1.0f)), V::dup(1.0f), y);
    y = V::sel(V::lt(a, V::dup(kErfOneLimit)), y, V::dup(1.0f));
    y = V::sel(V::lt(x, V::dup(0.0f)), V::neg(y), y);
    y = V::sel(V::lt(a, V::dup(kErfSmallLimit)), small, y);
    return V::sel(V::is_nan(x), x, y);
}

// generic::softmax_f32's bits: the same maximum (x[i] > max ? x[i] : max keeps NaN out unless x[0] is NaN;
// lanes may settle on -0 where generic has +0 or back, which changes no x - max that exp can tell apart),
// e^(x - max) in lanes, the sum in generic's order (one float chain), one multiply by 1 / sum.
template <class V>
AUSPEX_LANES_INLINE void softmax(float* x, size_t n) {
    using F = typename V::F;
    if (n == 0) return;
    size_t i = 0;
    F mv = V::dup(x[0]);
    for (; i + 4 <= n; i += 4) {
        const F v = V::load(x + i);
        mv = V::sel(V::gt(v, mv), v, mv);
    }
    float lane[4];
    V::store(lane, mv);
    float max = lane[0];
    for (int k = 1; k < 4; ++k) max = lane[k] > max ? lane[k] : max;
    for (; i < n; ++i) max = x[i] > max ? x[i] : max;

    // Below this, e^d < 2^-100: its product with 1 / sum may be a denormal the vector unit would flush.
    constexpr float kTinyExp = -69.0f;
    // Near the underflow threshold exp's last multiply, and below kTinyExp the scale's, may give a denormal
    // the vector unit would flush: the scalar code does those vectors and the row's scaling.
    const auto needs_scalar = [](F d) {
        if constexpr (V::kFlushes)
            return V::any(V::and_mask(V::lt(d, V::dup(kTinyExp)), V::gt(d, V::dup(float_math::kExpMin - 1.0f))));
        return false;
    };
    bool scalar_scale = false;
    const F maxv = V::dup(max);
    float sum = 0.0f;
    i = 0;
    for (; i + 4 <= n; i += 4) {
        const F d = V::sub(V::load(x + i), maxv);
        if (needs_scalar(d)) {
            scalar_scale = true;
            for (size_t k = i; k < i + 4; ++k) {
                x[k] = exp_f32(x[k] - max);
                sum += x[k];
            }
            continue;
        }
        const F e = exp<V>(d);
        V::store(x + i, e);
        sum = V::sum_in_order(sum, e);
    }
    if (i < n) {
        // The last 1-3 values padded with -inf: e^-inf = 0, and sum + 0 is sum (sum >= +0 throughout).
        float pad[4] = {-__builtin_inff(), -__builtin_inff(), -__builtin_inff(), -__builtin_inff()};
        for (size_t k = i; k < n; ++k) pad[k - i] = x[k];
        const F d = V::sub(V::load(pad), maxv);
        if (needs_scalar(d)) {
            scalar_scale = true;
            for (; i < n; ++i) {
                x[i] = exp_f32(x[i] - max);
                sum += x[i];
            }
        } else {
            V::store(pad, exp<V>(d));
            for (size_t k = i; k < n; ++k) x[k] = pad[k - i];
            sum = V::sum_in_order(sum, V::load(pad));
        }
    }
    const float inv = 1.0f / sum;
    i = 0;
    if (!scalar_scale) {
        const F invv = V::dup(inv);
        for (; i + 4 <= n; i += 4) V::store(x + i, V::mul(V::load(x + i), invv));
    }
    for (; i < n; ++i) x[i] *= inv;
}

// generic::gelu_f32's bits: 0.5 x (1 + erf(x / sqrt 2)) in that order on every lane.
template <class V>
AUSPEX_LANES_INLINE void gelu(float* x, size_t n) {
    using F = typename V::F;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const F v = V::load(x + i);
        if constexpr (V::kFlushes) {
            // 0 < |x| < 2^-99 (denormal products): the scalar reference.
            if (V::any(V::tiny(v))) {
                generic::gelu_f32(x + i, 4);
                continue;
            }
        }
        const F e = erf<V>(V::mul(v, V::dup(0.70710678118654752f)));
        V::store(x + i, V::mul(V::mul(V::dup(0.5f), v), V::add(V::dup(1.0f), e)));
    }
    if (i < n) generic::gelu_f32(x + i, n - i);
}

}  // namespace ax::lanes
