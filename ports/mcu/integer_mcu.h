// The Cortex-M port of the integer-only kernels (runtime/integer_kernels.h): the linear layers, which hold
// nearly all of a forecast's products, summed the way each core does best; every other entry is generic's.
// A sum of int8 products is exact in int32 in any order, and each output goes through generic's
// linear_q_output, so the results are generic's bits on every core.
// - Armv6-M (Cortex-M0/M0+, Thumb-1: 32-bit MULS, no multiply-accumulate, no SIMD): one row x four outputs
//   per pass in assembly, the four sums in high registers (ADD reaches them), every load sharing one index;
//   attention scores four keys per pass through the same loop.
// - Armv7E-M (Cortex-M4/M7, DSP): the int8 mode's SXTB16 + SMLAD tiles (tiles_dsp.h), for the linear layers
//   and the attention scores, with the rescale in assembly; the attention's weighted values by SMLABB
//   (attention_q8_mcu.cpp); the residual step in assembly (add_q8_mcu.cpp).
// - Helium (Cortex-M55): the int8 mode's MVE tiles (tiles_mve.h) for the linear layers and the scores, the
//   rescale on four lanes; the weighted values on 32-bit lanes; the residual step as on Armv7E-M (the M55 has
//   the DSP instructions too).
// - Anything else (Cortex-M3, a host build): generic.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/integer_kernels.h"
#include "runtime/kernels.h"

// The entries this port replaces.
#define AX_MCU_INTEGER_KERNELS(X) \
    X(linear_q8)                  \
    X(linear_q8_to_q16)           \
    X(linear_q16_to_q8)           \
    X(attention_scores_q8)        \
    X(attention_values_q15)       \
    X(add_q8_to_q16)

namespace ax::mcu {
AX_MCU_INTEGER_KERNELS(AX_DECLARE_KERNEL)
// The name of the summing code this build compiled: "armv6m", "helium", "dsp" or "generic".
const char* integer_variant();
}  // namespace ax::mcu

namespace ax {
// The integer table for the core this build targets: generic with AX_MCU_INTEGER_KERNELS replaced.
const IntegerKernels& mcu_integer_kernels();
}  // namespace ax
