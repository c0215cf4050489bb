#include "tools/convert/calibrate.h"

#include <algorithm>
#include <cmath>

#include "ports/ports.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

// Which tensor a weight pointer handed to linear_f32 lies in (slices of a packed in_proj point inside it).
struct WeightRange {
    const float* begin;
    const float* end;
    size_t tensor;
    size_t part_rows;  // rows per part: a packed in_proj's query rows (the values from part 2 on), else all
};

float absmax_of(const float* x, size_t n, float m) {
    for (size_t i = 0; i < n; ++i) m = std::max(m, std::fabs(x[i]));
    return m;
}

// The range holding p, or nullptr.
const WeightRange* range_of(const std::vector<WeightRange>& ranges, const float* p) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), p,
                               [](const float* q, const WeightRange& range) { return q < range.begin; });
    if (it != ranges.begin() && p < (it - 1)->end) return &*(it - 1);
    return nullptr;
}

// The kernel table's function pointers take no context, so the recording linear_f32 finds its state
// here. Host tools only, one calibration at a time.
struct Recorder {
    std::vector<WeightRange> ranges;  // sorted by begin
    std::vector<WeightRange> norms;   // LayerNorm weights, sorted by begin
    std::vector<float> absmax;        // per tensor index
    ActivationRanges activations;
    const Kernels* inner = nullptr;
};
Recorder* g_recorder = nullptr;

void recording_linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out,
                          float* y, size_t ldy) {
    Recorder& r = *g_recorder;
    const WeightRange* range = range_of(r.ranges, w);
    r.inner->linear_f32(x, rows, in, w, bias, out, y, ldy);
    if (range == nullptr) return;
    const size_t t = range->tensor;
    const size_t part = std::min<size_t>(2, static_cast<size_t>(w - range->begin) / in / range->part_rows);
    r.absmax[t] = absmax_of(x, rows * in, r.absmax[t]);
    r.activations.input[t][part] = absmax_of(x, rows * in, r.activations.input[t][part]);
    for (size_t row = 0; row < rows; ++row)
        r.activations.output[t][part] = absmax_of(y + row * ldy, out, r.activations.output[t][part]);
}

void recording_layer_norm_f32(const float* x, size_t n, const float* gamma, const float* beta, float eps, float* y) {
    Recorder& r = *g_recorder;
    r.inner->layer_norm_f32(x, n, gamma, beta, eps, y);
    const WeightRange* range = range_of(r.norms, gamma);
    if (range == nullptr) return;
    float& in = r.activations.norm_input[range->tensor];
    float& out = r.activations.norm_output[range->tensor];
    in = absmax_of(x, n, in);  // before y: y may be x
    out = absmax_of(y, n, out);
}

bool is_packed_in_proj(format::Role role) {
    return role == format::Role::enc_attn_in_weight || role == format::Role::dec_attn_in_weight ||
           role == format::Role::dec_cross_in_weight;
}

bool is_norm_weight(format::Role role) {
    using format::Role;
    for (Role r : {Role::encoder_norm_weight, Role::decoder_norm_weight, Role::enc_norm1_weight, Role::enc_norm2_weight,
                   Role::dec_norm1_weight, Role::dec_norm2_weight, Role::dec_norm3_weight})
        if (role == r) return true;
    return false;
}

}  // namespace

size_t calibrate(AxmModel& model, const Table& data, const CalibrationOptions& options) {
    if (model.family != format::Family::forecaster)
        throw ToolError("--calib takes a forecaster (it runs forecasts over a CSV); this model is a " +
                        std::string(family_name(model.family)));
    for (const AxmTensor& t : model.tensors)
        if (t.dtype != format::DType::f32) throw ToolError("internal error: calibration needs the float32 model");
    const std::unique_ptr<LoadedModel> loaded = load_model_bytes(serialize_axm(model), "calibration model");
    const ForecasterConfig& c = loaded->as<Forecaster>().config();
    if (data.cols != c.n_features)
        throw ToolError("calibration data has " + std::to_string(data.cols) + " columns, the model reads " +
                        std::to_string(c.n_features) + " features");
    const size_t wanted = options.window ? options.window : default_window(c);
    check_window_fits(c, wanted, "--calib-window " + std::to_string(wanted));
    check_horizon_fits(c, options.horizon, "--calib-horizon " + std::to_string(options.horizon));
    const size_t window = std::min(wanted, data.rows);
    const size_t horizon = options.horizon;
    if (window == 0 || horizon == 0) throw ToolError("calibration window and horizon must be at least 1");

    Recorder recorder;
    recorder.absmax.assign(model.tensors.size(), 0.0f);
    recorder.activations.input.assign(model.tensors.size(), {0.0f, 0.0f, 0.0f});
    recorder.activations.output = recorder.activations.input;
    recorder.activations.norm_input.assign(model.tensors.size(), 0.0f);
    recorder.activations.norm_output.assign(model.tensors.size(), 0.0f);
    for (uint32_t i = 0; i < loaded->file.tensor_count(); ++i) {
        const TensorView v = loaded->file.tensor(i);  // table order is model.tensors' order
        const float* begin = static_cast<const float*>(v.data);
        if (v.rank == 2) {
            // A packed in_proj's queries and keys: d_model rows each (a third of T5's), its values the rest.
            const size_t part_rows = !is_packed_in_proj(v.role)               ? v.dims[0]
                                     : c.stacks.kind == format::LayerKind::t5 ? v.dims[0] / 3
                                                                              : v.dims[1];
            recorder.ranges.push_back({begin, begin + v.numel, i, part_rows});
        } else if (v.rank == 1 && is_norm_weight(v.role)) {
            recorder.norms.push_back({begin, begin + v.numel, i, 1});
        }
    }
    const auto by_begin = [](const WeightRange& a, const WeightRange& b) { return a.begin < b.begin; };
    std::sort(recorder.ranges.begin(), recorder.ranges.end(), by_begin);
    std::sort(recorder.norms.begin(), recorder.norms.end(), by_begin);
    // Generic float kernels: calibration describes the model, not a port.
    recorder.inner = &generic_kernels();
    Kernels kernels = *recorder.inner;
    kernels.linear_f32 = recording_linear_f32;
    kernels.layer_norm_f32 = recording_layer_norm_f32;

    g_recorder = &recorder;
    size_t windows = 0;
    try {
        HostSession session(*loaded, kernels, window, horizon);
        // A decoder reading inputs known ahead (a covariate model's plan and calendar) takes them from the rows
        // after the window, as they were logged.
        const size_t future = loaded->as<Forecaster>().future_rows(horizon);
        for (size_t start = 0; start + window + future <= data.rows; start += horizon) {
            const float* rows = data.values.data() + start * data.cols;
            session.forecast(rows, window, horizon, rows + window * data.cols, data.rows - start - window);
            ++windows;
        }
    } catch (...) {
        g_recorder = nullptr;
        throw;
    }
    g_recorder = nullptr;
    const size_t future = loaded->as<Forecaster>().future_rows(horizon);
    if (windows == 0)
        throw ToolError("calibration data has " + std::to_string(data.rows) + " rows, fewer than one window of " +
                        std::to_string(window) + " rows" +
                        (future ? " and the " + std::to_string(future) + " rows of known inputs after it" : "") +
                        ": give more rows, or a shorter --calib-window / --calib-horizon");
    for (size_t i = 0; i < model.tensors.size(); ++i)
        if (model.tensors[i].dims.size() == 2) model.tensors[i].input_absmax = recorder.absmax[i];
    if (options.ranges != nullptr) *options.ranges = recorder.activations;
    return windows;
}

}  // namespace ax::tools
