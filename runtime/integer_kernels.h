// The kernels of the integer-only mode (docs/integer-only.md): int8 weights and activations with scales fixed
// at conversion, int32 (or, where a sum may outgrow it, int64) accumulation and fixed-point rescaling
// (runtime/fixed_point.h). Every one is defined by integer operations alone, so its results are the same bits
// on every port and board by construction, and none needs a floating-point unit or a libgcc float call.
//
// Activations are int8 (or int16 where int8 is too coarse: the residual stream before a LayerNorm, the
// model's inputs and outputs) with one real scale per tensor fixed at conversion: real = scale * (q - zero).
// The scales never reach the runtime; what it gets are the Requant factors and tables the converter derived
// from them. The function types carry the contracts; ports/generic/ holds the reference implementations.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/fixed_point.h"

namespace ax::kernel {

using fixed::Requant;

// Integer linear layer: for each row r and output o,
//   acc = bias[o] + sum over i of x[r][i] * w[o][i]       (exact; int32 for int8 inputs, int64 for int16)
//   y[r][o] = clamp(zero + requantize(acc, m[o]), lo, hi)
// m holds one factor per output row (x_scale * w_scale[o] / y_scale); the converter folds the input's zero
// point into bias (bias[o] -= x_zero * sum_i w[o][i]). A ReLU is lo = zero. For int8 inputs `in` may be at
// most 2^16 (|acc| < 2^31); bias null means zero.
using linear_q8 = void(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias, const Requant* m,
                       size_t out, int32_t zero, int32_t lo, int32_t hi, int8_t* y);
// The same with int16 outputs (the residual stream, the model's outputs).
using linear_q8_to_q16 = void(const int8_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias,
                              const Requant* m, size_t out, int32_t zero, int32_t lo, int32_t hi, int16_t* y);
// int16 inputs (the model's input rows, whose int8 rounding would reach every output undiluted), int8
// weights, an int64 sum, int8 outputs.
using linear_q16_to_q8 = void(const int16_t* x, size_t rows, size_t in, const int8_t* w, const int32_t* bias,
                              const Requant* m, size_t out, int32_t zero, int32_t lo, int32_t hi, int8_t* y);

// Residual step onto a common int16 scale: y[i] = sat16(requantize(a[i], ma) + requantize(b[i], mb)), each
// factor being that input's scale over y's. y may equal a.
using add_q8_to_q16 = void(const int8_t* a, Requant ma, const int8_t* b, Requant mb, size_t n, int16_t* y);
using add_q16_q8_to_q16 = void(const int16_t* a, Requant ma, const int8_t* b, Requant mb, size_t n, int16_t* y);
// The same onto an int8 scale (saturated to [-128, 127]): input embeddings plus positions.
using add_q8_to_q8 = void(const int8_t* a, Requant ma, const int8_t* b, Requant mb, size_t n, int8_t* y);

// Integer LayerNorm of one row of n <= 2^16 int16 values (zero point 0) into int8:
//   mean = round(sum x / n) (halves up);  d[i] = x[i] - mean;  v = floor(sum d^2 / n)
//   r = round(sqrt(v + eps)) (integer square root, at least 1);  z[i] = round(d[i] * 2^12 / r) via
//   inv = round(2^46 / r), z[i] = round(d[i] * inv / 2^34)
//   y[i] = clamp(round((z[i] * gamma[i] + beta[i] * 2^(4 + shift)) / 2^(12 + shift)), -128, 127)
// with gamma[i] = round(gamma_real[i] / y_scale * 2^shift), beta[i] = round(beta_real[i] / y_scale * 2^8) and
// eps = round(eps_real / x_scale^2) (tools/convert/integer_params.h); shift in [0, 30], |beta| <= 2^20, so
// every sum fits int64.
using layer_norm_q16_to_q8 = void(const int16_t* x, size_t n, const int32_t* gamma, const int32_t* beta, int32_t shift,
                                  uint64_t eps, int8_t* y);

// Elementwise through a 256-entry table indexed by x + 128 (GELU, ELU or any function of one int8 value,
// tabulated at conversion for the input and output scales). y may equal x.
using lookup_q8 = void(const int8_t* x, size_t n, const int8_t* table, int8_t* y);

// One query row against n_keys int8 keys of n values, stride apart: scores[j] = sum over i of q[i] * k[j][i]
// (exact int32, n <= 2^16).
using attention_scores_q8 = void(const int8_t* q, const int8_t* k, size_t stride, size_t n_keys, size_t n,
                                 int32_t* scores);
// Softmax over n >= 1 int32 scores in place, into probabilities in Q15 (32768 = 1):
//   t[j] = requantize(min(max - s[j], 2^31 - 1), to_exp), the distance below the largest score in units of
//   1/8192 (to_exp = q_scale * k_scale * softmax_scale * 8192);
//   i = t[j] / 256, f = t[j] % 256: e[j] = kExpQ15[i] - round((kExpQ15[i] - kExpQ15[i + 1]) * f / 256), the
//   table (exp(-i / 32) * 32768) linearly interpolated, and 0 from i >= kExpTableSize - 1 on;
//   s[j] = round(e[j] * round(2^46 / sum e) / 2^31).
using softmax_q15 = void(int32_t* s, size_t n, Requant to_exp);
// out[c] = clamp(requantize(sum over j of p[j] * v[j][c], m), -128, 127) for c < n: p from softmax_q15, v
// rows stride apart; m = v_scale / (32768 * out_scale).
using attention_values_q15 = void(const int32_t* p, const int8_t* v, size_t stride, size_t n_keys, size_t n, Requant m,
                                  int8_t* out);

}  // namespace ax::kernel

// The integer kernel list, in the table's order (the float/hybrid table is runtime/kernels.h's; the integer
// mode has its own, so a port that has no integer kernels of its own hands out generic's).
#define AX_INTEGER_KERNELS(X) \
    X(linear_q8)              \
    X(linear_q8_to_q16)       \
    X(linear_q16_to_q8)       \
    X(add_q8_to_q16)          \
    X(add_q16_q8_to_q16)      \
    X(add_q8_to_q8)           \
    X(layer_norm_q16_to_q8)   \
    X(lookup_q8)              \
    X(attention_scores_q8)    \
    X(softmax_q15)            \
    X(attention_values_q15)

namespace ax {

struct IntegerKernels {
    constexpr IntegerKernels() {}  // not an aggregate: filled by name only, as Kernels

    const char* name = nullptr;
#define AX_INTEGER_KERNEL_ENTRY(id) kernel::id* id = nullptr;
    AX_INTEGER_KERNELS(AX_INTEGER_KERNEL_ENTRY)
#undef AX_INTEGER_KERNEL_ENTRY
};

}  // namespace ax

namespace ax::fixed {
// exp(-i / 32) * 32768 rounded, i = 0..355: the integer softmax's exponential, down to its first 0
// (exp(-355 / 32) * 32768 < 0.5).
constexpr size_t kExpTableSize = 356;
extern const uint16_t kExpQ15[kExpTableSize];
// Fraction bits of a table position (softmax_q15's t): 32 entries per unit of the exponent, 256 steps each.
constexpr int kExpIndexShift = 8;
constexpr int32_t kExpUnitsPerOne = 32 << kExpIndexShift;  // 8192
}  // namespace ax::fixed
