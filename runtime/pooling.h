// Pooling a sequence of rows into one (over the rows a padding mask keeps) and the output activations of a
// classification head.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/format.h"
#include "runtime/kernels.h"

namespace ax {

// out[0, d) from x[rows, d]. valid: rows flags (nullptr: every row counts). mean and max use the valid rows
// only (as `(x * mask).sum(1) / mask.sum(1)` and `x.masked_fill(pad, -inf).max(1)`); with no valid row the
// result is all zeros. first takes row 0 whatever it holds (a CLS position).
void pool_rows(format::Pooling mode, const float* x, size_t rows, size_t d, const uint8_t* valid, float* out);

// In place over n values: sigmoid per value, softmax over all of them, or nothing.
void apply_output_activation(const Kernels& k, format::OutputActivation activation, float* x, size_t n);

}  // namespace ax
