// The Cortex-M port's kernel table: generic, with the int8 products, the int8 quantization and (on Helium)
// GELU replaced; softmax goes through the port's entry, which is generic's for now (softmax_gelu_mcu.cpp says why).
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
