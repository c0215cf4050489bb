// Reference softmax: the maximum subtracted first, the runtime's own exp.
#include <cstddef>

#include "ports/generic/generic.h"
#include "runtime/float_math.h"

namespace ax::generic {

void softmax_f32(float* x, size_t n) {
    float max = x[0];
    for (size_t i = 1; i < n; ++i) max = x[i] > max ? x[i] : max;
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        x[i] = exp_f32(x[i] - max);
        sum += x[i];
    }
    const float inv = 1.0f / sum;
    for (size_t i = 0; i < n; ++i) x[i] *= inv;
}

}  // namespace ax::generic
