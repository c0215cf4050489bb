// The Cortex-M port's kernel table: generic, with the int8 products (and on Helium softmax and GELU) replaced.
// A constant table (no run-time initialization, nothing in .bss).
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"
#include "ports/ports.h"

namespace ax {

namespace {

constexpr Kernels kMcuTable = {
    "mcu",
    generic::linear_f32,
    generic::linear_f16,
    mcu::linear_i8,
    generic::quantize_rows_i8,
    generic::dot_f32,
    generic::axpy_f32,
    generic::attention_scores_f32,
    generic::attention_values_f32,
    mcu::softmax_f32,
    generic::layer_norm_f32,
    mcu::gelu_f32,
    generic::relu_f32,
    generic::add_f32,
    generic::attention_scores_i8,  // generic: scalar, exact order
    generic::attention_values_i8,
};

}  // namespace

const Kernels* mcu_kernels() { return mcu::available() ? &kMcuTable : nullptr; }

}  // namespace ax
