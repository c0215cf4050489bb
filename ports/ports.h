// The kernel ports compiled into this build. generic is always there; the others return nullptr when they
// were not built for this target or (x86) when the CPU running the program lacks the instructions.
#pragma once
#include "runtime/kernels.h"

namespace ax {

const Kernels& generic_kernels();
const Kernels* avx2_kernels();
// avx2 with AVX-VNNI int8 products; nullptr unless the CPU has AVX-VNNI.
const Kernels* avx2_vnni_kernels();
// AVX-512 F/BW/DQ/VL + VNNI (ports/avx512/): "avx512" works on ZMM registers, "avx512-256" keeps the AVX2
// float kernels and uses EVEX vpdpbusd on YMM; nullptr unless the CPU and OS support them.
const Kernels* avx512_kernels();
const Kernels* avx512_256_kernels();
// Whether this CPU runs 512-bit operations at full width (a vendor/family rule, see avx512_kernels.cpp).
bool avx512_full_width();
const Kernels* neon_kernels();
// Cortex-M: generic with the int8 products on the DSP extension (M4/M7) or Helium (M55), and on Helium
// GELU too; nullptr on a core with neither (an M3: best_kernels() then answers generic).
const Kernels* mcu_kernels();

// The fastest port this build and CPU support.
const Kernels& best_kernels();
// Every port's name, for kernels_by_name and the help that lists them.
inline constexpr const char* kPortNames[] = {"generic", "avx2", "avx2-vnni", "avx512", "avx512-256", "neon", "mcu"};
// A port by name (one of kPortNames); nullptr when unknown or unavailable here.
const Kernels* kernels_by_name(const char* name);

}  // namespace ax
