// The AVX-512 port's kernels (x86-64 with AVX-512 F/BW/DQ/VL and VNNI), callable one by one. The port is
// the AVX2 port with named overrides (avx512_kernels.cpp): the matrix products and the attention loops.
// Two tables:
// - "avx512": float and int8 products on 512-bit registers, for CPUs that execute them at full width;
// - "avx512-256": AVX512-VNNI's EVEX vpdpbusd on 256-bit registers (32 of them) for the int8 products,
//   the AVX2 float kernels; for CPUs that split 512-bit operations or slow down on them.
// Everything here may execute AVX-512 instructions: only reached through ax::avx512_kernels() and
// ax::avx512_256_kernels(), which check the CPU (and the OS's ZMM state) first.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax::avx512 {

// Float products on ZMM (see linear_float_avx512.h); agree with generic to rounding.
void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y);
void linear_f16(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out, float* y);
// Int8 products with AVX512-VNNI, bit-identical to generic: packed panels on ZMM (linear_i8) or YMM
// (linear_i8_256) for batches, EVEX dot-product tiles on YMM for few rows. See linear_i8_avx512.cpp.
void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y);
void linear_i8_256(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
                   const float* bias, size_t out, float* y);

// One query against n_keys keys (attention_avx512.cpp): scores agree with generic to rounding; values are
// bit-identical to a sequence of avx2::axpy_f32 calls (multiply, then add), as the interface requires.
void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores);
void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out);
// On ZMM (softmax_avx512.cpp): the AVX2 port's vector exp on 16 lanes, masked tails.
void softmax_f32(float* x, size_t n);
// A block of query rows of one head at once: ports/avx2/attention_rows.h on ZMM.
bool attention_rows_f32(const float* q, size_t q_stride, size_t rows, const float* k, const float* v, size_t kv_stride,
                        size_t n_keys, size_t first_position, bool causal, size_t n, float scale, float* out,
                        size_t out_stride);

}  // namespace ax::avx512
