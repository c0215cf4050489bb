// The NEON port's kernels (AArch64, and 32-bit ARMv7-A built with -mfpu=neon), callable one by one.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/kernels.h"

// The kernels this port implements, each declared below with the kernel's type; the port's table
// (neon_kernels.cpp) puts exactly these in place of generic's, by name. The others stay generic's: LayerNorm
// is a small share of the time next to the matrix products.
// - linear_f32, linear_f16, attention_scores_f32: agree with generic to rounding, the sums in another order.
// - linear_i8: exact int32 accumulation (vdotq_s32 when the target has the dot-product extension, else
//   vmull_s8 + vpadalq_s16), rescaled with generic::rescale_i8: bit-identical to the generic port.
// - linear_i4: x deinterleaved by vld2q_s8 against the unpacked nibbles, exact int32 group sums (dot16),
//   generic's float steps in scalar code: bit-identical to generic (linear_i4_neon.cpp).
// - quantize_rows_i8, attention_values_f32 (a multiply and an add, never fused), relu_f32, add_f32:
//   bit-identical to generic.
// - attention_scores_i8, attention_values_i8: bit-identical to generic (each lane one key's or one column's
//   sum, in kernels.h's order; on ARMv7 the inputs where flushed denormals or NaN could show take generic's
//   loops).
// - softmax_f32, gelu_f32: bit-identical to generic (the reference's exp and erf on every lane).
#define AX_NEON_KERNELS(X)  \
    X(linear_f32)           \
    X(linear_f16)           \
    X(linear_i8)            \
    X(linear_i4)            \
    X(quantize_rows_i8)     \
    X(attention_scores_f32) \
    X(attention_values_f32) \
    X(softmax_f32)          \
    X(gelu_f32)             \
    X(relu_f32)             \
    X(add_f32)              \
    X(attention_scores_i8)  \
    X(attention_values_i8)

namespace ax::neon {

AX_NEON_KERNELS(AX_DECLARE_KERNEL)
// Not in the table: the steps of the linear and attention kernels. axpy is bit-identical to generic's (a
// multiply and an add, never fused).
float dot_f32(const float* a, const float* b, size_t n);
void axpy_f32(size_t n, float a, const float* x, float* y);

}  // namespace ax::neon
