#include "ports/generic/generic.h"
#include "ports/ports.h"

namespace ax {

namespace {

constexpr Kernels kGenericTable = generic::kernel_table();

}  // namespace

const Kernels& generic_kernels() { return kGenericTable; }

}  // namespace ax
