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

// Four outputs per pass over the input row: each 16 inputs are loaded once for four weight rows (n apart).
void dot4(const int8_t* x, const int8_t* w, size_t n, int32_t* acc) {
    const int8_t* w0 = w;
    const int8_t* w1 = w0 + n;
    const int8_t* w2 = w1 + n;
    const int8_t* w3 = w2 + n;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const int8x16_t xv = vld1q_s8(x + i);
        s0 = vmladavaq_s8(s0, xv, vld1q_s8(w0 + i));
        s1 = vmladavaq_s8(s1, xv, vld1q_s8(w1 + i));
        s2 = vmladavaq_s8(s2, xv, vld1q_s8(w2 + i));
        s3 = vmladavaq_s8(s3, xv, vld1q_s8(w3 + i));
    }
    if (i < n) {
        const mve_pred16_t p = vctp8q(static_cast<uint32_t>(n - i));
        const int8x16_t xv = vld1q_z_s8(x + i, p);
        s0 = vmladavaq_p_s8(s0, xv, vld1q_z_s8(w0 + i, p), p);
        s1 = vmladavaq_p_s8(s1, xv, vld1q_z_s8(w1 + i, p), p);
        s2 = vmladavaq_p_s8(s2, xv, vld1q_z_s8(w2 + i, p), p);
        s3 = vmladavaq_p_s8(s3, xv, vld1q_z_s8(w3 + i, p), p);
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
}

}  // namespace

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y) {
    for (size_t r = 0; r < rows; ++r) {
        const int8_t* xr = xq + r * in;
        float* yr = y + r * out;
        size_t o = 0;
        for (; o + 4 <= out; o += 4) {
            int32_t acc[4];
            dot4(xr, w + o * in, in, acc);
            for (size_t k = 0; k < 4; ++k)
                yr[o + k] = generic::rescale_i8(acc[k], xscale[r], wscale[o + k], bias ? bias[o + k] : 0.0f);
        }
        for (; o < out; ++o)
            yr[o] = generic::rescale_i8(dot(xr, w + o * in, in), xscale[r], wscale[o], bias ? bias[o] : 0.0f);
    }
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

// SXTB16 sign-extends bytes 0 and 2 of a word into two halfwords; with ROR #8 it takes bytes 1 and 3. SMLAD
// adds both 16x16 products of two such pairs to an accumulator: four int8 products cost two SXTB16 and two
// SMLAD, each product exact. (GCC 12's ACLE has no rotated form and no __ror: inline assembly.)
inline int16x2_t even16(uint32_t v) { return __sxtb16(static_cast<int8x4_t>(v)); }
inline int16x2_t odd16(uint32_t v) {
    int16x2_t r;
    __asm("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(v));
    return r;
}

// One more group of four weights of one output row against the expanded inputs xe (bytes 0, 2) and xo (1, 3).
inline int32_t mac4(int32_t acc, int16x2_t xe, int16x2_t xo, const int8_t* w) {
    const uint32_t wv = load4(w);
    return __smlad(xo, odd16(wv), __smlad(xe, even16(wv), acc));
}

// Four outputs per pass over the input row: each group of four inputs is loaded and sign-extended once for
// four weight rows (n inputs each, rows n apart).
void dot4(const int8_t* x, const int8_t* w, size_t n, int32_t* acc) {
    const int8_t* w0 = w;
    const int8_t* w1 = w0 + n;
    const int8_t* w2 = w1 + n;
    const int8_t* w3 = w2 + n;
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t xv = load4(x + i);
        const int16x2_t xe = even16(xv), xo = odd16(xv);
        s0 = mac4(s0, xe, xo, w0 + i);
        s1 = mac4(s1, xe, xo, w1 + i);
        s2 = mac4(s2, xe, xo, w2 + i);
        s3 = mac4(s3, xe, xo, w3 + i);
    }
    for (; i < n; ++i) {
        const int32_t xi = x[i];
        s0 += xi * w0[i];
        s1 += xi * w1[i];
        s2 += xi * w2[i];
        s3 += xi * w3[i];
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
}

int32_t dot(const int8_t* x, const int8_t* w, size_t n) {
    int32_t s = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const uint32_t xv = load4(x + i);
        s = mac4(s, even16(xv), odd16(xv), w + i);
    }
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
        for (; o + 4 <= out; o += 4) {
            int32_t acc[4];
            dot4(xr, w + o * in, in, acc);
            for (size_t k = 0; k < 4; ++k)
                yr[o + k] = generic::rescale_i8(acc[k], xscale[r], wscale[o + k], bias ? bias[o + k] : 0.0f);
        }
        for (; o < out; ++o)
            yr[o] = generic::rescale_i8(dot(xr, w + o * in, in), xscale[r], wscale[o], bias ? bias[o] : 0.0f);
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
