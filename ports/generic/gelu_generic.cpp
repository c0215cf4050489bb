// Reference exact GELU with the runtime's own erf.
#include <cstddef>

#include "ports/generic/generic.h"
#include "runtime/float_math.h"

namespace ax::generic {

void gelu_f32(float* x, size_t n) {
    for (size_t i = 0; i < n; ++i) x[i] = 0.5f * x[i] * (1.0f + erf_f32(x[i] * 0.70710678118654752f));
}

}  // namespace ax::generic
