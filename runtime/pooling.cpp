#include "runtime/pooling.h"

#include "runtime/float_math.h"

namespace ax {

void pool_rows(format::Pooling mode, const float* x, size_t rows, size_t d, const uint8_t* valid, float* out) {
    for (size_t c = 0; c < d; ++c) out[c] = 0.0f;
    if (mode == format::Pooling::first) {
        for (size_t c = 0; c < d; ++c) out[c] = x[c];
        return;
    }
    size_t count = 0;
    for (size_t r = 0; r < rows; ++r) {
        if (valid && !valid[r]) continue;
        const float* row = x + r * d;
        if (mode == format::Pooling::max) {
            for (size_t c = 0; c < d; ++c) out[c] = count == 0 || row[c] > out[c] ? row[c] : out[c];
        } else {
            for (size_t c = 0; c < d; ++c) out[c] += row[c];
        }
        ++count;
    }
    if (mode == format::Pooling::mean && count > 0) {
        const float n = static_cast<float>(count);
        for (size_t c = 0; c < d; ++c) out[c] /= n;
    }
}

void apply_output_activation(const Kernels& k, format::OutputActivation activation, float* x, size_t n) {
    switch (activation) {
        case format::OutputActivation::none:
            return;
        case format::OutputActivation::sigmoid:
            for (size_t i = 0; i < n; ++i) x[i] = 1.0f / (1.0f + exp_f32(-x[i]));
            return;
        case format::OutputActivation::softmax:
            k.softmax_f32(x, n);
            return;
    }
}

}  // namespace ax
