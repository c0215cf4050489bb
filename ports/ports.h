// The kernel ports compiled into this build. generic is always there; the others return nullptr when they
// were not built for this target or (x86) when the CPU running the program lacks the instructions.
#pragma once
#include "runtime/kernels.h"

namespace ax {

const Kernels& generic_kernels();
const Kernels* avx2_kernels();
const Kernels* neon_kernels();

// The fastest port this build and CPU support.
const Kernels& best_kernels();
// A port by name ("generic", "avx2", "neon"); nullptr when unknown or unavailable here.
const Kernels* kernels_by_name(const char* name);

}  // namespace ax
