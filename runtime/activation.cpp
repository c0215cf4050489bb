#include "runtime/activation.h"

#include "runtime/float_math.h"

namespace ax {

void activate(const Kernels& k, format::Activation a, float* x, size_t n) {
    if (a == format::Activation::gelu) {
        k.gelu_f32(x, n);
    } else if (a == format::Activation::gelu_tanh) {
        // The runtime's own exp (tanh(u) = 1 - 2 / (exp(2u) + 1)): the same bits on every port and board.
        constexpr float kSqrt2OverPi = 0.7978845608028654f;
        for (size_t i = 0; i < n; ++i) {
            const float v = x[i];
            const float u = kSqrt2OverPi * (v + 0.044715f * v * v * v);
            const float t = 1.0f - 2.0f / (exp_f32(2.0f * u) + 1.0f);
            x[i] = 0.5f * v * (1.0f + t);
        }
    } else if (a == format::Activation::elu) {
        // The runtime's own exp: the same bits on every port and board.
        for (size_t i = 0; i < n; ++i)
            if (!(x[i] > 0.0f)) x[i] = exp_f32(x[i]) - 1.0f;
    } else {
        k.relu_f32(x, n);
    }
}

}  // namespace ax
