// A linear layer (torch.nn.Linear) whose weights live in the model file in any stored dtype.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/format.h"
#include "runtime/kernels.h"

namespace ax {

struct LinearSplit;  // runtime/linear_split.h

struct Linear {
    format::DType dtype = format::DType::f32;
    // A float32 weight of an int8 model: multiplied in one summation order on every port
    // (runtime/fixed_order_f32.h), so that the model's products give the same bits on each. (Beside dtype:
    // in its padding.)
    bool fixed_order = false;
    const void* weight = nullptr;  // [out, in]
    // The weight's scales, as its dtype has them (one pointer: the records of a session's layers are planned
    // into the arena, MemoryPlan::alloc_records, and a second one would grow every layer's).
    union {
        const float* scales = nullptr;  // int8: per output row
        const uint16_t* group_scales;   // int4: IEEE half per group of 32 columns, [out, in / 32]
    };
    const float* bias = nullptr;  // [out] or nullptr
    size_t in = 0;
    size_t out = 0;

    // Output rows [first, first + count) as a layer of its own: the q, k or v part of a packed in_proj.
    Linear slice(size_t first, size_t count) const;
};

// Scratch an int8 or int4 layer needs to quantize up to `rows` input rows of width up to max_in at a time.
struct QuantScratch {
    int8_t* q = nullptr;      // rows * max_in
    float* scales = nullptr;  // rows
    size_t rows = 0;
};

// y[rows, out] = x[rows, in] W^T + b, then through the activation `then` when given. An int8 or int4 layer quantizes
// and multiplies scratch.rows rows at a time (each row's result depends on that row only, so the tiling
// changes no bit). With a split (optional), the output columns go to its workers when the product is large
// enough, each activating its own: the same bits.
void linear_forward(const Kernels& k, const Linear& layer, const float* x, size_t rows, float* y,
                    const QuantScratch& scratch, const LinearSplit* split = nullptr,
                    const format::Activation* then = nullptr);

// An int8 or int4 layer (format::dtype_takes_int8_rows) on rows already quantized by quantize_rows_i8:
// several layers reading the same rows quantize them once.
void linear_forward_i8(const Kernels& k, const Linear& layer, const int8_t* xq, const float* xscale, size_t rows,
                       float* y, const LinearSplit* split = nullptr, const format::Activation* then = nullptr);

}  // namespace ax
