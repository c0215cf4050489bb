#include "models/forecaster/forecaster.h"

#include <cmath>
#include <cstring>
#include <new>

#include "runtime/memory_plan.h"
#include "runtime/session_checks.h"
#include "runtime/session_plan.h"
#include "runtime/bytes.h"
#include "runtime/positional_encoding.h"
#include "runtime/tensor_binding.h"

namespace ax {

namespace {

using format::ConfigKey;
using format::Role;

}  // namespace

Status read_forecaster_config(const ModelFile& f, ForecasterConfig* out) {
    if (f.family() != format::Family::forecaster) return bad_model_config("not a forecaster model");
    ForecasterConfig c;
    AX_RETURN_IF_ERROR(read_stack_config(f, 1, &c.stack));
    const size_t d = c.stack.layer.d_model;
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::n_features, "n_features", 1, kMaxModelWidth, &c.n_features));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::n_outputs, "n_outputs", 1, kMaxModelWidth, &c.n_outputs));
    AX_RETURN_IF_ERROR(read_config_feature_positions(f, d, &c.positional_encoding));
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::memory_mask, "memory_mask", &c.memory_mask));
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::normalization, "normalization", &c.normalization));
    if (c.normalization != format::Normalization::none && c.n_outputs != c.n_features)
        return bad_model_config("input normalization needs n_outputs == n_features");
    // Both keys are younger than the family: files without them have no limit and no stated window.
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::max_positions, "max_positions", 0, kMaxSequenceLength, 0,
                                                 &c.max_positions));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::window, "window", 0, kMaxSequenceLength, 0, &c.window));
    if (c.max_positions != 0 && c.window > c.max_positions)
        return bad_model_config("config window is longer than max_positions");
    *out = c;
    return Status::ok();
}

Status Forecaster::open(const ModelFile& file, Forecaster* out) {
    Forecaster m;
    m.file_ = &file;
    AX_RETURN_IF_ERROR(read_forecaster_config(file, &m.config_));
    const ForecasterConfig& c = m.config_;
    const size_t d = c.stack.layer.d_model;
    TensorBinder b(file);
    const uint16_t none = format::kNoLayer;
    AX_RETURN_IF_ERROR(b.linear(Role::src_embed_weight, Role::src_embed_bias, none, d, c.n_features, &m.src_embed_));
    AX_RETURN_IF_ERROR(b.linear(Role::tgt_embed_weight, Role::tgt_embed_bias, none, d, c.n_features, &m.tgt_embed_));
    AX_RETURN_IF_ERROR(b.linear(Role::generator_weight, Role::generator_bias, none, c.n_outputs, d, &m.generator_));
    if (c.normalization == format::Normalization::global)
        AX_RETURN_IF_ERROR(b.vector(Role::input_mean, none, c.n_features, &m.input_mean_));
    if (c.normalization != format::Normalization::none) {
        AX_RETURN_IF_ERROR(b.vector(Role::input_scale, none, c.n_features, &m.input_scale_));
        for (size_t i = 0; i < c.n_features; ++i)
            if (!(m.input_scale_[i] != 0.0f) || !std::isfinite(m.input_scale_[i]))
                return bad_model_config("normalization scale must be finite and non-zero");
    }
    AX_RETURN_IF_ERROR(bind_stack(b, c.stack, &m.encoder_norm_, &m.decoder_norm_));
    AX_RETURN_IF_ERROR(b.check_all_used());
    *out = m;
    return Status::ok();
}

// The one description of a session's memory and the phases each buffer is live in: planned once to count
// (MemoryPlan without memory), then placed over the caller's arena by the same calls.
void ForecastLayout::allocate(MemoryPlan& plan, const ForecasterConfig& c, size_t max_window, size_t max_horizon) {
    const size_t d = c.stack.layer.d_model;
    const size_t n = c.n_features;
    const bool tril = c.memory_mask == format::MemoryMask::tril;
    stack.allocate(plan, c.stack, max_horizon, max_window, tril);
    // The encoder output lives until every decoder layer has its cross-attention keys and values.
    memory = plan.alloc<float>("encoder rows / memory", uint64_t{max_window} * d, Phase::encode, Phase::prepare);
    dec_x = plan.alloc<float>("decoder rows", row_tile(c.stack.layer) * d, Phase::decode, Phase::decode);
    src_z = plan.alloc<float>("normalized window", uint64_t{max_window} * n, Phase::encode, Phase::encode);
    // Written before encoding, read by the decoder.
    tgt_z = plan.alloc_session<float>("decoder inputs", (uint64_t{max_horizon} + 1) * n);
    reference = plan.alloc_session<float>("last observed row", n);
    // int8 input embeddings read rows of n_features values.
    encoder_scratch.allocate(plan, c.stack.layer, max_window, max_window, n, Phase::encode, Phase::encode);
    const size_t keys = max_horizon > max_window ? max_horizon : max_window;
    decoder_scratch.allocate(plan, c.stack.layer, 0, keys, n, Phase::prepare, Phase::decode);
}

