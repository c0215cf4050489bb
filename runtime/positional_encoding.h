// The sinusoidal positional encoding of "Attention is all you need" and the PyTorch tutorials:
// PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d)), computed on the fly
// (no table in the model or the arena) with the tutorial's float32 operations.
#pragma once
#include <cstddef>

namespace ax {

// 1 / 10000^(i/d) for even i, as the tutorial computes it: exp(i * (-ln(10000) / d)) in float32.
float sinusoidal_div_term(size_t i, size_t d);

// x[r, :] += PE[first_position + r, :] for `rows` rows of width d. Kernels::add_sinusoidal_f32 gives these
// bits on every port.
void add_sinusoidal_positions(float* x, size_t rows, size_t d, size_t first_position);

// row[:] += PE[position, :] for one row of width d (the same float operations).
void add_sinusoidal_position(float* row, size_t d, size_t position);

}  // namespace ax
