#include "ports/generic/generic.h"
#include "ports/ports.h"

namespace ax {

namespace {

constexpr Kernels kGenericTable = generic::kernel_table();
// A kernel added to runtime/kernels.h without a reference here fails to compile, not to run.
static_assert(null_entries(kGenericTable) == 1 && kGenericTable.attention_rows_f32 == nullptr,
              "the reference table sets every kernel but the optional attention_rows_f32");

}  // namespace

const Kernels& generic_kernels() { return kGenericTable; }

}  // namespace ax
