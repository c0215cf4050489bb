// The NEON port's kernel table. LayerNorm stays generic: a small share of the time next to the matrix
// products.
#include "ports/generic/generic.h"
#include "ports/neon/neon.h"
#include "ports/ports.h"

namespace ax {

#if defined(__ARM_NEON)
namespace {

constexpr Kernels kNeonTable = [] {
    Kernels k = generic::kernel_table();
    k.name = "neon";
    k.linear_f32 = neon::linear_f32;
    k.linear_f16 = neon::linear_f16;
    k.linear_i8 = neon::linear_i8;
    k.quantize_rows_i8 = neon::quantize_rows_i8;
    k.attention_scores_f32 = neon::attention_scores_f32;
    k.attention_values_f32 = neon::attention_values_f32;
    k.softmax_f32 = neon::softmax_f32;
    k.gelu_f32 = neon::gelu_f32;
    k.relu_f32 = neon::relu_f32;
    k.add_f32 = neon::add_f32;
    k.attention_scores_i8 = neon::attention_scores_i8;
    k.attention_values_i8 = neon::attention_values_i8;
    return k;
}();

}  // namespace

const Kernels* neon_kernels() { return &kNeonTable; }
#else
// An ARM build without NEON (e.g. armhf without -mfpu=neon): the port is compiled but unavailable.
const Kernels* neon_kernels() { return nullptr; }
#endif

}  // namespace ax
