// Float to int32 (and half to float) by the single-precision FPU's own conversions (Cortex-M4/M7), in inline assembly:
// defined for every input (saturating, NaN to 0) where a C++ conversion of an out-of-range value would be undefined,
// and the rounding chosen by the instruction, not by the compiler.
#pragma once
#include <cstdint>

#include "runtime/bytes.h"

namespace ax::mcu::fpu {

// The int32 a conversion left in a single-precision register.
inline int32_t int_bits(float r) { return static_cast<int32_t>(float_to_bits(r)); }

// VCVTR: in the FPSCR rounding mode (round to nearest, ties to even, unless changed).
inline int32_t to_int_nearest(float v) {
    float r;
    __asm("vcvtr.s32.f32 %0, %1" : "=t"(r) : "t"(v));
    return int_bits(r);
}

// VCVT: toward zero.
inline int32_t to_int_truncated(float v) {
    float r;
    __asm("vcvt.s32.f32 %0, %1" : "=t"(r) : "t"(v));
    return int_bits(r);
}

// VCVTB.F32.F16: an IEEE half (FPSCR.AHP clear, the reset value) to float, exactly, as runtime/half.h's
// half_to_float does it in integer code (the half-precision conversions are part of FPv4-SP, FPv5 and
// Armv8.1-M's FPU).
inline float half_to_float(uint16_t h) {
    float r;
    __asm("vcvtb.f32.f16 %0, %1" : "=t"(r) : "t"(bits_to_float(h)));
    return r;
}

}  // namespace ax::mcu::fpu
