// The AVX-512 port's kernel tables: the AVX2 port's table with the matrix products (and, on ZMM, the
// attention loops) replaced by name.
// Handed out only when the CPU has AVX2/FMA/F16C and AVX-512 F, BW, DQ, VL and VNNI, and the OS saves the
// opmask and ZMM state (XCR0 bits 5-7 besides SSE/AVX). This file is compiled without AVX flags: the
// check is plain integer code (cpuid, xgetbv), and nothing here executes a vector instruction.
//
// Which of the two tables best_kernels() prefers: "avx512" (ZMM) where 512-bit operations run at full
// width, "avx512-256" elsewhere. No CPUID bit says so; the rule is by vendor and family: Intel cores with
// AVX-512 (Skylake-SP and later servers, Ice Lake and later clients) and AMD family 1Ah (Zen 5, whose
// server parts have 512-bit datapaths) take ZMM; AMD family 19h (Zen 4, which splits ZMM operations into
// two halves) takes the 256-bit table. AUSPEX_PORT / --port picks either explicitly.
#include <cpuid.h>

#include <cstdint>

#include "ports/avx2/avx2_table.h"
#include "ports/avx512/avx512.h"
#include "ports/ports.h"

namespace ax {
namespace {

// "avx512": the AVX2 port's table with the matrix products and the attention loops on ZMM.
constexpr Kernels kAvx512Table = [] {
    Kernels k = avx2::kernel_table();
    k.name = "avx512";
#define AX_AVX512_ENTRY(id) k.id = avx512::id;
    AX_AVX512_KERNELS(AX_AVX512_ENTRY)
#undef AX_AVX512_ENTRY
    return k;
}();

// "avx512-256": the float products stay the AVX2 port's (256-bit); only the int8 products use EVEX encodings.
constexpr Kernels kAvx512_256Table = [] {
    Kernels k = avx2::kernel_table();
    k.name = "avx512-256";
    k.linear_i8 = avx512::linear_i8_256;
    k.linear_i4 = avx512::linear_i4;
    return k;
}();

bool cpu_has_avx512_vnni() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (__get_cpuid_max(0, nullptr) < 7) return false;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    if ((ecx & (1u << 27)) == 0) return false;  // OSXSAVE: xgetbv is available
    uint32_t xcr0_lo = 0, xcr0_hi = 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    // XCR0 bits 1, 2 (SSE, AVX) and 5, 6, 7 (opmask, upper halves of ZMM0-15, ZMM16-31).
    if ((xcr0_lo & 0xe6u) != 0xe6u) return false;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    const bool f = (ebx & (1u << 16)) != 0, dq = (ebx & (1u << 17)) != 0, bw = (ebx & (1u << 30)) != 0,
               vl = (ebx & (1u << 31)) != 0, vnni = (ecx & (1u << 11)) != 0;
    return f && dq && bw && vl && vnni;
}

// Whether 512-bit operations run at full width (see the file comment).
bool cpu_prefers_zmm() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(0, &eax, &ebx, &ecx, &edx)) return false;
    const bool amd = ebx == 0x68747541u;  // "Auth" of "AuthenticAMD"
    if (!amd) return true;
    __get_cpuid(1, &eax, &ebx, &ecx, &edx);
    const unsigned family = ((eax >> 8) & 0xfu) + (((eax >> 8) & 0xfu) == 0xfu ? ((eax >> 20) & 0xffu) : 0u);
    return family >= 0x1a;
}

}  // namespace

const Kernels* avx512_kernels() {
    static const bool supported = avx2_kernels() != nullptr && cpu_has_avx512_vnni();
    return supported ? &kAvx512Table : nullptr;
}

const Kernels* avx512_256_kernels() {
    static const bool supported = avx2_kernels() != nullptr && cpu_has_avx512_vnni();
    return supported ? &kAvx512_256Table : nullptr;
}

bool avx512_full_width() {
    static const bool zmm = cpu_prefers_zmm();
    return zmm;
}

}  // namespace ax
