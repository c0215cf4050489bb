// Operators that move, select and make values rather than compute them: the shape arithmetic torch.onnx.export
// writes around every reshape (Shape, Gather, Unsqueeze, Concat, ConstantOfShape, Range, Cast, ...), the layout
// changes of attention (Reshape, Transpose, Split, Slice) and constants.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_ops.h"

namespace ax::onnx {

namespace {

using namespace ops;
using Outputs = std::vector<Tensor>;
using tools::ToolError;

// The elements of `t` at `index`, as a tensor of `shape`.
Tensor gather_elements(const Tensor& t, const std::vector<int64_t>& shape, const std::vector<size_t>& index) {
    Tensor out = empty_like_type(t.type, shape);
    for (size_t o = 0; o < index.size(); ++o) copy_element(t, index[o], &out, o);
    return out;
}

Outputs op_identity(const Node&, const Inputs& x, int64_t) { return {in(x, 0, "input")}; }

Outputs op_constant(const Node& n, const Inputs&, int64_t) {
    if (n.attributes.size() != 1) throw ToolError("a Constant node needs exactly one attribute");
    const Attribute& a = n.attributes[0];
    if (a.name == "value" && a.t) return {*a.t};
    if (a.name == "value_float") return {make_float({}, {a.f})};
    if (a.name == "value_floats") return {make_float({static_cast<int64_t>(a.floats.size())}, a.floats)};
    if (a.name == "value_int") return {make_int({}, {a.i})};
    if (a.name == "value_ints") return {make_int({static_cast<int64_t>(a.ints.size())}, a.ints)};
    throw ToolError("a Constant with attribute " + a.name + " (" + attribute_type_name(a.type) + ") is not evaluated");
}

Outputs op_shape(const Node& n, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "data");
    const int64_t rank = static_cast<int64_t>(t.shape.size());
    int64_t start = int_attr(n, "start", 0), end = int_attr(n, "end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, start, rank);
    std::vector<int64_t> dims(t.shape.begin() + start, t.shape.begin() + end);
    return {make_int({static_cast<int64_t>(dims.size())}, dims)};
}

Outputs op_size(const Node&, const Inputs& x, int64_t) {
    return {make_int({}, {static_cast<int64_t>(in(x, 0, "data").size())})};
}

Outputs op_cast(const Node& n, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "input");
    const DataType to = static_cast<DataType>(int_attr(n, "to", 0));
    if (!is_float_type(to) && !is_integer_type(to))
        throw ToolError(std::string("Cast to ") + data_type_name(to) + " is not evaluated");
    Tensor out = empty_like_type(to, t.shape);
    for (size_t k = 0; k < t.size(); ++k) {
        if (out.is_float())
            out.f[k] = static_cast<float>(t.real(k));
        else if (to == DataType::boolean)
            out.i[k] = t.real(k) != 0;
        else if (t.is_float()) {
            const float v = t.f[k];
            if (!std::isfinite(v) || std::fabs(v) >= 9.2e18f)
                throw ToolError("Cast of " + std::to_string(v) + " to an integer");
            out.i[k] = static_cast<int64_t>(v);
        } else
            out.i[k] = t.i[k];
    }
    return {out};
}

Outputs op_reshape(const Node& n, const Inputs& x, int64_t) {
    Tensor t = in(x, 0, "data");
    std::vector<int64_t> shape = int_values(in(x, 1, "shape"), "Reshape's shape");
    const bool allow_zero = int_attr(n, "allowzero", 0) != 0;
    size_t known = 1;
    int infer = -1;
    for (size_t k = 0; k < shape.size(); ++k) {
        if (shape[k] == 0 && !allow_zero) {
            if (k >= t.shape.size())
                throw ToolError("shape " + shape_text(shape) + " copies a dimension the input lacks");
            shape[k] = t.shape[k];
        }
        if (shape[k] == -1) {
            if (infer >= 0) throw ToolError("shape " + shape_text(shape) + " has two -1");
            infer = static_cast<int>(k);
        } else if (shape[k] < 0) {
            throw ToolError("shape " + shape_text(shape) + " has a negative dimension");
        } else {
            known *= static_cast<size_t>(shape[k]);
        }
    }
    if (infer >= 0) {
        if (known == 0 || t.size() % known != 0)
            throw ToolError("cannot reshape " + shape_text(t.shape) + " to " + shape_text(shape));
        shape[static_cast<size_t>(infer)] = static_cast<int64_t>(t.size() / known);
    }
    if (element_count(shape, "Reshape's shape") != t.size())
        throw ToolError("cannot reshape " + shape_text(t.shape) + " (" + std::to_string(t.size()) + " values) to " +
                        shape_text(shape));
    t.shape = shape;
    return {t};
}

Outputs op_flatten(const Node& n, const Inputs& x, int64_t) {
    Tensor t = in(x, 0, "input");
    const int64_t rank = static_cast<int64_t>(t.shape.size());
    int64_t axis = int_attr(n, "axis", 1);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) throw ToolError("axis " + std::to_string(axis) + " for rank " + std::to_string(rank));
    int64_t outer = 1, inner = 1;
    for (int64_t k = 0; k < rank; ++k) (k < axis ? outer : inner) *= t.shape[static_cast<size_t>(k)];
    t.shape = {outer, inner};
    return {t};
}

