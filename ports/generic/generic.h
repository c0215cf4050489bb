// The reference port's kernels, callable one by one, and its table, which every other port's table starts
// from (ports/<isa>/<isa>_kernels.cpp replace the entries they implement, by name).
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/kernels.h"
#include "runtime/positional_encoding.h"

namespace ax::generic {

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y);
void linear_f16(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out, float* y);
void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y);
void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales);
// Not in the table (no layer calls them): the steps of linear_f32 and of the attention kernels.
float dot_f32(const float* a, const float* b, size_t n);
void axpy_f32(size_t n, float a, const float* x, float* y);
void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores);
void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out);
void softmax_f32(float* x, size_t n);
void layer_norm_f32(const float* x, size_t n, const float* gamma, const float* beta, float eps, float* y);
void gelu_f32(float* x, size_t n);
void relu_f32(float* x, size_t n);
void add_f32(float* y, const float* x, size_t n);
void attention_scores_i8(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                         float scale, float* scores);
void attention_values_i8(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                         float* out);

// The int8 rescale every port must perform in exactly this order (see runtime/kernels.h).
inline float rescale_i8(int32_t acc, float xscale, float wscale, float bias) {
    const float scale = xscale * wscale;
    const float product = static_cast<float>(acc) * scale;
    return product + bias;
}

// The reference table, every member named.
constexpr Kernels kernel_table() {
    Kernels k;
    k.name = "generic";
    k.linear_f32 = linear_f32;
    k.linear_f16 = linear_f16;
    k.linear_i8 = linear_i8;
    k.quantize_rows_i8 = quantize_rows_i8;
    k.attention_scores_f32 = attention_scores_f32;
    k.attention_values_f32 = attention_values_f32;
    k.softmax_f32 = softmax_f32;
    k.layer_norm_f32 = layer_norm_f32;
    k.gelu_f32 = gelu_f32;
    k.relu_f32 = relu_f32;
    k.add_f32 = add_f32;
    k.add_sinusoidal_f32 = add_sinusoidal_positions;  // the runtime's own: the reference
    k.attention_scores_i8 = attention_scores_i8;      // scalar, in the exact order kernels.h defines
    k.attention_values_i8 = attention_values_i8;
    return k;
}

}  // namespace ax::generic
