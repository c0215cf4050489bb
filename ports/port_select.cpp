// Which ports this build holds. AUSPEX_HAVE_AVX2 / AUSPEX_HAVE_NEON are set by the build when the port's
// sources are compiled in; without them the port's entry point here answers nullptr.
#include <cstring>

#include "ports/ports.h"

namespace ax {

#ifndef AUSPEX_HAVE_AVX2
const Kernels* avx2_kernels() { return nullptr; }
const Kernels* avx2_vnni_kernels() { return nullptr; }
#endif
#ifndef AUSPEX_HAVE_AVX512
const Kernels* avx512_kernels() { return nullptr; }
const Kernels* avx512_256_kernels() { return nullptr; }
bool avx512_full_width() { return false; }
#endif
#ifndef AUSPEX_HAVE_NEON
const Kernels* neon_kernels() { return nullptr; }
#endif
#ifndef AUSPEX_HAVE_MCU
const Kernels* mcu_kernels() { return nullptr; }
#endif

const Kernels& best_kernels() {
    if (const Kernels* k = avx512_full_width() ? avx512_kernels() : avx512_256_kernels()) return *k;
    if (const Kernels* k = avx2_vnni_kernels()) return *k;
    if (const Kernels* k = avx2_kernels()) return *k;
    if (const Kernels* k = neon_kernels()) return *k;
    if (const Kernels* k = mcu_kernels()) return *k;
    return generic_kernels();
}

const Kernels* kernels_by_name(const char* name) {
    if (std::strcmp(name, "generic") == 0) return &generic_kernels();
    if (std::strcmp(name, "avx2") == 0) return avx2_kernels();
    if (std::strcmp(name, "avx2-vnni") == 0) return avx2_vnni_kernels();
    if (std::strcmp(name, "avx512") == 0) return avx512_kernels();
    if (std::strcmp(name, "avx512-256") == 0) return avx512_256_kernels();
    if (std::strcmp(name, "neon") == 0) return neon_kernels();
    if (std::strcmp(name, "mcu") == 0) return mcu_kernels();
    return nullptr;
}

}  // namespace ax