Outputs op_transpose(const Node& n, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "data");
    const size_t rank = t.shape.size();
    std::vector<int64_t> perm = ints_attr(n, "perm");
    if (perm.empty())
        for (size_t k = 0; k < rank; ++k) perm.push_back(static_cast<int64_t>(rank - 1 - k));
    if (perm.size() != rank)
        throw ToolError("perm " + shape_text(perm) + " for a tensor of rank " + std::to_string(rank));
    std::vector<bool> seen(rank, false);
    std::vector<int64_t> shape(rank);
    for (size_t k = 0; k < rank; ++k) {
        const size_t p = axis_of(perm[k], rank, "perm");
        if (seen[p]) throw ToolError("perm " + shape_text(perm) + " repeats an axis");
        seen[p] = true;
        shape[k] = t.shape[p];
    }
    const std::vector<size_t> in_strides = strides_of(t.shape);
    std::vector<int64_t> moved(rank);  // the input stride of each output axis
    for (size_t k = 0; k < rank; ++k) moved[k] = static_cast<int64_t>(in_strides[axis_of(perm[k], rank, "perm")]);
    return {gather_elements(t, shape, strided_index(shape, moved, 0))};
}

// Unsqueeze and Squeeze: axes from an input since opset 13, from an attribute before.
std::vector<int64_t> axes_of(const Node& n, const Inputs& x, int64_t opset) {
    if (opset >= 13) {
        const Tensor* a = optional_in(x, 1);
        return a ? int_values(*a, "axes") : std::vector<int64_t>{};
    }
    return ints_attr(n, "axes");
}

Outputs op_unsqueeze(const Node& n, const Inputs& x, int64_t opset) {
    Tensor t = in(x, 0, "data");
    const std::vector<int64_t> axes = axes_of(n, x, opset);
    const size_t rank = t.shape.size() + axes.size();
    std::vector<bool> inserted(rank, false);
    for (int64_t a : axes) {
        const size_t k = axis_of(a, rank, "axes");
        if (inserted[k]) throw ToolError("axes repeat " + std::to_string(a));
        inserted[k] = true;
    }
    std::vector<int64_t> shape;
    size_t from = 0;
    for (size_t k = 0; k < rank; ++k) shape.push_back(inserted[k] ? 1 : t.shape[from++]);
    t.shape = shape;
    return {t};
}

Outputs op_squeeze(const Node& n, const Inputs& x, int64_t opset) {
    Tensor t = in(x, 0, "data");
    const std::vector<int64_t> axes = axes_of(n, x, opset);
    std::vector<bool> drop(t.shape.size(), axes.empty());
    if (axes.empty())
        for (size_t k = 0; k < t.shape.size(); ++k) drop[k] = t.shape[k] == 1;
    for (int64_t a : axes) {
        const size_t k = axis_of(a, t.shape.size(), "axes");
        if (t.shape[k] != 1) throw ToolError("cannot squeeze axis " + std::to_string(a) + " of " + shape_text(t.shape));
        drop[k] = true;
    }
    std::vector<int64_t> shape;
    for (size_t k = 0; k < t.shape.size(); ++k)
        if (!drop[k]) shape.push_back(t.shape[k]);
    t.shape = shape;
    return {t};
}

