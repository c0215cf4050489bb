#include "runtime/half.h"

#include "runtime/bytes.h"

namespace ax {

float half_to_float(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exponent = (h >> 10) & 0x1fu;
    uint32_t mantissa = h & 0x3ffu;
    if (exponent == 0x1f) return bits_to_float(sign | 0x7f800000u | (mantissa << 13));
    if (exponent == 0) {
        if (mantissa == 0) return bits_to_float(sign);
        // Subnormal half: renormalise into a float.
        exponent = 127 - 15 + 1;
        while ((mantissa & 0x400u) == 0) {
            mantissa <<= 1;
            --exponent;
        }
        mantissa &= 0x3ffu;
        return bits_to_float(sign | (exponent << 23) | (mantissa << 13));
    }
    return bits_to_float(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13));
}

uint16_t float_to_half(float f) {
    const uint32_t bits = float_to_bits(f);
    const uint16_t sign = static_cast<uint16_t>((bits >> 16) & 0x8000u);
    const uint32_t abs = bits & 0x7fffffffu;
    if (abs >= 0x7f800000u) return static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0));
    if (abs >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds past 65504
    if (abs < 0x38800000u) {
        // Result is subnormal or zero: shift the full mantissa down, round half to even.
        if (abs < 0x33000000u) return sign;
        const uint32_t exponent = abs >> 23;
        const uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - exponent;  // half subnormal = mantissa * 2^(exponent - 126)
        const uint32_t value = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        uint32_t result = value;
        if (rest > half || (rest == half && (value & 1u))) ++result;
        return static_cast<uint16_t>(sign | result);
    }
    // Normal: rebias the exponent and round the 13 dropped mantissa bits half to even.
    uint32_t result = ((abs >> 13) - ((127 - 15) << 10));
    const uint32_t rest = abs & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) ++result;
    return static_cast<uint16_t>(sign | result);
}

}  // namespace ax
