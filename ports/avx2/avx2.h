// The AVX2 port's kernels (x86-64 with AVX2, FMA and F16C), callable one by one. ax::avx2_kernels()
// (avx2_kernels.cpp) hands out the table only when the running CPU has all three extensions.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax::avx2 {

// Float products: register-tiled FMA (see linear_float_avx2.h); agree with generic to rounding, the sums
// being in another order.
void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y);
void linear_f16(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out, float* y);
// Exact int32 accumulation (maddubs with |w| unsigned and x carrying w's sign, or int8 widened to int16
// when x holds -128 or rows are short: no saturation for any int8 input), rescaled as
// generic::rescale_i8: bit-identical to the generic port. See linear_i8_avx2.cpp.
void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y);
// The same with AVX-VNNI's vpdpbusd (linear_i8_vnni.cpp): only for CPUs that have it.
void linear_i8_vnni(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                    const float* bias, size_t out, float* y);
// Bit-identical to generic::quantize_rows_i8.
void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales);
float dot_f32(const float* a, const float* b, size_t n);
// Bit-identical to generic (a multiply and an add, never fused).
void axpy_f32(size_t n, float a, const float* x, float* y);
void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores);
void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out);
// A block of query rows of one head at once (attention_rows.h); false for shapes it leaves to the row kernels.
bool attention_rows_f32(const float* q, size_t q_stride, size_t rows, const float* k, const float* v, size_t kv_stride,
                        size_t n_keys, size_t first_position, bool causal, size_t n, float scale, float* out,
                        size_t out_stride);
// Attention over an int8 cache, bit-identical to generic (attention_i8_avx2.cpp).
void attention_scores_i8(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                         float scale, float* scores);
void attention_values_i8(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                         float* out);
// Vectorised exp (polynomial, within about 1 ulp of exp on [-87, 0]; see math_avx2.h).
void softmax_f32(float* x, size_t n);
void layer_norm_f32(const float* x, size_t n, const float* gamma, const float* beta, float eps, float* y);
// Vectorised erf (polynomials after Arm's optimized-routines, within about 1 ulp; see math_avx2.h).
void gelu_f32(float* x, size_t n);
// Bit-identical to generic.
void relu_f32(float* x, size_t n);
void add_f32(float* y, const float* x, size_t n);
// Bit-identical to runtime/positional_encoding.cpp: its sin/cos steps on 8 angles at once (positions_avx2.cpp).
void add_sinusoidal_f32(float* x, size_t rows, size_t d, size_t first_position);

}  // namespace ax::avx2