Outputs op_concat(const Node& n, const Inputs& x, int64_t) {
    const Tensor& first = in(x, 0, "inputs");
    const size_t axis = axis_of(int_attr(n, "axis", 0), first.shape.size(), "axis");
    std::vector<int64_t> shape = first.shape;
    shape[axis] = 0;
    for (size_t k = 0; k < x.size(); ++k) {
        const Tensor& t = in(x, k, "inputs");
        if (t.shape.size() != first.shape.size() || t.is_float() != first.is_float())
            throw ToolError("Concat of " + shape_text(first.shape) + " and " + shape_text(t.shape));
        for (size_t d = 0; d < shape.size(); ++d)
            if (d != axis && t.shape[d] != first.shape[d])
                throw ToolError("Concat of " + shape_text(first.shape) + " and " + shape_text(t.shape));
        shape[axis] += t.shape[axis];
    }
    Tensor out = empty_like_type(first.type, shape);
    size_t outer = 1;
    for (size_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[d]);
    size_t o = 0;
    for (size_t r = 0; r < outer; ++r)
        for (size_t k = 0; k < x.size(); ++k) {
            const size_t block = x[k]->size() / std::max<size_t>(outer, 1);
            for (size_t j = 0; j < block; ++j) copy_element(*x[k], r * block + j, &out, o++);
        }
    return {out};
}

Outputs op_gather(const Node& n, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "data");
    const std::vector<int64_t> idx = int_values(in(x, 1, "indices"), "Gather's indices");
    const std::vector<int64_t>& ishape = x[1]->shape;
    const size_t axis = axis_of(int_attr(n, "axis", 0), t.shape.size(), "axis");
    std::vector<int64_t> shape(t.shape.begin(), t.shape.begin() + static_cast<long>(axis));
    shape.insert(shape.end(), ishape.begin(), ishape.end());
    shape.insert(shape.end(), t.shape.begin() + static_cast<long>(axis) + 1, t.shape.end());
    size_t outer = 1, inner = 1;
    for (size_t d = 0; d < t.shape.size(); ++d)
        if (d < axis)
            outer *= static_cast<size_t>(t.shape[d]);
        else if (d > axis)
            inner *= static_cast<size_t>(t.shape[d]);
    const int64_t len = t.shape[axis];
    Tensor out = empty_like_type(t.type, shape);
    size_t o = 0;
    for (size_t r = 0; r < outer; ++r)
        for (int64_t i : idx) {
            if (i < -len || i >= len)
                throw ToolError("index " + std::to_string(i) + " outside an axis of " + std::to_string(len));
            const size_t row = static_cast<size_t>(i < 0 ? i + len : i);
            for (size_t j = 0; j < inner; ++j)
                copy_element(t, (r * static_cast<size_t>(len) + row) * inner + j, &out, o++);
        }
    return {out};
}

Outputs op_slice(const Node& n, const Inputs& x, int64_t opset) {
    const Tensor& t = in(x, 0, "data");
    std::vector<int64_t> starts, ends, axes, steps;
    if (opset < 10) {
        starts = ints_attr(n, "starts");
        ends = ints_attr(n, "ends");
        axes = ints_attr(n, "axes");
    } else {
        starts = int_values(in(x, 1, "starts"), "starts");
        ends = int_values(in(x, 2, "ends"), "ends");
        if (const Tensor* a = optional_in(x, 3)) axes = int_values(*a, "axes");
        if (const Tensor* s = optional_in(x, 4)) steps = int_values(*s, "steps");
    }
    if (axes.empty())
        for (size_t k = 0; k < starts.size(); ++k) axes.push_back(static_cast<int64_t>(k));
    if (steps.empty()) steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        throw ToolError("starts, ends, axes and steps of different lengths");
    const size_t rank = t.shape.size();
    std::vector<int64_t> first(rank, 0), step(rank, 1), shape = t.shape;
    for (size_t k = 0; k < starts.size(); ++k) {
        const size_t a = axis_of(axes[k], rank, "axes");
        const int64_t d = t.shape[a], s = steps[k];
        if (s == 0) throw ToolError("a step of 0");
        int64_t b = starts[k], e = ends[k];
        if (b < 0) b += d;
        if (e < 0 && e > INT64_MIN + d) e += d;
        if (s > 0) {
            b = std::clamp<int64_t>(b, 0, d);
            e = std::clamp<int64_t>(e, 0, d);
            shape[a] = e > b ? (e - b + s - 1) / s : 0;
        } else {
            b = std::clamp<int64_t>(b, -1, d - 1);
            e = std::clamp<int64_t>(e, -1, d - 1);
            shape[a] = b > e ? (b - e - s - 1) / -s : 0;
        }
        first[a] = b;
        step[a] = s;
    }
    const std::vector<size_t> st = strides_of(t.shape);
    std::vector<int64_t> strides(rank);
    int64_t base = 0;
    for (size_t k = 0; k < rank; ++k) {
        strides[k] = step[k] * static_cast<int64_t>(st[k]);
        base += first[k] * static_cast<int64_t>(st[k]);
    }
    return {gather_elements(t, shape, strided_index(shape, strides, base))};
}

