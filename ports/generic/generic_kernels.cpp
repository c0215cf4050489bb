#include "ports/generic/generic.h"
#include "ports/ports.h"

namespace ax {

const Kernels& generic_kernels() {
    static const Kernels table = {
        "generic",
        generic::linear_f32,
        generic::linear_f16,
        generic::linear_i8,
        generic::quantize_rows_i8,
        generic::dot_f32,
        generic::axpy_f32,
        generic::attention_scores_f32,
        generic::attention_values_f32,
        generic::softmax_f32,
        generic::layer_norm_f32,
        generic::gelu_f32,
        generic::relu_f32,
        generic::add_f32,
        generic::attention_scores_i8,  // generic: scalar, exact order
        generic::attention_values_i8,
    };
    return table;
}

}  // namespace ax
