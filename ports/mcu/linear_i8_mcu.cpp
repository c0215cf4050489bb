// The port's int8 product: register tiles of two rows (the encoder's and the decoder's row blocks) so that
// each loaded weight serves two rows, and one-row tiles for the last odd row and one-row calls. The sums are
// exact int32 and the rescale is generic::rescale_i8's arithmetic, so results are generic's bits.
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#define AX_MCU_MVE 1
#include "ports/mcu/tiles_mve.h"
#elif defined(__ARM_FEATURE_DSP)
#define AX_MCU_DSP 1
#include "ports/mcu/tiles_dsp.h"
#endif

namespace ax::mcu {

#if defined(AX_MCU_MVE)

bool available() { return true; }

namespace {

using namespace mve;

// One row of outputs [o, out) past the four-output tiles: one dot product each.
void row_tail(const int8_t* xr, float xs, size_t in, const int8_t* w, const float* wscale, const float* bias, size_t o,
              size_t out, float* yr) {
    for (; o < out; ++o) yr[o] = generic::rescale_i8(dot(xr, w + o * in, in), xs, wscale[o], bias ? bias[o] : 0.0f);
}

// Four sums of one row into y[0..3] with generic's scalar rescale (operands the four lanes cannot take).
void store4_scalar(int32x4_t acc, float xs, const float* ws, const float* bias, float* y) {
    int32_t a[4];
    vst1q_s32(a, acc);
    for (size_t k = 0; k < 4; ++k) y[k] = generic::rescale_i8(a[k], xs, ws[k], bias ? bias[k] : 0.0f);
}

inline float32x4_t bias4(const float* bias, size_t o) { return bias ? vld1q_f32(bias + o) : vdupq_n_f32(0.0f); }

// Rows r and r + 1, outputs in fours.
void rows2(const int8_t* xr, const float* xs, size_t in, const int8_t* w, const float* wscale, const float* bias,
           size_t out4, size_t out, bool lanes, float* y0) {
    float* y1 = y0 + out;
    if (lanes) {
        for (size_t o = 0; o < out4; o += 4) {
            int32x4_t v0, v1;
            dot2x4(xr, w + o * in, in, v0, v1);
            const float32x4_t ws = vld1q_f32(wscale + o), b = bias4(bias, o);
            rescale4(v0, xs[0], ws, b, y0 + o);
            rescale4(v1, xs[1], ws, b, y1 + o);
        }
    } else {
        for (size_t o = 0; o < out4; o += 4) {
            int32x4_t v0, v1;
            dot2x4(xr, w + o * in, in, v0, v1);
            const float* b = bias ? bias + o : nullptr;
            store4_scalar(v0, xs[0], wscale + o, b, y0 + o);
            store4_scalar(v1, xs[1], wscale + o, b, y1 + o);
        }
    }
}

// One row, outputs in fours.
void row1(const int8_t* xr, float xs, size_t in, const int8_t* w, const float* wscale, const float* bias, size_t out4,
          bool lanes, float* yr) {
    for (size_t o = 0; o < out4; o += 4) {
        int32x4_t v;
        dot1x4(xr, w + o * in, in, in, v);
        if (lanes)
            rescale4(v, xs, vld1q_f32(wscale + o), bias4(bias, o), yr + o);
        else
            store4_scalar(v, xs, wscale + o, bias ? bias + o : nullptr, yr + o);
    }
}

}  // namespace

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    if (ldy != out) {  // columns of a wider y (a host's threaded split, never on a board): generic's, the same bits
        generic::linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
        return;
    }
    if (in == 0) {  // the tiles' loops run at least once
        generic::linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y, out);
        return;
    }
    const bool outputs_ok = outputs_fit(wscale, bias, out);
    const size_t out4 = out & ~size_t{3};
    size_t r = 0;
    for (; r + 2 <= rows; r += 2) {
        const int8_t* xr = xq + r * in;
        float* y0 = y + r * out;
        const bool lanes = outputs_ok && scale_fits(xscale[r]) && scale_fits(xscale[r + 1]);
        rows2(xr, xscale + r, in, w, wscale, bias, out4, out, lanes, y0);
        row_tail(xr, xscale[r], in, w, wscale, bias, out4, out, y0);
        row_tail(xr + in, xscale[r + 1], in, w, wscale, bias, out4, out, y0 + out);
    }
    if (r < rows) {
        const int8_t* xr = xq + r * in;
        float* yr = y + r * out;
        row1(xr, xscale[r], in, w, wscale, bias, out4, outputs_ok && scale_fits(xscale[r]), yr);
        row_tail(xr, xscale[r], in, w, wscale, bias, out4, out, yr);
    }
}