Outputs op_split(const Node& n, const Inputs& x, int64_t opset) {
    const Tensor& t = in(x, 0, "input");
    const size_t axis = axis_of(int_attr(n, "axis", 0), t.shape.size(), "axis");
    std::vector<int64_t> sizes;
    if (opset >= 13) {
        if (const Tensor* s = optional_in(x, 1)) sizes = int_values(*s, "split");
    } else {
        sizes = ints_attr(n, "split");
    }
    const int64_t d = t.shape[axis];
    const size_t parts = n.outputs.size();
    if (sizes.empty()) {
        const int64_t p = static_cast<int64_t>(parts);
        const int64_t each = (d + p - 1) / p;  // the last part is smaller when d does not divide
        for (int64_t k = 0, left = d; k < p; ++k, left -= each)
            sizes.push_back(std::min(each, std::max<int64_t>(left, 0)));
    }
    if (sizes.size() != parts || std::accumulate(sizes.begin(), sizes.end(), int64_t{0}) != d)
        throw ToolError("split sizes " + shape_text(sizes) + " for an axis of " + std::to_string(d) + " into " +
                        std::to_string(parts) + " outputs");
    Outputs outs;
    int64_t at = 0;
    for (int64_t s : sizes) {
        const Tensor starts = make_int({1}, {at}), ends = make_int({1}, {at + s}),
                     axes = make_int({1}, {static_cast<int64_t>(axis)});
        Node slice;
        outs.push_back(op_slice(slice, {&t, &starts, &ends, &axes}, 13)[0]);
        at += s;
    }
    return outs;
}

Outputs op_expand(const Node&, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "input");
    const std::vector<int64_t> shape = broadcast_shapes(t.shape, int_values(in(x, 1, "shape"), "Expand's shape"));
    return {gather_elements(t, shape, broadcast_index(t.shape, shape))};
}

Outputs op_tile(const Node&, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "input");
    const std::vector<int64_t> reps = int_values(in(x, 1, "repeats"), "Tile's repeats");
    if (reps.size() != t.shape.size()) throw ToolError("repeats " + shape_text(reps) + " for " + shape_text(t.shape));
    std::vector<int64_t> shape = t.shape;
    for (size_t k = 0; k < shape.size(); ++k)
        if (reps[k] < 0 || __builtin_mul_overflow(shape[k], reps[k], &shape[k]))
            throw ToolError("Tile's repeats " + shape_text(reps) + " for " + shape_text(t.shape));
    Tensor out = empty_like_type(t.type, shape);
    const std::vector<size_t> st = strides_of(t.shape);
    std::vector<int64_t> counter(shape.size(), 0);
    for (size_t o = 0; o < out.size(); ++o) {
        size_t at = 0;
        for (size_t k = 0; k < shape.size(); ++k) at += static_cast<size_t>(counter[k] % t.shape[k]) * st[k];
        copy_element(t, at, &out, o);
        for (size_t k = shape.size(); k-- > 0;) {
            if (++counter[k] < shape[k]) break;
            counter[k] = 0;
        }
    }
    return {out};
}

