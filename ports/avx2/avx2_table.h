// The AVX2 port's table: generic's, with the entries of AX_AVX2_KERNELS replaced by the port's functions of
// the same names. avx2_kernels.cpp hands it out once the CPU is checked; the AVX-512 port's tables start
// from it.
#pragma once
#include "ports/avx2/avx2.h"
#include "ports/generic/generic.h"

namespace ax::avx2 {

constexpr Kernels kernel_table() {
    Kernels k = generic::kernel_table();
    k.name = "avx2";
#define AX_AVX2_ENTRY(id) k.id = avx2::id;
    AX_AVX2_KERNELS(AX_AVX2_ENTRY)
#undef AX_AVX2_ENTRY
    return k;
}

}  // namespace ax::avx2
