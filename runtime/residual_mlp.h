// The residual MLP block of Chronos-Bolt's input patch embedding and output head (and of TimesFM-style models):
// y = act(x W_h^T + b_h) W_o^T + b_o + (x W_r^T + b_r), each product a Linear in any stored dtype.
#pragma once
#include <cstddef>

#include "runtime/format.h"
#include "runtime/kernels.h"
#include "runtime/linear.h"
#include "runtime/status.h"
#include "runtime/tensor_binding.h"

namespace ax {

struct ResidualMlpWeights {
    Linear hidden;    // [h, in]
    Linear output;    // [out, h]
    Linear residual;  // [out, in]
    format::Activation activation = format::Activation::relu;
};

// Binds the block's three Linears of layer `layer` (Role::mlp_*; Chronos-Bolt's input embedding is layer 0, its
// head layer 1), each with its bias.
Status bind_residual_mlp(TensorBinder& b, uint16_t layer, size_t in, size_t hidden, size_t out, format::Activation a,
                         ResidualMlpWeights* w);

// x [rows, in] -> y [rows, out]. hidden: scratch [rows, h]; tmp: scratch [rows, out]. quant: for int8 layers.
void residual_mlp_forward(const Kernels& k, const ResidualMlpWeights& w, const float* x, size_t rows, float* y,
                          float* hidden, float* tmp, const QuantScratch& quant);

}  // namespace ax
