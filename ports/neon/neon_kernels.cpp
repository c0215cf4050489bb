// The NEON port's kernel table. LayerNorm stays generic: a small share of the time next to the matrix
// products.
#include "ports/generic/generic.h"
#include "ports/neon/neon.h"
#include "ports/ports.h"

namespace ax {

#if defined(__ARM_NEON)
const Kernels* neon_kernels() {
    static const Kernels table = {
        "neon",
        neon::linear_f32,
        neon::linear_f16,
        neon::linear_i8,
        neon::quantize_rows_i8,
        neon::dot_f32,
        neon::axpy_f32,
        neon::attention_scores_f32,
        neon::attention_values_f32,
        neon::softmax_f32,
        generic::layer_norm_f32,
        neon::gelu_f32,
        neon::relu_f32,
        neon::add_f32,
        generic::attention_scores_i8,  // generic: scalar, exact order
        generic::attention_values_i8,
    };
    return &table;
}
#else
// An ARM build without NEON (e.g. armhf without -mfpu=neon): the port is compiled but unavailable.
const Kernels* neon_kernels() { return nullptr; }
#endif

}  // namespace ax
