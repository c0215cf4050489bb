// The feed-forward activations (ReLU, GELU, ELU) in place. Each value comes from that value alone, by the same
// operations wherever it sits in x (runtime/kernels.h), so any split of x gives the bits of one call.
#pragma once
#include <cstddef>

#include "runtime/format.h"
#include "runtime/kernels.h"

namespace ax {

// x[0, n) through the activation, in place.
void activate(const Kernels& k, format::Activation a, float* x, size_t n);

}  // namespace ax
