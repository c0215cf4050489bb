// The integer-only kernels (runtime/integer_kernels.h) a build hands out: the Cortex-M port's table where it
// is compiled (ports/mcu/integer_mcu.h), generic's elsewhere. Every table gives generic's bits.
#pragma once
#include "runtime/integer_kernels.h"

namespace ax {
const IntegerKernels& best_integer_kernels();
}  // namespace ax
