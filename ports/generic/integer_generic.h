// The reference implementations of the integer-only kernels (runtime/integer_kernels.h): plain loops of
// integer operations. Their results are the definition every other port and board must reproduce bit for
// bit; being integer-only, they already give the same bits wherever they compile.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/integer_kernels.h"
#include "runtime/kernels.h"

namespace ax::generic {

AX_INTEGER_KERNELS(AX_DECLARE_KERNEL)

// The reference integer table, every member named.
constexpr IntegerKernels integer_kernel_table() {
    IntegerKernels k;
    k.name = "generic";
#define AX_GENERIC_INTEGER_ENTRY(id) k.id = generic::id;
    AX_INTEGER_KERNELS(AX_GENERIC_INTEGER_ENTRY)
#undef AX_GENERIC_INTEGER_ENTRY
    return k;
}

}  // namespace ax::generic

namespace ax {
// The integer table every port uses (each step is exact integer arithmetic: a port's own version must give
// these bits).
const IntegerKernels& generic_integer_kernels();
}  // namespace ax
