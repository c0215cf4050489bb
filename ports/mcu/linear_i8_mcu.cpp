#include <cstring>

#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#define AX_MCU_MVE 1
#elif defined(__ARM_FEATURE_DSP)
#include <arm_acle.h>
#define AX_MCU_DSP 1
#endif

namespace ax::mcu {

#if defined(AX_MCU_MVE)

bool available() { return true; }

namespace {

int32_t dot(const int8_t* x, const int8_t* w, size_t n) {
    int32_t acc = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) acc = vmladavaq_s8(acc, vld1q_s8(x + i), vld1q_s8(w + i));
    if (i < n) {
        // Lanes past the row's end are neither loaded nor added.
        const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
        acc = vmladavaq_p_s8(acc, vld1q_z_s8(x + i, p), vld1q_z_s8(w + i, p), p);
    }
    return acc;
}

}  // namespace

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y) {
    for (size_t r = 0; r < rows; ++r)
        for (size_t o = 0; o < out; ++o)
            y[r * out + o] = generic::rescale_i8(dot(xq + r * in, w + o * in, in), xscale[r], wscale[o],
                                                 bias ? bias[o] : 0.0f);
}

#elif defined(AX_MCU_DSP)

bool available() { return true; }

namespace {

// Four bytes from any address (LDR handles unaligned addresses on Armv7E-M).
inline uint32_t load4(const int8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

// SXTB16 sign-extends bytes 0 and 2; rotating first gives bytes 1 and 3. SMLAD then adds both 16x16
// products to the accumulator: four products per two SMLADs, each exact.
inline int32_t mac4(int32_t acc, uint32_t x, uint32_t w) {
    acc = __smlad(__sxtb16(static_cast<int8x4_t>(x)), __sxtb16(static_cast<int8x4_t>(w)), acc);
    const uint32_t x_odd = (x >> 8) | (x << 24), w_odd = (w >> 8) | (w << 24);
    return __smlad(__sxtb16(static_cast<int8x4_t>(x_odd)), __sxtb16(static_cast<int8x4_t>(w_odd)), acc);
}

// Two outputs per pass over the input row, so each load of x serves two weight rows.
void dot2(const int8_t* x, const int8_t* w0, const int8_t* w1, size_t n, int32_t* a0, int32_t* a1) {
    int32_t s0 = 0, s1 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t xv = load4(x + i);
        s0 = mac4(s0, xv, load4(w0 + i));
        s1 = mac4(s1, xv, load4(w1 + i));
    }
    for (; i < n; ++i) {
        s0 += int32_t{x[i]} * int32_t{w0[i]};
        s1 += int32_t{x[i]} * int32_t{w1[i]};
    }
    *a0 = s0;
    *a1 = s1;
}

int32_t dot(const int8_t* x, const int8_t* w, size_t n) {
    int32_t s = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) s = mac4(s, load4(x + i), load4(w + i));
    for (; i < n; ++i) s += int32_t{x[i]} * int32_t{w[i]};
    return s;
}

}  // namespace

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y) {
    for (size_t r = 0; r < rows; ++r) {
        const int8_t* xr = xq + r * in;
        float* yr = y + r * out;
        size_t o = 0;
        for (; o + 2 <= out; o += 2) {
            int32_t a0 = 0, a1 = 0;
            dot2(xr, w + o * in, w + (o + 1) * in, in, &a0, &a1);
            yr[o] = generic::rescale_i8(a0, xscale[r], wscale[o], bias ? bias[o] : 0.0f);
            yr[o + 1] = generic::rescale_i8(a1, xscale[r], wscale[o + 1], bias ? bias[o + 1] : 0.0f);
        }
        if (o < out) yr[o] = generic::rescale_i8(dot(xr, w + o * in, in), xscale[r], wscale[o], bias ? bias[o] : 0.0f);
    }
}

#else

// A core without DSP or Helium (Cortex-M0/M3, or a host build): the port is compiled but unavailable.
bool available() { return false; }

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y) {
    generic::linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y);
}

#endif

}  // namespace ax::mcu
