// The reference implementations of the integer-only kernels (runtime/integer_kernels.h): plain loops of
// integer operations. Their results are the definition every other port and board must reproduce bit for
// bit; being integer-only, they already give the same bits wherever they compile.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/integer_kernels.h"
#include "runtime/kernels.h"

#define AX_GENERIC_INTEGER_KERNELS(X) \
    X(linear_q8)                      \
    X(linear_q8_to_q16)               \
    X(linear_q16_to_q8)               \
    X(add_q8_to_q16)                  \
    X(add_q16_q8_to_q16)              \
    X(layer_norm_q16_to_q8)           \
    X(lookup_q8)                      \
    X(attention_scores_q8)            \
    X(softmax_q15)                    \
    X(attention_values_q15)

namespace ax::generic {

AX_GENERIC_INTEGER_KERNELS(AX_DECLARE_KERNEL)

}  // namespace ax::generic
