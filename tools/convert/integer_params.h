// What the converter derives from real scales for the integer-only mode (docs/integer-only.md,
// runtime/integer_kernels.h): fixed-point factors, LayerNorm parameters and activation tables. Host code in
// double precision; the runtime only ever sees the integers.
#pragma once
#include <cstdint>
#include <vector>

#include "runtime/fixed_point.h"
#include "runtime/format.h"

namespace ax::tools {

// The Requant nearest to a real factor m >= 0: multiplier * 2^(shift - 31) with the multiplier in
// [2^30, 2^31). A factor below 2^-32 (that rounds every int32 to 0 or +-1) becomes the factor 0. Throws
// ToolError for a negative, non-finite or too large (>= 2^30) factor.
fixed::Requant requant_of(double m);
// The real factor a Requant stands for.
double requant_value(fixed::Requant m);

// Symmetric scale of a range: max |x| over the largest code (127 for int8, 32767 for int16); a range of 0
// gets the scale 1 (all codes 0).
double symmetric_scale(double absmax, int32_t top);

// layer_norm_q16_to_q8's parameters for real gamma, beta (n each), eps and the input and output scales.
struct LayerNormQ {
    std::vector<int32_t> gamma;
    std::vector<int32_t> beta;
    int32_t shift = 0;
    uint64_t eps = 0;
};
LayerNormQ layer_norm_params(const float* gamma, const float* beta, size_t n, double eps, double x_scale,
                             double y_scale);

// lookup_q8's table of an activation: entry q + 128 = round(f(x_scale * q) / y_scale), saturated to int8.
std::vector<int8_t> activation_table(format::Activation activation, double x_scale, double y_scale);
// The activation in double precision (exact GELU with erf, ReLU, ELU with alpha 1).
double activation_value(format::Activation activation, double x);

}  // namespace ax::tools
