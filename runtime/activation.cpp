#include "runtime/activation.h"

#include "runtime/float_math.h"

namespace ax {

void activate(const Kernels& k, format::Activation a, float* x, size_t n) {
    if (a == format::Activation::gelu) {
        k.gelu_f32(x, n);
    } else if (a == format::Activation::elu) {
        // The runtime's own exp: the same bits on every port and board.
        for (size_t i = 0; i < n; ++i)
            if (!(x[i] > 0.0f)) x[i] = exp_f32(x[i]) - 1.0f;
    } else {
        k.relu_f32(x, n);
    }
}

}  // namespace ax