bool plan_forecaster_arena(const ForecasterConfig& config, size_t max_window, size_t max_horizon, MemoryPlan* plan) {
    return plan_session<ForecastLayout>(config, plan, max_window, max_horizon);
}

size_t Forecaster::arena_bytes(size_t max_window, size_t max_horizon) const {
    return session_arena_bytes<ForecastLayout>(config_, max_window, max_horizon);
}

Status ForecastSession::init(const Forecaster& model, const Kernels& kernels, void* arena, size_t arena_bytes,
                             size_t max_window, size_t max_horizon) {
    const size_t limit = model.config_.max_positions;
    if (limit != 0 && max_window > limit)
        return Status::error(StatusCode::invalid_argument, "window of ")
            .add(max_window)
            .add(" rows is longer than the model's ")
            .add(limit)
            .add(" positions (max_positions)");
    // The decoder's rows get positions 0..horizon-1 too, as in PyTorch's forward(src, tgt).
    if (limit != 0 && max_horizon > limit)
        return Status::error(StatusCode::invalid_argument, "decoder length ")
            .add(max_horizon)
            .add(" is longer than the model's ")
            .add(limit)
            .add(" positions (max_positions)");
    ForecastLayout s;
    AX_RETURN_IF_ERROR(place_session(model.config_, arena, arena_bytes, &s, max_window, max_horizon));

    // Layer weights were validated by Forecaster::open; binding again cannot fail.
    AX_RETURN_IF_ERROR(s.stack.bind(model.file(), model.config_.stack));
    model_ = &model;
    k_ = &kernels;
    max_window_ = max_window;
    max_horizon_ = max_horizon;
    layout_ = s;
    return Status::ok();
}

Status ForecastSession::check_lengths(size_t src_rows, size_t tgt_rows) const {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    // The model's positions were checked against both declared lengths by init().
    AX_RETURN_IF_ERROR(check_session_length(src_rows, max_window_, 0, "window of ", " rows"));
    return check_session_length(tgt_rows, max_horizon_, 0, "decoder length ", "");
}

void ForecastSession::normalize(const float* x, size_t rows, const float* reference, float* z) const {
    const ForecasterConfig& c = model_->config_;
    const size_t n = c.n_features;
    const float* offset = c.normalization == format::Normalization::global ? model_->input_mean_ : reference;
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < n; ++i) z[r * n + i] = (x[r * n + i] - offset[i]) / model_->input_scale_[i];
}

void ForecastSession::denormalize(float* y, size_t rows, const float* reference) const {
    const ForecasterConfig& c = model_->config_;
    const size_t n = c.n_features;
    const float* offset = c.normalization == format::Normalization::global ? model_->input_mean_ : reference;
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < n; ++i) y[r * n + i] = y[r * n + i] * model_->input_scale_[i] + offset[i];
}

void ForecastSession::encode(const float* src, size_t rows) {
    const ForecasterConfig& c = model_->config_;
    const Kernels& k = *k_;
    const size_t d = c.stack.layer.d_model;
    linear_forward(k, model_->src_embed_, src, rows, layout_.memory, layout_.encoder_scratch.quant);
    if (c.positional_encoding == format::PositionalEncoding::sinusoidal)
        k.add_sinusoidal_f32(layout_.memory, rows, d, 0);
    layout_.stack.encode(k, c.stack, model_->encoder_norm_, layout_.memory, rows, nullptr, layout_.encoder_scratch);
    layout_.stack.prepare_memory(k, c.stack, layout_.memory, rows, layout_.decoder_scratch);
    mem_rows_ = rows;
}

