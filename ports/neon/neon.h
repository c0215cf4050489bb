// The NEON port's kernels (AArch64, and 32-bit ARMv7-A built with -mfpu=neon), callable one by one.
// Kernels not listed here are taken from ports/generic/ in the table (neon_kernels.cpp).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax::neon {

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y);
void linear_f16(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out, float* y);
// Exact int32 accumulation (vdotq_s32 when the target has the dot-product extension, else vmull_s8 +
// vpadalq_s16), rescaled with generic::rescale_i8: bit-identical to the generic port.
void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y);
// Bit-identical to generic::quantize_rows_i8.
void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales);
float dot_f32(const float* a, const float* b, size_t n);
// Bit-identical to generic (a multiply and an add, never fused).
void axpy_f32(size_t n, float a, const float* x, float* y);
void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores);
void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out);
// Bit-identical to generic (each lane one key's or one column's sum, in kernels.h's order; on ARMv7 the
// inputs where flushed denormals or NaN could show take generic's loops).
void attention_scores_i8(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                         float scale, float* scores);
void attention_values_i8(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                         float* out);
// Bit-identical to generic (the reference's exp and erf on every lane).
void softmax_f32(float* x, size_t n);
void gelu_f32(float* x, size_t n);
void relu_f32(float* x, size_t n);
void add_f32(float* y, const float* x, size_t n);

}  // namespace ax::neon
