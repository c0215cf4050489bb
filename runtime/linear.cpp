#include "runtime/linear.h"

#include "runtime/fixed_order_f32.h"

#include "runtime/activation.h"
#include "runtime/linear_split.h"
#include "runtime/rows_split.h"

namespace ax {

Linear Linear::slice(size_t first, size_t count) const {
    Linear s = *this;
    s.weight = static_cast<const uint8_t*>(weight) + format::dtype_data_bytes(dtype, uint64_t{first} * in);
    if (dtype == format::DType::i4)
        s.group_scales = group_scales + first * (in / format::kI4Group);
    else if (scales)
        s.scales = scales + first;
    if (bias) s.bias = bias + first;
    s.out = count;
    return s;
}

void linear_forward_i8(const Kernels& k, const Linear& layer, const int8_t* xq, const float* xscale, size_t rows,
                       float* y, const LinearSplit* split, const format::Activation* then) {
    if (split != nullptr && linear_split_forward(k, layer, nullptr, xq, xscale, rows, y, *split, then)) return;
    if (layer.dtype == format::DType::i4)
        k.linear_i4(xq, xscale, rows, layer.in, static_cast<const uint8_t*>(layer.weight), layer.group_scales,
                    layer.bias, layer.out, y, layer.out);
    else
        k.linear_i8(xq, xscale, rows, layer.in, static_cast<const int8_t*>(layer.weight), layer.scales, layer.bias,
                    layer.out, y, layer.out);
    if (then != nullptr) activate(k, *then, y, rows * layer.out);
}

void linear_forward(const Kernels& k, const Linear& layer, const float* x, size_t rows, float* y,
                    const QuantScratch& scratch, const LinearSplit* split, const format::Activation* then) {
    if (split != nullptr && !format::dtype_takes_int8_rows(layer.dtype) && !layer.fixed_order &&
        linear_split_forward(k, layer, x, nullptr, nullptr, rows, y, *split, then))
        return;
    switch (layer.dtype) {
        case format::DType::f32:
            if (layer.fixed_order)
                linear_f32_fixed_order(x, rows, layer.in, static_cast<const float*>(layer.weight), layer.bias,
                                       layer.out, y, layer.out);
            else
                k.linear_f32(x, rows, layer.in, static_cast<const float*>(layer.weight), layer.bias, layer.out, y,
                             layer.out);
            break;
        case format::DType::f16:
            k.linear_f16(x, rows, layer.in, static_cast<const uint16_t*>(layer.weight), layer.bias, layer.out, y,
                         layer.out);
            break;
        case format::DType::i32:  // never a weight (TensorBinder::matrix refuses it)
            return;
        case format::DType::i8:
        case format::DType::i4:
            const size_t step = scratch.rows > 0 ? scratch.rows : rows;  // rows 0: one scratch for all rows
            for (size_t r = 0; r < rows; r += step) {
                const size_t n = rows - r < step ? rows - r : step;
                quantize_rows_split(k, x + r * layer.in, n, layer.in, scratch.q, scratch.scales,
                                    split != nullptr ? &split->parallel : nullptr);
                linear_forward_i8(k, layer, scratch.q, scratch.scales, n, y + r * layer.out, split, then);
            }
            return;
    }
    if (then != nullptr) activate(k, *then, y, rows * layer.out);
}

}  // namespace ax
