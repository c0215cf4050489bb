// The operators of the host reference evaluator (tools/onnx/onnx_eval.h), one function per op type, and the
// helpers they share. Each takes the node (for its attributes), its inputs (nullptr for an optional input left
// out) and the model's default opset, and returns its outputs; an input it cannot use throws ToolError saying
// why (the evaluator adds which node).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tools/onnx/onnx_model.h"

namespace ax::onnx {

using Inputs = std::vector<const Tensor*>;
using OpFunction = std::vector<Tensor> (*)(const Node&, const Inputs&, int64_t opset);

// The function for an op type of the default domain, or nullptr when the evaluator has none.
OpFunction find_op(const std::string& op_type);
// Every op type the evaluator computes, sorted.
std::vector<std::string> evaluable_op_types();

namespace ops {

// Registration tables of the op files: {name, function} pairs ending with {nullptr, nullptr}.
struct Entry {
    const char* name;
    OpFunction run;
};
extern const Entry kMathOps[];
extern const Entry kShapeOps[];

// The k-th input, which must be present.
const Tensor& in(const Inputs& inputs, size_t k, const char* what);
// An optional input: nullptr when absent or named "".
const Tensor* optional_in(const Inputs& inputs, size_t k);
int64_t int_attr(const Node& n, const char* name, int64_t fallback);
float float_attr(const Node& n, const char* name, float fallback);
std::string string_attr(const Node& n, const char* name, const std::string& fallback);
std::vector<int64_t> ints_attr(const Node& n, const char* name);
bool has_attr(const Node& n, const char* name);
// The values of an integer tensor (shape inputs: Reshape's shape, Slice's starts, ...).
std::vector<int64_t> int_values(const Tensor& t, const char* what);
// An axis in [-rank, rank) made non-negative; ToolError otherwise.
size_t axis_of(int64_t axis, size_t rank, const char* what);
// Row-major strides of a shape.
std::vector<size_t> strides_of(const std::vector<int64_t>& shape);
// Numpy broadcasting of two shapes; ToolError naming both when they do not broadcast.
std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b);
// For each flat index of a tensor of shape `out`, the flat index base + sum(index[k] * strides[k]) of the element
// it reads: broadcasting (stride 0), transposes (permuted strides) and slices (scaled, negative strides).
std::vector<size_t> strided_index(const std::vector<int64_t>& out, const std::vector<int64_t>& strides, int64_t base);
// For each flat index of `out`, the flat index of a tensor of `shape` broadcast to it.
std::vector<size_t> broadcast_index(const std::vector<int64_t>& shape, const std::vector<int64_t>& out);
// A tensor of `type` and `shape`, its store sized (zeros).
Tensor empty_like_type(DataType type, const std::vector<int64_t>& shape);
// Copies element `from` of `src` to element `to` of `dst` (same store kind).
inline void copy_element(const Tensor& src, size_t from, Tensor* dst, size_t to) {
    if (src.is_float())
        dst->f[to] = src.f[from];
    else
        dst->i[to] = src.i[from];
}

}  // namespace ops

}  // namespace ax::onnx
