#include "runtime/residual_mlp.h"

namespace ax {

void residual_mlp_forward(const Kernels& k, const ResidualMlpWeights& w, const float* x, size_t rows, float* y,
                          float* hidden, float* tmp, const QuantScratch& quant) {
    linear_forward(k, w.hidden, x, rows, hidden, quant, nullptr, &w.activation);
    linear_forward(k, w.output, hidden, rows, y, quant);
    linear_forward(k, w.residual, x, rows, tmp, quant);
    k.add_f32(y, tmp, rows * w.output.out);
}

Status bind_residual_mlp(TensorBinder& b, uint16_t layer, size_t in, size_t hidden, size_t out, format::Activation a,
                         ResidualMlpWeights* w) {
    using format::Role;
    AX_RETURN_IF_ERROR(b.linear(Role::mlp_hidden_weight, Role::mlp_hidden_bias, layer, hidden, in, &w->hidden));
    AX_RETURN_IF_ERROR(b.linear(Role::mlp_output_weight, Role::mlp_output_bias, layer, out, hidden, &w->output));
    AX_RETURN_IF_ERROR(b.linear(Role::mlp_residual_weight, Role::mlp_residual_bias, layer, out, in, &w->residual));
    w->activation = a;
    return Status::ok();
}

}  // namespace ax
