#include "ports/generic/integer_generic.h"

namespace ax {

namespace {

constexpr IntegerKernels kGenericIntegerTable = generic::integer_kernel_table();

constexpr bool every_entry_set(const IntegerKernels& k) {
    bool all = true;
#define AX_INTEGER_SET(id) all = all && k.id != nullptr;
    AX_INTEGER_KERNELS(AX_INTEGER_SET)
#undef AX_INTEGER_SET
    return all;
}
static_assert(every_entry_set(kGenericIntegerTable), "the reference integer table sets every kernel");

}  // namespace

const IntegerKernels& generic_integer_kernels() { return kGenericIntegerTable; }

}  // namespace ax