void ForecastSession::decode(const float* tgt, size_t rows, size_t first, float* out) {
    const ForecasterConfig& c = model_->config_;
    const Kernels& k = *k_;
    const size_t d = c.stack.layer.d_model;
    const bool tril = c.memory_mask == format::MemoryMask::tril;
    // A tile of rows at a time through embedding, every layer and the generator: causal self-attention needs
    // only the cached keys of earlier rows, so no [rows, d] buffer is needed.
    const size_t tile = layout_.decoder_scratch.tile;
    for (size_t r = 0; r < rows; r += tile) {
        const size_t n = rows - r < tile ? rows - r : tile;
        linear_forward(k, model_->tgt_embed_, tgt + r * c.n_features, n, layout_.dec_x, layout_.decoder_scratch.quant);
        if (c.positional_encoding == format::PositionalEncoding::sinusoidal)
            k.add_sinusoidal_f32(layout_.dec_x, n, d, first + r);
        layout_.stack.decode(k, c.stack, model_->decoder_norm_, layout_.dec_x, n, first + r, mem_rows_, nullptr,
                             nullptr, layout_.decoder_scratch, tril);
        linear_forward(k, model_->generator_, layout_.dec_x, n, out + r * c.n_outputs, layout_.decoder_scratch.quant);
    }
}

Status ForecastSession::run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space,
                            float* out) {
    AX_RETURN_IF_ERROR(check_lengths(src_rows, tgt_rows));
    const ForecasterConfig& c = model_->config_;
    AX_RETURN_IF_ERROR(check_finite_input(src, src_rows * c.n_features, "source input"));
    AX_RETURN_IF_ERROR(check_finite_input(tgt, tgt_rows * c.n_features, "target input"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    const bool normalized = space == InputSpace::raw && c.normalization != format::Normalization::none;
    if (normalized) {
        std::memcpy(layout_.reference, src + (src_rows - 1) * c.n_features, c.n_features * sizeof(float));
        normalize(src, src_rows, layout_.reference, layout_.src_z);
        normalize(tgt, tgt_rows, layout_.reference, layout_.tgt_z);
        src = layout_.src_z;
        tgt = layout_.tgt_z;
    }
    encode(src, src_rows);
    decode(tgt, tgt_rows, 0, out);
    if (normalized) denormalize(out, tgt_rows, layout_.reference);
    return Status::ok();
}

Status ForecastSession::forecast(const float* history, size_t rows, size_t horizon, float* out) {
    return forecast_impl(history, rows, horizon, out, true);
}

Status ForecastSession::forecast_recompute(const float* history, size_t rows, size_t horizon, float* out) {
    return forecast_impl(history, rows, horizon, out, false);
}

Status ForecastSession::forecast_impl(const float* history, size_t rows, size_t horizon, float* out, bool cached) {
    AX_RETURN_IF_ERROR(check_lengths(rows, horizon));
    const ForecasterConfig& c = model_->config_;
    const size_t n = c.n_features;
    if (c.n_outputs != n)
        return Status::error(StatusCode::unsupported, "forecast feeds outputs back as inputs: the model has ")
            .add(c.n_outputs)
            .add(" outputs but ")
            .add(n)
            .add(" features");
    AX_RETURN_IF_ERROR(check_finite_input(history, rows * n, "history"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");

    std::memcpy(layout_.reference, history + (rows - 1) * n, n * sizeof(float));
    const float* src = history;
    if (c.normalization != format::Normalization::none) {
        normalize(history, rows, layout_.reference, layout_.src_z);
        src = layout_.src_z;
    }
    // tgt_z holds the decoder inputs: the last observed row, then each prediction (model space). The row is
    // copied before encoding: src_z shares its bytes with buffers of the later phases.
    std::memcpy(layout_.tgt_z, src + (rows - 1) * n, n * sizeof(float));
    encode(src, rows);
    for (size_t t = 0; t < horizon; ++t) {
        float* next = layout_.tgt_z + (t + 1) * n;
        if (cached) {
            decode(layout_.tgt_z + t * n, 1, t, next);
        } else {
            // out doubles as the generator's buffer for all t + 1 rows; only the last one is kept.
            decode(layout_.tgt_z, t + 1, 0, out);
            std::memcpy(next, out + t * n, n * sizeof(float));
        }
    }
    std::memcpy(out, layout_.tgt_z + n, horizon * n * sizeof(float));
    if (c.normalization != format::Normalization::none) denormalize(out, horizon, layout_.reference);
    if (!all_finite(out, horizon * n))
        return Status::error(StatusCode::bad_input, "the forecast overflowed to NaN or Inf");
    return Status::ok();
}

}  // namespace ax
