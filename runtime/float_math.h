// exp, erf, sine and cosine in float32, computed by the runtime itself instead of the C library: glibc,
// newlib's double-precision libm and the older fdlibm float routines of single-precision Cortex-M
// multilibs round differently in the last bit, and int8 models amplify one-ulp differences into
// different quantized activations. With these, the reference kernels give the same bits on every
// target (the build compiles with -ffp-contract=off, so no compiler fuses a multiply and an add).
// Accuracy, measured by tests/test_float_math.cpp against double-precision libm: within 2 float ulp.
#pragma once

namespace ax {

// e^x. Underflows to 0 below -87.33654 (where e^x < FLT_MIN) instead of returning a subnormal;
// +inf above 88.72284; NaN stays NaN.
float exp_f32(float x);

// The error function; erf(+-inf) = +-1; NaN stays NaN.
float erf_f32(float x);

// sin(x) and cos(x) together (the sinusoidal positional encoding needs both of one angle). Accurate for
// |x| < 2^22 (positional-encoding angles are at most the sequence length, 2^20); beyond that the argument
// reduction loses precision (the results stay in [-1, 1]). NaN and infinities give NaN.
void sin_cos_f32(float x, float* sin_x, float* cos_x);

}  // namespace ax
