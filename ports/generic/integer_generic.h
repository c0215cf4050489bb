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

// One output of an integer linear layer from its exact sum, bias included (runtime/integer_kernels.h): every
// port's linear kernels end here, so they differ from generic only in how they sum. An int64 sum of int16
// rows may exceed int32 only where the layer's own outputs would saturate: saturating it first keeps the
// requantized value on the same side of the clamp.
template <typename Out>
__attribute__((always_inline)) inline Out linear_q_output(int64_t acc, const fixed::Requant& m, int32_t zero,
                                                          int32_t lo, int32_t hi) {
    const int32_t sum = fixed::clamp_i32(acc, INT32_MIN, INT32_MAX);
#if !defined(__ARM_ARCH_6M__)
    if (m.shift <= fixed::kMaxSmallShift) {  // |requantize_small| < 2^30: the zero point and clamp in int32
        const int32_t v = zero + fixed::requantize_small(sum, m);
        return static_cast<Out>(v < lo ? lo : v > hi ? hi : v);
    }
#endif
    return static_cast<Out>(fixed::clamp_i32(zero + fixed::requantize(sum, m), lo, hi));
}

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
