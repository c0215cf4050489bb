// The Cortex-M port: int8 matrix products with the cores' integer SIMD, everything else generic.
// Armv7E-M (Cortex-M4/M7): the DSP extension's SXTB16 + SMLAD, two 8-bit products per instruction.
// Armv8.1-M with Helium (Cortex-M55/M85): MVE's VMLADAVA, 16 products per instruction, tails predicated.
// int32 sums are exact, and the rescale is generic::rescale_i8, so results are bit-identical to generic.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax::mcu {

// True when this build targets a core with one of the extensions above.
bool available();

void linear_i8(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w, const float* wscale,
               const float* bias, size_t out, float* y);
// Per-row int8 quantization, generic's bits: the FPU's round-to-nearest conversion in place of libm's
// nearbyintf (four lanes on Helium).
void quantize_rows_i8(const float* x, size_t rows, size_t n, int8_t* q, float* scales);
// Helium (MVE with float): the reference's exp and erf on four lanes, bit-identical to generic; other cores:
// generic.
void softmax_f32(float* x, size_t n);
void gelu_f32(float* x, size_t n);

}  // namespace ax::mcu
