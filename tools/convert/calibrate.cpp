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
};

// The kernel table's function pointers take no context, so the recording linear_f32 finds its state
// here. Host tools only, one calibration at a time.
struct Recorder {
    std::vector<WeightRange> ranges;  // sorted by begin
    std::vector<float> absmax;        // per tensor index
    const Kernels* inner = nullptr;
};
Recorder* g_recorder = nullptr;

void recording_linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out,
                          float* y) {
    Recorder& r = *g_recorder;
    auto it = std::upper_bound(r.ranges.begin(), r.ranges.end(), w,
                               [](const float* p, const WeightRange& range) { return p < range.begin; });
    if (it != r.ranges.begin() && w < (it - 1)->end) {
        float& m = r.absmax[(it - 1)->tensor];
        for (size_t i = 0; i < rows * in; ++i) m = std::max(m, std::fabs(x[i]));
    }
    r.inner->linear_f32(x, rows, in, w, bias, out, y);
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
    if (c.n_outputs != c.n_features) throw ToolError("calibration forecasts, which needs n_outputs == n_features");
    const size_t wanted = options.window ? options.window : default_window(c);
    check_window_fits(c, wanted, "--calib-window " + std::to_string(wanted));
    check_horizon_fits(c, options.horizon, "--calib-horizon " + std::to_string(options.horizon));
    const size_t window = std::min(wanted, data.rows);
    const size_t horizon = options.horizon;
    if (window == 0 || horizon == 0) throw ToolError("calibration window and horizon must be at least 1");

    Recorder recorder;
    recorder.absmax.assign(model.tensors.size(), 0.0f);
    for (uint32_t i = 0; i < loaded->file.tensor_count(); ++i) {
        const TensorView v = loaded->file.tensor(i);  // table order is model.tensors' order
        if (v.rank != 2) continue;
        const float* begin = static_cast<const float*>(v.data);
        recorder.ranges.push_back({begin, begin + v.numel, i});
    }
    std::sort(recorder.ranges.begin(), recorder.ranges.end(),
              [](const WeightRange& a, const WeightRange& b) { return a.begin < b.begin; });
    // Generic float kernels: calibration describes the model, not a port.
    recorder.inner = &generic_kernels();
    Kernels kernels = *recorder.inner;
    kernels.linear_f32 = recording_linear_f32;

    g_recorder = &recorder;
    size_t windows = 0;
    try {
        HostSession session(*loaded, kernels, window, horizon);
        // A decoder reading inputs known ahead takes them from the rows after the window.
        const bool known = loaded->as<Forecaster>().config().known_inputs != 0;
        for (size_t start = 0; start + window + (known ? horizon - 1 : 0) <= data.rows; start += horizon) {
            const float* rows = data.values.data() + start * data.cols;
            session.forecast(rows, window, horizon, rows + window * data.cols, data.rows - start - window);
            ++windows;
        }
    } catch (...) {
        g_recorder = nullptr;
        throw;
    }
    g_recorder = nullptr;
    for (size_t i = 0; i < model.tensors.size(); ++i)
        if (model.tensors[i].dims.size() == 2) model.tensors[i].input_absmax = recorder.absmax[i];
    return windows;
}

}  // namespace ax::tools
