// The reference port's kernels, callable one by one, and its table, which every other port's table starts
// from (ports/<isa>/<isa>_kernels.cpp replace the entries they implement, by name).
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/kernels.h"

// The reference kernels, each declared with its runtime/kernels.h type, one file each (<kernel family>_generic.cpp,
// the name every port gives its version): every entry of the table but attention_rows_f32 (optional: generic
// leaves it null, the row kernels do its work).
#define AX_GENERIC_KERNELS(X) \
    X(linear_f32)             \
    X(linear_f16)             \
    X(linear_i8)              \
    X(linear_i4)              \
    X(quantize_rows_i8)       \
    X(attention_scores_f32)   \
    X(attention_values_f32)   \
    X(softmax_f32)            \
    X(layer_norm_f32)         \
    X(gelu_f32)               \
    X(relu_f32)               \
    X(add_f32)                \
    X(add_sinusoidal_f32)     \
    X(attention_scores_i8)    \
    X(attention_values_i8)

namespace ax::generic {

AX_GENERIC_KERNELS(AX_DECLARE_KERNEL)
// Not in the table (no layer calls them): the steps of linear_f32 and of the attention kernels.
float dot_f32(const float* a, const float* b, size_t n);
void axpy_f32(size_t n, float a, const float* x, float* y);

// The int8 rescale every port must perform in exactly this order (see runtime/kernels.h).
inline float rescale_i8(int32_t acc, float xscale, float wscale, float bias) {
    const float scale = xscale * wscale;
    const float product = static_cast<float>(acc) * scale;
    return product + bias;
}

// One step of linear_i4's group sum (see runtime/kernels.h): a multiply and an add, each rounded.
inline float accumulate_group_i4(float sum, int32_t acc, float wscale) {
    const float product = static_cast<float>(acc) * wscale;
    return sum + product;
}

// linear_i4's last step: the group sum times the row's scale, plus the bias.
inline float finish_i4(float sum, float xscale, float bias) {
    const float scaled = sum * xscale;
    return scaled + bias;
}

// The reference table, every member named.
constexpr Kernels kernel_table() {
    Kernels k;
    k.name = "generic";
#define AX_GENERIC_ENTRY(id) k.id = generic::id;
    AX_GENERIC_KERNELS(AX_GENERIC_ENTRY)
#undef AX_GENERIC_ENTRY
    return k;
}

}  // namespace ax::generic