Outputs op_constant_of_shape(const Node& n, const Inputs& x, int64_t) {
    const std::vector<int64_t> shape = int_values(in(x, 0, "input"), "ConstantOfShape's shape");
    const Attribute* a = n.attribute("value");
    Tensor value = a && a->t ? *a->t : make_float({1}, {0.0f});
    if (value.size() != 1) throw ToolError("ConstantOfShape's value must hold one element");
    Tensor out = empty_like_type(value.type, shape);
    for (size_t k = 0; k < out.size(); ++k) copy_element(value, 0, &out, k);
    return {out};
}

Outputs op_range(const Node&, const Inputs& x, int64_t) {
    const Tensor &start = in(x, 0, "start"), &limit = in(x, 1, "limit"), &delta = in(x, 2, "delta");
    if (start.size() != 1 || limit.size() != 1 || delta.size() != 1) throw ToolError("Range takes scalars");
    const double s = start.real(0), l = limit.real(0), d = delta.real(0);
    if (d == 0) throw ToolError("Range with a delta of 0");
    const double count = std::max(std::ceil((l - s) / d), 0.0);
    if (count > static_cast<double>(kMaxElements)) throw ToolError("Range of more than 2^26 values");
    Tensor out = empty_like_type(start.type, {static_cast<int64_t>(count)});
    for (size_t k = 0; k < out.size(); ++k) {
        if (out.is_float())
            out.f[k] = static_cast<float>(s + static_cast<double>(k) * d);
        else if (__builtin_mul_overflow(static_cast<int64_t>(k), delta.i[0], &out.i[k]) ||
                 __builtin_add_overflow(out.i[k], start.i[0], &out.i[k]))
            throw ToolError("Range past the integers of its type");
    }
    return {out};
}

// Dropout at inference: the input, and an all-true mask when one is asked for.
Outputs op_dropout(const Node& n, const Inputs& x, int64_t) {
    const Tensor& t = in(x, 0, "data");
    if (const Tensor* training = optional_in(x, 2))
        if (training->size() == 1 && training->integer(0) != 0) throw ToolError("Dropout in training mode");
    Outputs outs{t};
    if (n.outputs.size() > 1) {
        Tensor mask = empty_like_type(DataType::boolean, t.shape);
        std::fill(mask.i.begin(), mask.i.end(), 1);
        outs.push_back(mask);
    }
    return outs;
}

// Trilu: the upper (default) or lower triangle of the last two axes, from diagonal k.
Outputs op_trilu(const Node& n, const Inputs& x, int64_t) {
    Tensor t = in(x, 0, "input");
    if (t.shape.size() < 2) throw ToolError("Trilu of a tensor of rank below 2");
    int64_t k = 0;
    if (const Tensor* kt = optional_in(x, 1)) k = kt->integer(0);
    const bool upper = int_attr(n, "upper", 1) != 0;
    const int64_t rows = t.shape[t.shape.size() - 2], cols = t.shape.back();
    for (size_t at = 0; at < t.size(); ++at) {
        const int64_t c = static_cast<int64_t>(at) % cols, r = (static_cast<int64_t>(at) / cols) % rows;
        const bool keep = upper ? c - r >= k : c - r <= k;
        if (keep) continue;
        if (t.is_float())
            t.f[at] = 0.0f;
        else
            t.i[at] = 0;
    }
    return {t};
}

}  // namespace

namespace ops {

const Entry kShapeOps[] = {
    {"Identity", op_identity},
    {"Constant", op_constant},
    {"Shape", op_shape},
    {"Size", op_size},
    {"Cast", op_cast},
    {"Reshape", op_reshape},
    {"Flatten", op_flatten},
    {"Transpose", op_transpose},
    {"Unsqueeze", op_unsqueeze},
    {"Squeeze", op_squeeze},
    {"Concat", op_concat},
    {"Gather", op_gather},
    {"Slice", op_slice},
    {"Split", op_split},
    {"Expand", op_expand},
    {"Tile", op_tile},
    {"ConstantOfShape", op_constant_of_shape},
    {"Range", op_range},
    {"Dropout", op_dropout},
    {"Trilu", op_trilu},
    {nullptr, nullptr},
};

}  // namespace ops

}  // namespace ax::onnx
