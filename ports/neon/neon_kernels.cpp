// The NEON port's kernel table: generic's, with the entries of AX_NEON_KERNELS (neon.h) replaced.
#include "ports/generic/generic.h"
#include "ports/neon/neon.h"
#include "ports/ports.h"

namespace ax {

#if defined(__ARM_NEON)
namespace {

constexpr Kernels kNeonTable = [] {
    Kernels k = generic::kernel_table();
    k.name = "neon";
#define AX_NEON_ENTRY(id) k.id = neon::id;
    AX_NEON_KERNELS(AX_NEON_ENTRY)
#undef AX_NEON_ENTRY
    return k;
}();

}  // namespace

const Kernels* neon_kernels() { return &kNeonTable; }
#else
// An ARM build without NEON (e.g. armhf without -mfpu=neon): the port is compiled but unavailable.
const Kernels* neon_kernels() { return nullptr; }
#endif

}  // namespace ax
