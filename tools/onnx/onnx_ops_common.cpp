#include <algorithm>

#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_ops.h"

namespace ax::onnx {

namespace ops {

const Tensor& in(const Inputs& inputs, size_t k, const char* what) {
    if (k >= inputs.size() || inputs[k] == nullptr)
        throw tools::ToolError("input " + std::to_string(k + 1) + " (" + what + ") is missing");
    return *inputs[k];
}

const Tensor* optional_in(const Inputs& inputs, size_t k) { return k < inputs.size() ? inputs[k] : nullptr; }

bool has_attr(const Node& n, const char* name) { return n.attribute(name) != nullptr; }

int64_t int_attr(const Node& n, const char* name, int64_t fallback) {
    const Attribute* a = n.attribute(name);
    return a ? a->i : fallback;
}

float float_attr(const Node& n, const char* name, float fallback) {
    const Attribute* a = n.attribute(name);
    return a ? a->f : fallback;
}

std::string string_attr(const Node& n, const char* name, const std::string& fallback) {
    const Attribute* a = n.attribute(name);
    return a ? a->s : fallback;
}

std::vector<int64_t> ints_attr(const Node& n, const char* name) {
    const Attribute* a = n.attribute(name);
    return a ? a->ints : std::vector<int64_t>{};
}

std::vector<int64_t> int_values(const Tensor& t, const char* what) {
    if (t.is_float()) throw tools::ToolError(std::string(what) + " must be integers, it is " + data_type_name(t.type));
    return t.i;
}

size_t axis_of(int64_t axis, size_t rank, const char* what) {
    const int64_t r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r)
        throw tools::ToolError(std::string(what) + " " + std::to_string(axis) + " is outside a tensor of rank " +
                               std::to_string(rank));
    return static_cast<size_t>(axis < 0 ? axis + r : axis);
}

std::vector<size_t> strides_of(const std::vector<int64_t>& shape) {
    std::vector<size_t> s(shape.size(), 1);
    for (size_t k = shape.size(); k-- > 1;) s[k - 1] = s[k] * static_cast<size_t>(shape[k]);
    return s;
}

std::vector<int64_t> broadcast_shapes(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
    const size_t rank = std::max(a.size(), b.size());
    std::vector<int64_t> out(rank);
    for (size_t k = 0; k < rank; ++k) {
        const int64_t da = k + a.size() >= rank ? a[k + a.size() - rank] : 1;
        const int64_t db = k + b.size() >= rank ? b[k + b.size() - rank] : 1;
        if (da != db && da != 1 && db != 1)
            throw tools::ToolError("shapes " + shape_text(a) + " and " + shape_text(b) + " do not broadcast");
        out[k] = da == 1 ? db : da;
    }
    return out;
}

std::vector<size_t> strided_index(const std::vector<int64_t>& out, const std::vector<int64_t>& strides, int64_t base) {
    const size_t n = element_count(out, "a result");
    const size_t rank = out.size();
    std::vector<size_t> index(n);
    std::vector<int64_t> counter(rank, 0);
    int64_t at = base;
    for (size_t i = 0; i < n; ++i) {
        index[i] = static_cast<size_t>(at);
        for (size_t k = rank; k-- > 0;) {  // the next index, the last axis fastest
            if (++counter[k] < out[k]) {
                at += strides[k];
                break;
            }
            at -= strides[k] * (counter[k] - 1);
            counter[k] = 0;
        }
    }
    return index;
}

std::vector<size_t> broadcast_index(const std::vector<int64_t>& shape, const std::vector<int64_t>& out) {
    const size_t rank = out.size(), pad = rank - shape.size();
    std::vector<int64_t> in_strides(rank, 0);
    const std::vector<size_t> s = strides_of(shape);
    for (size_t k = 0; k < shape.size(); ++k) in_strides[k + pad] = shape[k] == 1 ? 0 : static_cast<int64_t>(s[k]);
    return strided_index(out, in_strides, 0);
}

Tensor empty_like_type(DataType type, const std::vector<int64_t>& shape) {
    Tensor t;
    t.type = type;
    t.shape = shape;
    const size_t n = element_count(shape, "a result");
    if (t.is_float())
        t.f.assign(n, 0.0f);
    else
        t.i.assign(n, 0);
    return t;
}

}  // namespace ops

OpFunction find_op(const std::string& op_type) {
    for (const ops::Entry* table : {ops::kMathOps, ops::kShapeOps})
        for (const ops::Entry* e = table; e->name; ++e)
            if (op_type == e->name) return e->run;
    return nullptr;
}

std::vector<std::string> evaluable_op_types() {
    std::vector<std::string> names;
    for (const ops::Entry* table : {ops::kMathOps, ops::kShapeOps})
        for (const ops::Entry* e = table; e->name; ++e) names.push_back(e->name);
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace ax::onnx
