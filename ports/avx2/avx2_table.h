// The AVX2 port's table: generic's, with the entries this port implements replaced by name. avx2_kernels.cpp
// hands it out once the CPU is checked; the AVX-512 port's tables start from it.
#pragma once
#include "ports/avx2/avx2.h"
#include "ports/generic/generic.h"

namespace ax::avx2 {

constexpr Kernels kernel_table() {
    Kernels k = generic::kernel_table();
    k.name = "avx2";
    k.linear_f32 = avx2::linear_f32;
    k.linear_f16 = avx2::linear_f16;
    k.linear_i8 = avx2::linear_i8;
    k.quantize_rows_i8 = avx2::quantize_rows_i8;
    k.attention_scores_f32 = avx2::attention_scores_f32;
    k.attention_values_f32 = avx2::attention_values_f32;
    k.attention_rows_f32 = avx2::attention_rows_f32;
    k.softmax_f32 = avx2::softmax_f32;
    k.layer_norm_f32 = avx2::layer_norm_f32;
    k.gelu_f32 = avx2::gelu_f32;
    k.relu_f32 = avx2::relu_f32;
    k.add_f32 = avx2::add_f32;
    k.add_sinusoidal_f32 = avx2::add_sinusoidal_f32;
    k.attention_scores_i8 = avx2::attention_scores_i8;
    k.attention_values_i8 = avx2::attention_values_i8;
    return k;
}

}  // namespace ax::avx2
