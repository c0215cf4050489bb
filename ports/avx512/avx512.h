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

#include "runtime/kernels.h"

// The kernels the "avx512" table replaces in the AVX2 port's, by name, each declared below with the kernel's
// type:
// - linear_f32, linear_f16: float products on ZMM (linear_float_avx512.h); agree with generic to rounding.
// - linear_i8: int8 products with AVX512-VNNI, bit-identical to generic: packed panels on ZMM for batches,
//   EVEX dot-product tiles on YMM for few rows. See linear_i8_avx512.cpp.
// - linear_i4: 4-bit products with EVEX vpdpbusd on YMM, in both tables (ports/x86/linear_i4_tiles.h),
//   bit-identical to generic.
// - attention_scores_f32, attention_values_f32: one query against n_keys keys (attention_f32_avx512.cpp): scores
//   agree with generic to rounding; values are bit-identical to a sequence of avx2::axpy_f32 calls (multiply,
//   then add), as the interface requires.
// - attention_rows_f32: a block of query rows of one head at once, ports/x86/attention_rows.h on ZMM.
// - softmax_f32: on ZMM (softmax_avx512.cpp), the AVX2 port's vector exp on 16 lanes, masked tails.
#define AX_AVX512_KERNELS(X) \
    X(linear_f32)            \
    X(linear_f16)            \
    X(linear_i8)             \
    X(linear_i4)             \
    X(attention_scores_f32)  \
    X(attention_values_f32)  \
    X(attention_rows_f32)    \
    X(softmax_f32)

namespace ax::avx512 {

AX_AVX512_KERNELS(AX_DECLARE_KERNEL)
// linear_i8's packed panels on YMM: the one kernel of the "avx512-256" table.
kernel::linear_i8 linear_i8_256;

}  // namespace ax::avx512
