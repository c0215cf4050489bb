// Softmax and GELU. Helium: the reference's operations lane by lane (ports/generic/float_math_lanes.h),
// bit-identical to generic. A scalar FPU (Cortex-M4/M7): softmax with the reference's exp inlined (the same
// operations in the same order on one float: no call, no loop over the polynomial's coefficients). Everything
// else, the generic kernels.
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include "ports/generic/float_math_lanes.h"
#include "ports/mcu/math_mve.h"
#elif defined(__ARM_FP) && (__ARM_FP & 4) && defined(__thumb2__) && !defined(__ARM_ARCH_ISA_A64)
#include "ports/generic/float_math_lanes.h"
#include "ports/mcu/fpu_convert.h"
#include "runtime/bytes.h"
#endif

namespace ax::mcu {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
void softmax_f32(float* x, size_t n) { lanes::softmax<detail::MveLanes>(x, n); }
void gelu_f32(float* x, size_t n) { lanes::gelu<detail::MveLanes>(x, n); }
#elif defined(__ARM_FP) && (__ARM_FP & 4) && defined(__thumb2__) && !defined(__ARM_ARCH_ISA_A64)

namespace {

// float_math_lanes.h's operations on one float: its exp is then exp_f32's operations in exp_f32's order,
// every branch computed and the scalar's choice taken. The FPU keeps denormals (FPSCR.FZ is clear), so
// nothing flushes.
struct OneLane {
    using F = float;
    using I = int32_t;
    using M = bool;
    static constexpr bool kFlushes = false;
    static F dup(float v) { return v; }
    static F add(F a, F b) { return a + b; }
    static F sub(F a, F b) { return a - b; }
    static F mul(F a, F b) { return a * b; }
    static M lt(F a, F b) { return a < b; }
    static M gt(F a, F b) { return a > b; }
    static F sel(M m, F a, F b) { return m ? a : b; }
    // VCVT toward zero, saturating (and 0 for NaN): the lanes' conversion, defined for the out-of-range
    // inputs whose result the range checks replace (a C++ conversion of those would be undefined).
    static I trunc(F a) { return fpu::to_int_truncated(a); }
    static F to_float(I a) { return static_cast<float>(a); }
    static I min127(I n) { return n < 127 ? n : 127; }
    static M gt127(I n) { return n > 127; }
    static F pow2_bits(I n) { return bits_to_float(static_cast<uint32_t>(n + 127) << 23); }
};

}  // namespace

// generic::softmax_f32 with lanes::exp<OneLane> in place of the call to exp_f32.
void softmax_f32(float* x, size_t n) {
    if (n == 0) return;
    float max = x[0];
    for (size_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        x[i] = lanes::exp<OneLane>(x[i] - max);
        sum += x[i];
    }
    const float inv = 1.0f / sum;
    for (size_t i = 0; i < n; ++i) x[i] *= inv;
}
void gelu_f32(float* x, size_t n) { generic::gelu_f32(x, n); }
#else
void softmax_f32(float* x, size_t n) { generic::softmax_f32(x, n); }
void gelu_f32(float* x, size_t n) { generic::gelu_f32(x, n); }
#endif

}  // namespace ax::mcu
