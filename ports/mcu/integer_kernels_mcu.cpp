// The Cortex-M port's integer table: generic's, with the linear layers of integer_mcu.h. A constant table.
#include "ports/generic/integer_generic.h"
#include "ports/mcu/integer_mcu.h"

namespace ax {

namespace {

constexpr IntegerKernels kMcuIntegerTable = [] {
    IntegerKernels k = generic::integer_kernel_table();
    k.name = "mcu";
#define AX_MCU_INTEGER_ENTRY(id) k.id = mcu::id;
    AX_MCU_INTEGER_KERNELS(AX_MCU_INTEGER_ENTRY)
#undef AX_MCU_INTEGER_ENTRY
    return k;
}();

}  // namespace

const IntegerKernels& mcu_integer_kernels() { return kMcuIntegerTable; }

}  // namespace ax
