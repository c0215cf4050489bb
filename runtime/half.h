// IEEE 754 binary16 <-> binary32 conversion in plain integer code (no F16C/NEON needed).
#pragma once
#include <cstdint>

namespace ax {

float half_to_float(uint16_t h);
// Round to nearest even; overflow becomes infinity, NaN stays NaN.
uint16_t float_to_half(float f);

}  // namespace ax