#elif defined(AX_MCU_DSP)

bool available() { return true; }

namespace {

using namespace dsp;

__attribute__((always_inline)) inline float rescale(int32_t acc, float xs, const float* wscale, const float* bias,
                                                    size_t o) {
    return generic::rescale_i8(acc, xs, wscale[o], bias ? bias[o] : 0.0f);
}

// Inputs per block of rows extended ahead (extend_rows): 4 rows x 128 inputs as int16, 1 KB of stack. Longer
// rows run in blocks of 128 inputs, the int32 sums kept in y between blocks.
constexpr size_t kExtendedInputs = 128;

// The bias of outputs without one: generic adds 0.0f (which turns a -0.0f product into +0.0f).
constexpr float kNoBias[4] = {0.0f, 0.0f, 0.0f, 0.0f};

// The last in % 4 inputs of one row against four weight rows (n inputs apart) into s.
void tail_1x4(const int8_t* x, size_t in, size_t from, const int8_t* w, int32_t* s) {
    for (size_t j = 0; j < 4; ++j)
        for (size_t i = from; i < in; ++i) s[j] += int32_t{x[i]} * int32_t{w[j * in + i]};
}

// One row extended once (up to 512 inputs at a time, the sums kept in y between blocks), then four weight rows
// at a time against it; leftover outputs one at a time.
__attribute__((noinline)) void row_1x4_extended(const int8_t* xr, float xs, size_t in, const int8_t* w,
                                                const float* wscale, const float* bias, size_t out, float* yr) {
    alignas(8) uint32_t xe[kExtendedInputs * 2];
    constexpr size_t kBlock = kExtendedInputs * 4;  // inputs of one row that fit xe
    const size_t in4 = in & ~size_t{3}, out4 = out & ~size_t{3};
    for (size_t c = 0; c < in4; c += kBlock) {
        const size_t k = in4 - c < kBlock ? in4 - c : kBlock;
        extend_rows(xr + c, in, 1, k, xe);
        const bool first = c == 0, last = c + k == in4;
        for (size_t o = 0; o < out4; o += 4) {
            int32_t s[4];
            if (!first) __builtin_memcpy(s, yr + o, sizeof s);
            const int8_t* wo = w + o * in;
            dot1x4_extended(xe, wo + c, in, k, !first, s);
            if (!last) {
                __builtin_memcpy(yr + o, s, sizeof s);
                continue;
            }
            if (in4 != in) tail_1x4(xr, in, in4, wo, s);
            const float* ws = wscale + o;
            const float* b = bias ? bias + o : kNoBias;
            float* yo = yr + o;
            yo[0] = generic::rescale_i8(s[0], xs, ws[0], b[0]);
            yo[1] = generic::rescale_i8(s[1], xs, ws[1], b[1]);
            yo[2] = generic::rescale_i8(s[2], xs, ws[2], b[2]);
            yo[3] = generic::rescale_i8(s[3], xs, ws[3], b[3]);
        }
    }
    for (size_t o = out4; o < out; ++o) yr[o] = rescale(dot(xr, w + o * in, in), xs, wscale, bias, o);
}

// One row: four outputs per pass, then one.
__attribute__((noinline)) void row_1x4(const int8_t* xr, float xs, size_t in, const int8_t* w, const float* wscale,
                                       const float* bias, size_t out, float* yr) {
    size_t o = 0;
    for (; o + 4 <= out; o += 4) {
        int32_t acc[4];
        dot1x4(xr, w + o * in, in, acc);
        for (size_t k = 0; k < 4; ++k) yr[o + k] = rescale(acc[k], xs, wscale, bias, o + k);
    }
    for (; o < out; ++o) yr[o] = rescale(dot(xr, w + o * in, in), xs, wscale, bias, o);
}

// The last in % 4 inputs of four rows (x rows `in` apart) into s.
void tail_4x1(const int8_t* x, size_t in, size_t from, const int8_t* w, int32_t* s) {
    for (size_t i = from; i < in; ++i)
        for (size_t j = 0; j < 4; ++j) s[j] += int32_t{x[j * in + i]} * int32_t{w[i]};
}

// Rows r .. r + 3: the four rows' inputs extended once, then one weight row at a time against all four.
__attribute__((noinline)) void rows_4x1(const int8_t* xr, const float* xs, size_t in, const int8_t* w,
                                        const float* wscale, const float* bias, size_t out, float* y) {
    alignas(8) uint32_t xe[kExtendedInputs * 2];
    const size_t in4 = in & ~size_t{3};
    const float xs0 = xs[0], xs1 = xs[1], xs2 = xs[2], xs3 = xs[3];
    for (size_t c = 0; c < in4; c += kExtendedInputs) {
        const size_t k = in4 - c < kExtendedInputs ? in4 - c : kExtendedInputs;
        extend_rows(xr + c, in, 4, k, xe);
        const bool first = c == 0, last = c + k == in4;
        const int8_t* wo = w;
        for (size_t o = 0; o < out; ++o, wo += in) {
            int32_t s[4];
            float* yo = y + o;
            if (!first)  // the previous blocks' sums, kept in y's bits
                for (size_t j = 0; j < 4; ++j) __builtin_memcpy(&s[j], yo + j * out, 4);
            dot4x1_extended(xe, wo + c, k, !first, s);
            if (!last) {
                for (size_t j = 0; j < 4; ++j) __builtin_memcpy(yo + j * out, &s[j], 4);
                continue;
            }
            if (in4 != in) tail_4x1(xr, in, in4, wo, s);
            const float ws = wscale[o], b = bias ? bias[o] : 0.0f;
            yo[0] = generic::rescale_i8(s[0], xs0, ws, b);
            yo[out] = generic::rescale_i8(s[1], xs1, ws, b);
            yo[2 * out] = generic::rescale_i8(s[2], xs2, ws, b);
            yo[3 * out] = generic::rescale_i8(s[3], xs3, ws, b);
        }
    }
}

// Rows r and r + 1 (the last two of a block that is not a multiple of four): 2 x 2 tiles, then one output.
__attribute__((noinline)) void rows_2x2(const int8_t* xr, const float* xs, size_t in, const int8_t* w,
                                        const float* wscale, const float* bias, size_t out, float* y0) {
    float* y1 = y0 + out;
    const float xs0 = xs[0], xs1 = xs[1];
    size_t o = 0;
    for (; o + 2 <= out; o += 2) {
        int32_t acc[4];
        dot2x2(xr, w + o * in, in, acc);
        y0[o] = rescale(acc[0], xs0, wscale, bias, o);
        y0[o + 1] = rescale(acc[1], xs0, wscale, bias, o + 1);
        y1[o] = rescale(acc[2], xs1, wscale, bias, o);
        y1[o + 1] = rescale(acc[3], xs1, wscale, bias, o + 1);
    }
    if (o < out) {
        const int8_t* wo = w + o * in;
        y0[o] = rescale(dot(xr, wo, in), xs0, wscale, bias, o);
        y1[o] = rescale(dot(xr + in, wo, in), xs1, wscale, bias, o);
    }
}

// One row: its inputs extended once when at least four outputs share them.
void row_one(const int8_t* xr, float xs, size_t in, const int8_t* w, const float* wscale, const float* bias, size_t out,
             float* yr) {
    if (in >= 4 && out >= 4)
        row_1x4_extended(xr, xs, in, w, wscale, bias, out, yr);
    else
        row_1x4(xr, xs, in, w, wscale, bias, out, yr);
}

}  // namespace

// Each block its own function (none inlined here): a one-row call, every decoder step, pays no other block's
// frame.
void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    if (ldy != out) {  // columns of a wider y (a host's threaded split, never on a board): generic's, the same bits
        generic::linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
        return;
    }
    if (rows == 1) {  // every decoder step: first, before the row blocks' loops set up
        row_one(xq, xscale[0], in, w, wscale, bias, out, y);
        return;
    }
    size_t r = 0;
    if (in >= 4)
        for (; r + 4 <= rows; r += 4) rows_4x1(xq + r * in, xscale + r, in, w, wscale, bias, out, y + r * out);
    for (; r + 2 <= rows; r += 2) rows_2x2(xq + r * in, xscale + r, in, w, wscale, bias, out, y + r * out);
    if (r < rows) row_one(xq + r * in, xscale[r], in, w, wscale, bias, out, y + r * out);
}

#else

// A core without DSP or Helium (Cortex-M0/M3, or a host build): the port is compiled but unavailable.
bool available() { return false; }

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y, size_t ldy) {
    generic::linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y, ldy);
}

#endif

}  // namespace ax::mcu
