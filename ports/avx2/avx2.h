// The AVX2 port's kernels (x86-64 with AVX2, FMA and F16C), callable one by one. ax::avx2_kernels()
// (avx2_kernels.cpp) hands out the table only when the running CPU has all three extensions.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/kernels.h"

// The kernels this port implements: every one of runtime/kernels.h. Each is declared below with the
// kernel's type, and the port's table (avx2_table.h) puts exactly these in place of generic's, by name.
// - linear_f32, linear_f16: register-tiled FMA (linear_float_avx2.h); agree with generic to rounding, the
//   sums being in another order.
// - linear_i8: exact int32 accumulation (maddubs with |w| unsigned and x carrying w's sign, or int8 widened
//   to int16 when x holds -128 or rows are short: no saturation for any int8 input), rescaled as
//   generic::rescale_i8: bit-identical to the generic port. See linear_i8_avx2.cpp.
// - linear_i4: 4-bit weights unpacked to bytes, exact int32 group sums (maddubs), generic's float steps lane
//   for lane: bit-identical to generic (ports/x86/linear_i4_tiles.h).
// - attention_scores_f32, layer_norm_f32: agree with generic to rounding, the sums in another order.
// - quantize_rows_i8, relu_f32, add_f32, attention_values_f32 (a multiply and an add, never fused):
//   bit-identical to generic.
// - attention_rows_f32: a block of query rows of one head at once (attention_rows.h); false for shapes it
//   leaves to the row kernels.
// - attention_scores_i8, attention_values_i8: bit-identical to generic (attention_i8_avx2.cpp).
// - softmax_f32: vectorised exp (polynomial, within about 1 ulp of exp on [-87, 0]; see math_avx2.h).
// - gelu_f32: vectorised erf (polynomials after Arm's optimized-routines, within about 1 ulp; math_avx2.h).
// - add_sinusoidal_f32: bit-identical to runtime/positional_encoding.cpp, its sin/cos steps on 8 angles at
//   once (positions_avx2.cpp).
#define AX_AVX2_KERNELS(X) AX_KERNELS(X)

namespace ax::avx2 {

AX_AVX2_KERNELS(AX_DECLARE_KERNEL)
// linear_i8 with AVX-VNNI's vpdpbusd (linear_i8_vnni.cpp): only for CPUs that have it (the "avx2-vnni" table).
kernel::linear_i8 linear_i8_vnni;
kernel::linear_i4 linear_i4_vnni;  // linear_i4_vnni.cpp, the same table
// Not in the table: the steps of the attention kernels. axpy is bit-identical to generic's.
float dot_f32(const float* a, const float* b, size_t n);
void axpy_f32(size_t n, float a, const float* x, float* y);

}  // namespace ax::avx2
