// The kernel interface: every hot loop of the runtime goes through one of these function pointers, so a
// port (ports/<isa>/) can replace any of them. ports/generic/ is the reference that defines the results.
//
// A port's table is filled by name only: ports/generic/generic.h builds the reference table member by member
// and every other port copies it and replaces the entries it implements, so no table depends on the order
// of the members below. The user-provided constructor keeps it that way: it makes Kernels a non-aggregate,
// so positional brace-initialization (which could swap two entries of the same type unnoticed) does not
// compile.
//
// Conventions: weight matrices are PyTorch's [out, in] row-major layout; x holds `rows` contiguous rows of
// `in` values; y gets `rows` rows of `out` values; a null bias means zero. All kernels are pure and
// reentrant and never allocate.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

struct Kernels {
    constexpr Kernels() {}

    const char* name = nullptr;

    // y = x W^T + b with float32, IEEE half and int8 weights. The int8 form takes x already quantized
    // per row (xq, xscale) and weight scales per output row; it accumulates exact int32 dot products and
    // rescales each once: y = float(acc) * (xscale[r] * wscale[o]) + b[o], in that order, no FMA, so every
    // port gives bit-identical results.
    void (*linear_f32)(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out,
                       float* y) = nullptr;
    void (*linear_f16)(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out,
                       float* y) = nullptr;
    void (*linear_i8)(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                      const float* wscale, const float* bias, size_t out, float* y) = nullptr;
    // Symmetric per-row quantization: scale = max|x| / 127, q = round_half_even(x * (127 / max|x|)),
    // an all-zero row gets scale 0 and q = 0. Exactly these float operations, for bit-identical ports.
    void (*quantize_rows_i8)(const float* x, size_t rows, size_t n, int8_t* q, float* scales) = nullptr;

    // One query and one head against n_keys keys (or values) of n values each, stride apart: the loops of
    // attention in one call, so small heads do not pay a call per key.
    // scores[j] = (sum over i of q[i] * k[j * stride + i]) * scale, the sum in any order (ports differ);
    void (*attention_scores_f32)(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                                 float* scores) = nullptr;
    // out[c] = out[c] + p[j] * v[j * stride + c] for j = 0, 1, ... in turn, a multiply then an add, never
    // fused: every port gives generic's bits (ARMv7 NEON's flushed denormals aside).
    void (*attention_values_f32)(const float* p, const float* v, size_t stride, size_t n_keys, size_t n,
                                 float* out) = nullptr;
    // Optional: `rows` query rows of one head at once. Row r (q + r * q_stride, n values) attends over keys
    // [0, visible): all n_keys, or with `causal` the first min(first_position + r + 1, n_keys); out row r
    // (out + r * out_stride, n values) = softmax(scale * q k^T) v over those keys. The sums of the three
    // kernels around this one, possibly in another order and fused: agrees with them to rounding. Returns
    // false, having written nothing, for a shape the port leaves to them (nullptr: every shape).
    bool (*attention_rows_f32)(const float* q, size_t q_stride, size_t rows, const float* k, const float* v,
                               size_t kv_stride, size_t n_keys, size_t first_position, bool causal, size_t n,
                               float scale, float* out, size_t out_stride) = nullptr;
    // In place, numerically stable (max subtracted first).
    void (*softmax_f32)(float* x, size_t n) = nullptr;
    // y = (x - mean) / sqrt(var + eps) * gamma + beta, biased variance as in torch.nn.LayerNorm.
    void (*layer_norm_f32)(const float* x, size_t n, const float* gamma, const float* beta, float eps,
                           float* y) = nullptr;
    // In place: exact GELU 0.5 x (1 + erf(x / sqrt 2)) as torch's default, and ReLU.
    void (*gelu_f32)(float* x, size_t n) = nullptr;
    void (*relu_f32)(float* x, size_t n) = nullptr;
    // y += x
    void (*add_f32)(float* y, const float* x, size_t n) = nullptr;
    // x[r, :] += the sinusoidal positional encoding of position first_position + r, for `rows` rows of width
    // d: runtime/positional_encoding.h's float operations, so every port gives the same bits.
    void (*add_sinusoidal_f32)(float* x, size_t rows, size_t d, size_t first_position) = nullptr;

    // Attention over an int8 key/value cache: rows of n int8 values, stride apart, each with its own float
    // scale (the per-row rule of quantize_rows_i8). Defined by exact float operations in a fixed order, no
    // FMA, so every port gives the same bits:
    // scores[j] = ((sum over i = 0, 1, ... in turn of q[i] * float(k[j][i])) * kscale[j]) * scale;
    void (*attention_scores_i8)(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys,
                                size_t n, float scale, float* scores) = nullptr;
    // for j = 0, 1, ... in turn: a = p[j] * vscale[j]; out[c] = out[c] + a * float(v[j][c]) for each c.
    void (*attention_values_i8)(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys,
                                size_t n, float* out) = nullptr;
};

}  // namespace ax
