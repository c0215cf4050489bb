// The Cortex-M port: int8 matrix products with the cores' integer SIMD, everything else generic.
// Armv7E-M (Cortex-M4/M7): the DSP extension's SXTB16 + SMLAD, two 8-bit products per instruction.
// Armv8.1-M with Helium (Cortex-M55/M85): MVE's VMLADAVA, 16 products per instruction, tails predicated.
// int32 sums are exact, and the rescale is generic::rescale_i8, so results are bit-identical to generic.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/kernels.h"

// The kernels this port implements, each declared below with the kernel's type; the port's table
// (mcu_kernels.cpp) puts exactly these in place of generic's, by name.
// - linear_i8: the int8 products above.
// - linear_i4: 4-bit weights unpacked in registers, the group sums by SMLAD (DSP) or VMLADAVA (Helium),
//   generic's float steps in scalar FPU code: bit-identical to generic (linear_i4_mcu.cpp).
// - quantize_rows_i8: per-row int8 quantization, generic's bits: the FPU's round-to-nearest conversion in
//   place of libm's nearbyintf (four lanes on Helium).
// - softmax_f32, gelu_f32: Helium (MVE with float): the reference's exp and erf on four lanes, bit-identical
//   to generic; other cores: generic.
// - attention_scores_f32, attention_values_f32: generic's float operations in generic's order, several keys'
//   sums (scores) or a block of outputs (values) kept in registers across keys; scalar FPU code on every core.
// - attention_scores_i8, attention_values_i8: the same over int8 caches; Helium: in lanes where no subnormal
//   or NaN can arise.
// - layer_norm_f32, relu_f32, add_f32: generic's operations in generic's order, four elements per loop pass.
#define AX_MCU_KERNELS(X)   \
    X(linear_i8)            \
    X(linear_i4)            \
    X(quantize_rows_i8)     \
    X(attention_scores_f32) \
    X(attention_values_f32) \
    X(softmax_f32)          \
    X(layer_norm_f32)       \
    X(gelu_f32)             \
    X(relu_f32)             \
    X(add_f32)              \
    X(attention_scores_i8)  \
    X(attention_values_i8)

namespace ax::mcu {

// True when this build targets a core with one of the extensions above.
bool available();

AX_MCU_KERNELS(AX_DECLARE_KERNEL)

}  // namespace ax::mcu
