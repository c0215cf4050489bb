// The Cortex-M port's kernel table: generic, with the entries of AX_MCU_KERNELS (mcu.h) replaced; on cores
// without Helium, softmax and GELU go through the port's entries, which are generic's.
// A constant table (no run-time initialization, nothing in .bss).
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"
#include "ports/ports.h"

namespace ax {

namespace {

constexpr Kernels kMcuTable = [] {
    Kernels k = generic::kernel_table();
    k.name = "mcu";
#define AX_MCU_ENTRY(id) k.id = mcu::id;
    AX_MCU_KERNELS(AX_MCU_ENTRY)
#undef AX_MCU_ENTRY
    return k;
}();

}  // namespace

const Kernels* mcu_kernels() { return mcu::available() ? &kMcuTable : nullptr; }

}  // namespace ax
