#include "runtime/residual_mlp.h"

namespace ax {

void residual_mlp_forward(const Kernels& k, const ResidualMlpWeights& w, const float* x, size_t rows, float* y,
                          float* hidden, float* tmp, const QuantScratch& quant) {
    linear_forward(k, w.hidden, x, rows, hidden, quant, nullptr, &w.activation);
    linear_forward(k, w.output, hidden, rows, y, quant);
    linear_forward(k, w.residual, x, rows, tmp, quant);
    k.add_f32(y, tmp, rows * w.output.out);
}

}  // namespace ax
