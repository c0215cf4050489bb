#include "runtime/tensor_binding.h"

namespace ax {

namespace {

using format::DType;
using format::Role;

Status describe(Status s, Role role, uint16_t layer) {
    s.add(format::role_name(role));
    if (layer != format::kNoLayer) s.add(" (layer ").add(layer).add(")");
    return s;
}

Status shape_error(const TensorView& v, size_t expect0, size_t expect1) {
    Status s = describe(Status::error(StatusCode::bad_model, "tensor "), v.role, v.layer);
    s.add(" has shape [");
    for (uint32_t d = 0; d < v.rank; ++d) s.add(d ? ", " : "").add(v.dims[d]);
    s.add("], the model's config needs [").add(expect0);
    if (expect1) s.add(", ").add(expect1);
    return s.add("]");
}

}  // namespace

Status TensorBinder::find(Role role, uint16_t layer, TensorView* view) {
    if (!file_.find(role, layer, view))
        return describe(Status::error(StatusCode::bad_model, "missing tensor "), role, layer);
    ++bound_;
    return Status::ok();
}

Status TensorBinder::matrix(Role role, uint16_t layer, size_t rows, size_t cols, TensorView* view) {
    AX_RETURN_IF_ERROR(find(role, layer, view));
    if (view->rank != 2 || view->dims[0] != rows || view->dims[1] != cols) return shape_error(*view, rows, cols);
    if (view->dtype == DType::i32)
        return describe(Status::error(StatusCode::bad_model, "tensor "), role, layer).add(" must be f32, f16 or int8");
    return Status::ok();
}

Status TensorBinder::vector(Role role, uint16_t layer, size_t n, const float** result) {
    TensorView v;
    AX_RETURN_IF_ERROR(find(role, layer, &v));
    if (v.rank != 1 || v.dims[0] != n) return shape_error(v, n, 0);
    if (v.dtype != DType::f32)
        return describe(Status::error(StatusCode::bad_model, "tensor "), role, layer).add(" must be float32");
    *result = static_cast<const float*>(v.data);
    return Status::ok();
}

Status TensorBinder::words(Role role, uint16_t layer, const int32_t** result, size_t* count) {
    TensorView v;
    AX_RETURN_IF_ERROR(find(role, layer, &v));
    if (v.rank != 1 || v.dtype != DType::i32)
        return describe(Status::error(StatusCode::bad_model, "tensor "), role, layer).add(" must be an int32 vector");
    *result = static_cast<const int32_t*>(v.data);
    *count = v.dims[0];
    return Status::ok();
}

Status TensorBinder::vocabulary(Role role, size_t size, Vocabulary* result) {
    AX_RETURN_IF_ERROR(Vocabulary::open(file_, role, size, result));
    if (result->present()) ++bound_;
    return Status::ok();
}

bool TensorBinder::has_int8_matrices() {
    if (int8_matrices_ < 0) {
        int8_matrices_ = 0;
        for (uint32_t i = 0; i < file_.tensor_count() && int8_matrices_ == 0; ++i) {
            const TensorView v = file_.tensor(i);
            if (v.rank == 2 && format::dtype_takes_int8_rows(v.dtype)) int8_matrices_ = 1;
        }
    }
    return int8_matrices_ == 1;
}

Status TensorBinder::linear(Role weight, Role bias, uint16_t layer, size_t out, size_t in, Linear* result) {
    Linear l;
    AX_RETURN_IF_ERROR(linear_no_bias(weight, layer, out, in, &l));
    AX_RETURN_IF_ERROR(vector(bias, layer, out, &l.bias));
    *result = l;
    return Status::ok();
}

Status TensorBinder::linear_no_bias(Role weight, uint16_t layer, size_t out, size_t in, Linear* result) {
    TensorView v;
    AX_RETURN_IF_ERROR(matrix(weight, layer, out, in, &v));
    Linear l;
    l.dtype = v.dtype;
    l.weight = v.data;
    if (v.dtype == DType::i4)
        l.group_scales = v.group_scales;
    else
        l.scales = v.scales;
    l.in = in;
    l.out = out;
    l.fixed_order = v.dtype == DType::f32 && has_int8_matrices();
    *result = l;
    return Status::ok();
}

Status TensorBinder::table_f32(Role role, uint16_t layer, size_t rows, size_t cols, const float** result) {
    TensorView v;
    AX_RETURN_IF_ERROR(matrix(role, layer, rows, cols, &v));
    if (v.dtype != DType::f32)
        return describe(Status::error(StatusCode::bad_model, "tensor "), role, layer).add(" must be float32");
    *result = static_cast<const float*>(v.data);
    return Status::ok();
}

Status TensorBinder::layer_norm(Role gamma, Role beta, uint16_t layer, size_t n, LayerNormWeights* result) {
    AX_RETURN_IF_ERROR(vector(gamma, layer, n, &result->gamma));
    return vector(beta, layer, n, &result->beta);
}

Status TensorBinder::attention(Role in_w, uint16_t layer, size_t d, size_t values, AttentionWeights* result) {
    // The four roles of one attention are consecutive: in weight, in bias, out weight, out bias.
    const auto r = [in_w](int k) { return static_cast<Role>(static_cast<uint16_t>(in_w) + k); };
    AX_RETURN_IF_ERROR(linear(r(0), r(1), layer, 2 * d + values, d, &result->in_proj));
    return linear(r(2), r(3), layer, d, values, &result->out_proj);
}

Status TensorBinder::embedding(Role role, uint16_t layer, size_t rows, size_t dim, EmbeddingTable* result) {
    TensorView v;
    AX_RETURN_IF_ERROR(matrix(role, layer, rows, dim, &v));
    if (v.dtype == DType::i4)
        return describe(Status::error(StatusCode::bad_model, "tensor "), role, layer)
            .add(" is a lookup table stored as int4, which holds Linear weights only (f32, f16 or int8 here)");
    EmbeddingTable t;
    t.dtype = v.dtype;
    t.data = v.data;
    t.scales = v.scales;
    t.rows = rows;
    t.dim = dim;
    *result = t;
    return Status::ok();
}

Status TensorBinder::check_all_used() const {
    if (bound_ == file_.tensor_count()) return Status::ok();
    return Status::error(StatusCode::bad_model, "the model holds ")
        .add(file_.tensor_count() - bound_)
        .add(" tensor(s) its family and config do not use (e.g. a layer beyond the layer count)");
}

}  // namespace ax
