// The AVX2 port's kernel table, handed out only when the CPU running the program has AVX2, FMA and F16C
// and the OS saves the YMM registers. This file is compiled with -mavx2 like the rest of the port, so the
// check is plain integer code (cpuid, xgetbv) in functions marked target("no-avx"): nothing here may
// execute an AVX instruction before the answer is known.
#include <cpuid.h>

#include <cstdint>

#include "ports/avx2/avx2_table.h"
#include "ports/ports.h"

namespace ax {
namespace {

constexpr Kernels kAvx2Table = avx2::kernel_table();
// The same port with AVX-VNNI's int8 products: a table of its own, so both can be tested and compared.
constexpr Kernels kAvx2VnniTable = [] {
    Kernels k = avx2::kernel_table();
    k.name = "avx2-vnni";
    k.linear_i8 = avx2::linear_i8_vnni;
    k.linear_i4 = avx2::linear_i4_vnni;
    return k;
}();

__attribute__((target("no-avx"))) bool cpu_has_avx2_fma_f16c() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    const bool fma = (ecx & (1u << 12)) != 0;
    const bool osxsave = (ecx & (1u << 27)) != 0;
    const bool avx = (ecx & (1u << 28)) != 0;
    const bool f16c = (ecx & (1u << 29)) != 0;
    if (!(fma && osxsave && avx && f16c)) return false;
    // XCR0 bits 1 and 2: the OS saves SSE and AVX (YMM) state across context switches.
    uint32_t xcr0_lo = 0, xcr0_hi = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    if ((xcr0_lo & 6u) != 6u) return false;
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return (ebx & (1u << 5)) != 0;  // AVX2
}

__attribute__((target("no-avx"))) bool cpu_has_avx_vnni() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    __cpuid_count(7, 1, eax, ebx, ecx, edx);
    return (eax & (1u << 4)) != 0;  // CPUID.(7,1):EAX bit 4, AVX-VNNI (the VEX encoding, 256-bit)
}

}  // namespace

__attribute__((target("no-avx"))) const Kernels* avx2_kernels() {
    static const bool supported = cpu_has_avx2_fma_f16c();
    return supported ? &kAvx2Table : nullptr;
}

__attribute__((target("no-avx"))) const Kernels* avx2_vnni_kernels() {
    static const bool supported = cpu_has_avx2_fma_f16c() && cpu_has_avx_vnni();
    return supported ? &kAvx2VnniTable : nullptr;
}

}  // namespace ax
