#include "models/forecaster/normalizer_block.h"

#include <cmath>

#include "models/forecaster/forecaster.h"
#include "runtime/config_reader.h"
#include "runtime/session_checks.h"

namespace ax {

using format::ConfigKey;

Status NormalizerBlock::read(const ConfigRecords& f) {
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::normalization, &kind));
    uint32_t v = 0;
    if (f.config(ConfigKey::revin, &v)) AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::revin, &revin));
    if (f.config(ConfigKey::revin_eps, &v))
        AX_RETURN_IF_ERROR(read_config_positive_float(f, ConfigKey::revin_eps, &revin_eps));
    size_t last = 0;
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::subtract_last, 0, 1, 0, &last));
    subtract_last = last != 0;
    return Status::ok();
}

Status NormalizerBlock::check(const ForecasterConfig& c) const {
    // Each output is de-normalized with the scale of the input column it predicts.
    if (stored() && c.n_outputs > c.n_features)
        return bad_model_config(
            "normalization scales each output as the input column it predicts, but the model gives more outputs "
            "than it reads input columns: normalize in your own code and convert without \"normalization\"");
    if (revin_on() && (c.n_outputs != c.n_features || stored() || !c.one_pass()))
        return Status::error(StatusCode::bad_model,
                             "RevIN needs a one-pass model with n_outputs == n_features and no other normalization");
    if (instance() && (revin_on() || c.stacks.kind != format::LayerKind::t5))
        return bad_model_config("normalization instance is Chronos-Bolt's: it needs t5 layers and no RevIN");
    if (subtract_last && !revin_on())
        return bad_model_config("subtract_last is RevIN's option: the model has no RevIN");
    return Status::ok();
}

void NormalizerBlock::write(ConfigWriter& out) const {
    out.put_enum(ConfigKey::normalization, kind);
    if (revin_on()) out.put_enum(ConfigKey::revin, revin);
    if (revin_eps != 1e-5f) out.put_float(ConfigKey::revin_eps, revin_eps);
    if (subtract_last) out.put(ConfigKey::subtract_last, 1u);
}

Status NormalizerWeights::bind(TensorBinder& b, const ForecasterConfig& c) {
    const NormalizerBlock& block = c.normalizer;
    const uint16_t none = format::kNoLayer;
    if (block.revin == format::Revin::affine) {
        AX_RETURN_IF_ERROR(b.vector(format::Role::revin_weight, none, c.n_features, &revin_weight));
        AX_RETURN_IF_ERROR(b.vector(format::Role::revin_bias, none, c.n_features, &revin_bias));
    }
    if (block.kind == format::Normalization::global)
        AX_RETURN_IF_ERROR(b.vector(format::Role::input_mean, none, c.n_features, &mean));
    if (block.stored()) {
        AX_RETURN_IF_ERROR(b.vector(format::Role::input_scale, none, c.n_features, &scale));
        for (size_t i = 0; i < c.n_features; ++i)
            if (!(scale[i] != 0.0f) || !std::isfinite(scale[i]))
                return bad_model_config("normalization scale must be finite and non-zero");
    }
    return Status::ok();
}

void NormalizerState::allocate(MemoryPlan& plan, const ForecasterConfig& c) {
    reference = plan.alloc_session<float>("last observed row", c.n_features);
    if (c.normalizer.revin_on()) revin_stats = plan.alloc_session<float>("RevIN mean and std", 2 * c.n_features);
}

namespace {

// The stored normalization's offsets: the stored mean, or the window's last row.
const float* offsets(const Forecaster& m, const NormalizerState& s) {
    return m.config().normalizer.kind == format::Normalization::global ? m.input_mean() : s.reference;
}

}  // namespace

// Normalization is per input column: an output and a decoder column take the mean (or last observed value)
// and scale of the input column they are (output_column, decoder_column), so a model that predicts some of
// its features is scaled as its author's loop scales them.
float to_model_units(const Forecaster& m, const NormalizerState& s, float v, size_t column) {
    return (v - offsets(m, s)[column]) / m.input_scale()[column];
}

void normalize_rows(const Forecaster& m, const NormalizerState& s, const float* x, size_t rows, float* z) {
    const size_t n = m.config().n_features;
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < n; ++i) z[r * n + i] = to_model_units(m, s, x[r * n + i], i);
}

void normalize_decoder_rows(const Forecaster& m, const NormalizerState& s, const float* x, size_t rows, float* z) {
    const size_t cols = m.config().decoder_features;
    for (size_t j = 0; j < cols; ++j) {
        const size_t column = m.decoder_column(j);
        for (size_t r = 0; r < rows; ++r) z[r * cols + j] = to_model_units(m, s, x[r * cols + j], column);
    }
}

void denormalize_outputs(const Forecaster& m, const NormalizerState& s, float* y, size_t rows) {
    const size_t o = m.config().n_outputs;
    const float* offset = offsets(m, s);
    const float* scale = m.input_scale();
    for (size_t i = 0; i < o; ++i) {
        const size_t column = m.output_column(i);
        for (size_t r = 0; r < rows; ++r) y[r * o + i] = y[r * o + i] * scale[column] + offset[column];
    }
}

void revin_normalize(const Forecaster& m, NormalizerState& s, const float* x, size_t rows, float* z) {
    const ForecasterConfig& c = m.config();
    const NormalizerWeights& w = m.normalizer();
    const size_t n = c.n_features;
    for (size_t i = 0; i < n; ++i) {
        float sum = 0.0f;
        for (size_t r = 0; r < rows; ++r) sum += x[r * n + i];
        const float mean = sum / static_cast<float>(rows);
        float squares = 0.0f;
        for (size_t r = 0; r < rows; ++r) squares += (x[r * n + i] - mean) * (x[r * n + i] - mean);
        const float stdev = std::sqrt(squares / static_cast<float>(rows) + c.normalizer.revin_eps);
        // The offset taken out and added back: the mean, or the last value (subtract_last).
        const float offset = c.normalizer.subtract_last ? x[(rows - 1) * n + i] : mean;
        s.revin_stats[i] = offset;
        s.revin_stats[n + i] = stdev;
        for (size_t r = 0; r < rows; ++r) {
            float v = (x[r * n + i] - offset) / stdev;
            if (c.normalizer.revin == format::Revin::affine) v = v * w.revin_weight[i] + w.revin_bias[i];
            z[r * n + i] = v;
        }
    }
}

void revin_denormalize(const Forecaster& m, const NormalizerState& s, float* y, size_t rows) {
    const ForecasterConfig& c = m.config();
    const NormalizerWeights& w = m.normalizer();
    const size_t n = c.n_features;
    const float eps = c.normalizer.revin_eps;
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < n; ++i) {
            float v = y[r * n + i];
            if (c.normalizer.revin == format::Revin::affine)
                v = (v - w.revin_bias[i]) / (w.revin_weight[i] + eps * eps);
            y[r * n + i] = v * s.revin_stats[n + i] + s.revin_stats[i];
        }
}

}  // namespace ax
