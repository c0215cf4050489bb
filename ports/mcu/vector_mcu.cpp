// ReLU and the residual add with generic's float operations, four elements per loop pass: on the Cortex-M
// cores a loop's counter, compare and branch cost as much as the arithmetic of one element. Scalar FPU code
// on every core (LayerNorm, written the same way, is layer_norm_mcu.cpp).
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

namespace ax::mcu {

void relu_f32(float* x, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];
        x[i] = x0 > 0.0f ? x0 : 0.0f;
        x[i + 1] = x1 > 0.0f ? x1 : 0.0f;
        x[i + 2] = x2 > 0.0f ? x2 : 0.0f;
        x[i + 3] = x3 > 0.0f ? x3 : 0.0f;
    }
    for (; i < n; ++i) x[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

void add_f32(float* y, const float* x, size_t n) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const float x0 = x[i], x1 = x[i + 1], x2 = x[i + 2], x3 = x[i + 3];
        y[i] += x0;
        y[i + 1] += x1;
        y[i + 2] += x2;
        y[i + 3] += x3;
    }
    for (; i < n; ++i) y[i] += x[i];
}

}  // namespace ax::mcu
