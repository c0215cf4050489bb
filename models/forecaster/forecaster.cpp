#include "models/forecaster/forecaster.h"

#include <cmath>
#include <cstring>
#include <new>

#include "runtime/memory_plan.h"
#include "runtime/session_checks.h"
#include "runtime/session_plan.h"
#include "runtime/bytes.h"
#include "runtime/positional_encoding.h"
#include "runtime/activation.h"
#include "runtime/rows_split.h"
#include "runtime/tensor_binding.h"

namespace ax {

namespace {

using format::ConfigKey;
using format::Role;

}  // namespace

Status Forecaster::open(const ModelFile& file, Forecaster* out) {
    // Filled in place, without a second Forecaster on the stack (a microcontroller's worst-case stack runs
    // through this frame); a failed open leaves an unopened Forecaster.
    new (out) Forecaster();
    const Status s = out->bind(file);
    if (!s) new (out) Forecaster();
    return s;
}

Status Forecaster::bind(const ModelFile& file) {
    file_ = &file;
    AX_RETURN_IF_ERROR(read_forecaster_config(file, &config_));
    const ForecasterConfig& c = config_;
    TensorBinder b(file);
    AX_RETURN_IF_ERROR(input_.bind(b, c));
    AX_RETURN_IF_ERROR(positions_.bind(b, c));
    AX_RETURN_IF_ERROR(head_.bind(b, c));
    AX_RETURN_IF_ERROR(normalizer_.bind(b, c));
    if (c.t5())
        AX_RETURN_IF_ERROR(bind_t5_stacks(b, c, &encoder_norm_, &decoder_norm_));
    else
        AX_RETURN_IF_ERROR(bind_stack(b, c.stack, &encoder_norm_, &decoder_norm_));
    uint32_t integer_only = 0;
    if (file.config(ConfigKey::integer_only, &integer_only) && integer_only != 0 && c.t5())
        return bad_model_config("the integer-only mode runs torch layers, not t5 layers");
    if (file.config(ConfigKey::integer_only, &integer_only) && integer_only != 0)
        AX_RETURN_IF_ERROR(b.words(Role::integer_plan, format::kNoLayer, &integer_plan_, &integer_plan_words_));
    return b.check_all_used();
}

ChronosBoltShape quantile_shape(const ForecasterConfig& c) {
    ChronosBoltShape s;
    s.stack = t5_options(c);
    s.encoder_layers = c.stack.encoder_layers;
    s.decoder_layers = c.stack.decoder_layers;
    s.context_length = c.window;
    s.patch_size = c.input.patch_len;
    s.prediction_length = c.horizon;
    s.quantiles = c.head.quantiles;
    s.reg_token = c.input.has_reg_token();
    s.reg_token_id = s.reg_token ? c.input.reg_token : 0;
    s.start_token = c.decoding.start_id;
    return s;
}

Status Forecaster::bind_quantile_weights(T5EncoderLayerWeights* encoder, T5DecoderLayerWeights* decoder,
                                         ChronosBoltWeights* out) const {
    TensorBinder b(*file_);
    const T5StackOptions o = t5_options(config_);
    for (size_t l = 0; l < config_.stack.encoder_layers; ++l)
        AX_RETURN_IF_ERROR(bind_t5_encoder_layer(b, o, l, encoder + l));
    for (size_t l = 0; l < config_.stack.decoder_layers; ++l)
        AX_RETURN_IF_ERROR(bind_t5_decoder_layer(b, o, l, decoder + l));
    ChronosBoltWeights w;
    AX_RETURN_IF_ERROR(bind_input_mlp(b, config_, &w.input));
    AX_RETURN_IF_ERROR(bind_token_rows(b, config_, &w.shared));
    AX_RETURN_IF_ERROR(bind_relative_bias(b, config_, &w.encoder_bias, &w.decoder_bias));
    AX_RETURN_IF_ERROR(bind_head_mlp(b, config_, &w.head));
    AX_RETURN_IF_ERROR(bind_quantile_levels(b, config_, &w.quantile_levels));
    w.shape = quantile_shape(config_);
    w.encoder = encoder;
    w.encoder_norm = encoder_norm_.gamma;
    w.decoder = decoder;
    w.decoder_norm = decoder_norm_.gamma;
    *out = w;
    return Status::ok();
}

// The one description of a session's memory and the phases each buffer is live in: planned once to count
// (MemoryPlan without memory), then placed over the caller's arena by the same calls.
void ForecastLayout::allocate(MemoryPlan& plan, const ForecasterConfig& c, size_t max_window, size_t max_horizon) {
    const size_t d = c.stack.layer.d_model;
    const size_t n = c.n_features;
    const size_t dec_rows = c.decoder_rows(max_horizon);
    const size_t enc_rows = c.encoder_rows(max_window);
    if (c.loop == ForecastLoop::quantile_paths) {
        // A context longer than the model's window is cut to it; a forecast past one call's horizon grows each
        // quantile's context to the whole window.
        const size_t context = max_horizon > c.horizon || max_window > c.window ? c.window : max_window;
        t5_encoder = plan.alloc_records<T5EncoderLayerWeights>("t5 encoder layer tables", c.stack.encoder_layers);
        t5_decoder = plan.alloc_records<T5DecoderLayerWeights>("t5 decoder layer tables", c.stack.decoder_layers);
        quantile_weights = plan.alloc_records<ChronosBoltWeights>("quantile loop: weights", 1);
        quantile = plan.alloc_records<ChronosBoltBuffers>("quantile loop: buffer records", 1);
        ChronosBoltBuffers buffers;
        buffers.allocate(plan, quantile_shape(c), context, max_horizon > c.horizon);
        if (quantile != nullptr) *quantile = buffers;  // placing: the record is in the caller's arena
        return;
    }
    stack.allocate(plan, c.stack, dec_rows, enc_rows, c.stacks.tril());
    // A patched model runs encode and decode once per column: what every column reads lives throughout.
    if (c.loop == ForecastLoop::patched)
        src_z = plan.alloc_session<float>("normalized window", uint64_t{max_window} * n);
    else
        src_z = plan.alloc<float>("normalized window", uint64_t{max_window} * n, Phase::encode, Phase::encode);
    normalizer.allocate(plan, c);
    // int8 input embeddings read rows of n_features values (patched: patch_len; token_conv: its neighbours).
    encoder_scratch.allocate(plan, c.stack.layer, enc_rows, enc_rows,
                             c.input.patched() ? c.input.patch_len : c.embed_width(n), Phase::encode, Phase::encode);
    input.allocate_encoder(plan, c, max_window);
    residuals.allocate_encoder(plan, c, enc_rows);
    switch (c.loop) {
        case ForecastLoop::sliding:
            // The encoder output is the head's input.
            memory = plan.alloc<float>("encoder rows", uint64_t{enc_rows} * d, Phase::encode, Phase::decode);
            // The window slides over the history and every prediction, each step a whole encoder pass.
            tgt_z = plan.alloc_session<float>("window and predictions", (uint64_t{max_window} + max_horizon) * n);
            // Known inputs beside the predictions: each step's outputs before its row is composed.
            if (c.known_inputs != 0)
                outputs = plan.alloc_session<float>("predictions", uint64_t{max_horizon} * c.n_outputs);
            head.allocate_quant(plan, c);
            return;
        case ForecastLoop::pooled:
        case ForecastLoop::patched:
            memory = plan.alloc<float>("encoder rows", uint64_t{enc_rows} * d, Phase::encode, Phase::decode);
            head.allocate_rows(plan, c);
            // Patched: every column's horizon is gathered over the columns' passes.
            if (c.loop == ForecastLoop::patched)
                outputs = plan.alloc_session<float>("head: outputs", uint64_t{c.horizon} * c.n_outputs);
            else
                outputs =
                    plan.alloc<float>("head: outputs", uint64_t{c.horizon} * c.n_outputs, Phase::decode, Phase::decode);
            head.allocate_quant(plan, c);
            return;
        case ForecastLoop::autoregressive:
        case ForecastLoop::one_pass_decoder:
        case ForecastLoop::quantile_paths:  // planned above
            break;
    }
    // The encoder output lives until every decoder layer has its cross-attention keys and values.
    memory = plan.alloc<float>("encoder rows / memory", uint64_t{max_window} * d, Phase::encode, Phase::prepare);
    // A decoder without a causal mask runs all its rows in one tile: each row attends to every other.
    const size_t tile =
        c.stack.decoder_causal || dec_rows < row_tile(c.stack.layer) ? row_tile(c.stack.layer) : dec_rows;
    dec_x = plan.alloc<float>("decoder rows", uint64_t{tile} * d, Phase::decode, Phase::decode);
    // Written before encoding, read by the decoder.
    tgt_z = plan.alloc_session<float>("decoder inputs", (uint64_t{dec_rows} + 1) * n);
    // One-pass: every decoder row's outputs; known inputs: each step's prediction before its row is composed.
    if (c.loop == ForecastLoop::one_pass_decoder || c.known_inputs != 0)
        outputs = plan.alloc<float>("decoder outputs", uint64_t{dec_rows} * c.n_outputs, Phase::decode, Phase::decode);
    const size_t keys = dec_rows > max_window ? dec_rows : max_window;
    decoder_scratch.allocate(plan, c.stack.layer, 0, keys, c.embed_width(n), Phase::prepare, Phase::decode, tile);
    residuals.allocate_decoder(plan, c, tile);
    input.allocate_decoder(plan, c, tile);
}

bool plan_forecaster_arena(const ForecasterConfig& config, size_t max_window, size_t max_horizon, MemoryPlan* plan) {
    return plan_session<ForecastLayout>(config, plan, max_window, max_horizon);
}

const float* Forecaster::quantile_levels() const {
    TensorView t;
    if (!config_.head.quantile() || file_ == nullptr || !file_->find(Role::quantile_levels, 0, &t)) return nullptr;
    return static_cast<const float*>(t.data);  // checked by open: [quantiles] float32
}

size_t Forecaster::output_column(size_t i) const {
    uint32_t column = 0;
    return file_->config(static_cast<format::ConfigKey>(format::kOutputFeatureKey + i), &column) ? column : i;
}

size_t Forecaster::decoder_column(size_t j) const {
    uint32_t column = 0;
    if (file_->config(static_cast<format::ConfigKey>(format::kDecoderFeatureKey + j), &column)) return column;
    return config_.decoder_features == config_.n_features ? j : output_column(j);
}

bool Forecaster::known_decoder_column(size_t j) const {
    const ForecasterConfig& c = config_;
    if (c.known_inputs == 0) return false;
    if (c.decoding.mode == format::Decoding::one_pass) return j + c.time_marks >= c.decoder_features;
    const size_t column = decoder_column(j);
    for (size_t i = 0; i < c.n_outputs; ++i)
        if (output_column(i) == column) return false;
    return true;
}

size_t Forecaster::future_rows(size_t horizon) const {
    if (config_.known_inputs == 0) return 0;
    return config_.decoding.mode == format::Decoding::one_pass ? horizon : horizon - 1;
}

size_t Forecaster::arena_bytes(size_t max_window, size_t max_horizon, size_t workers) const {
    return session_arena_bytes<ForecastLayout>(config_, workers, max_window, max_horizon);
}

namespace {

Status too_long(const char* what, size_t rows, const char* unit, size_t limit, const char* why) {
    return Status::error(StatusCode::invalid_argument, what).add(rows).add(unit).add(limit).add(why);
}

// The lengths a session may be sized for: the model's positions and, for one-pass and flatten models,
// the horizon and window they were trained on.
Status check_session_lengths(const ForecasterConfig& c, size_t max_window, size_t max_horizon) {
    const size_t limit = c.max_positions;
    if (limit != 0 && c.encoder_rows(max_window) > limit)
        return too_long(
            "window of ", max_window, " rows is longer than the model's ", limit,
            c.input.patched() ? " positions (max_positions, counted in patches)" : " positions (max_positions)");
    if (c.one_pass() && c.loop != ForecastLoop::quantile_paths && max_horizon > c.horizon)
        return too_long("horizon ", max_horizon, " is longer than the ", c.horizon,
                        " steps this model predicts at once (its trained horizon)");
    if (c.head.kind == format::ForecastHead::flatten && max_window < c.window)
        return too_long("window of ", max_window, " rows is shorter than the ", c.window,
                        " rows the model's flatten head reads");
    // The decoder's rows get positions 0.. too, as in PyTorch's forward(src, tgt).
    const size_t dec_rows = c.decoder_rows(max_horizon);
    if (limit != 0 && dec_rows > limit)
        return too_long("decoder length ", dec_rows, " is longer than the model's ", limit,
                        " positions (max_positions)");
    return Status::ok();
}

}  // namespace

Status ForecastSession::init(const Forecaster& model, const Kernels& kernels, void* arena, size_t arena_bytes,
                             size_t max_window, size_t max_horizon, const ParallelFor& parallel) {
    AX_RETURN_IF_ERROR(check_session_lengths(model.config_, max_window, max_horizon));
    ForecastLayout s;
    AX_RETURN_IF_ERROR(place_session(model.config_, parallel.workers, arena, arena_bytes, &s, max_window, max_horizon));
    s.encoder_scratch.split.parallel = parallel;
    s.decoder_scratch.split.parallel = parallel;

    // Layer weights were validated by Forecaster::open; binding again cannot fail.
    if (model.config_.t5())
        AX_RETURN_IF_ERROR(model.bind_quantile_weights(s.t5_encoder, s.t5_decoder, s.quantile_weights));
    else
        AX_RETURN_IF_ERROR(s.stack.bind(model.file(), model.config_.stack));
    model_ = &model;
    k_ = &kernels;
    max_window_ = max_window;
    max_horizon_ = max_horizon;
    max_decoder_ = model.config_.decoder_rows(max_horizon);
    layout_ = s;
    return Status::ok();
}

Status ForecastSession::check_lengths(size_t src_rows, size_t tgt_rows) const {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    const ForecasterConfig& c = model_->config_;
    // The model's positions were checked against both declared lengths by init().
    AX_RETURN_IF_ERROR(check_session_length(src_rows, max_window_, 0, "window of ", " rows"));
    if (c.head.kind == format::ForecastHead::flatten && src_rows != c.window)
        return Status::error(StatusCode::invalid_argument, "the model's flatten head reads exactly ")
            .add(c.window)
            .add(" window rows, got ")
            .add(src_rows);
    if (c.encoder_only()) return Status::ok();
    return check_session_length(tgt_rows, max_decoder_, 0, "decoder length ", "");
}

float ForecastSession::known_input(float v, size_t column) const {
    return model_->config_.normalizer.stored() ? to_model_units(*model_, layout_.normalizer, v, column) : v;
}

void ForecastSession::embed(Side side, const float* in, size_t rows, size_t first, float* x,
                            const LayerScratch& scratch) const {
    const ForecasterConfig& c = model_->config_;
    const size_t d = c.stack.layer.d_model;
    const Linear& linear = side == Side::encoder ? model_->input_.src : model_->input_.tgt;
    embed_input(*k_, c.input, linear, in, rows, d, x, scratch.quant);
    add_positions(*k_, c.positions, model_->positions_, side, x, rows, first, d, &scratch.split.parallel);
}

void ForecastSession::encode(const float* src, size_t rows) {
    const ForecasterConfig& c = model_->config_;
    if (c.input.token_conv()) {
        conv_rows(c.time_marks, src, rows, c.n_features, 0, rows, layout_.input.conv_src);
        src = layout_.input.conv_src;
    }
    embed(Side::encoder, src, rows, 0, layout_.memory, layout_.encoder_scratch);
    encode_stack(layout_.memory, rows);
    layout_.stack.prepare_memory(*k_, c.stack, layout_.memory, rows, layout_.decoder_scratch);
    mem_rows_ = rows;
}

void ForecastSession::encode_stack(float* x, size_t rows) {
    const ForecasterConfig& c = model_->config_;
    const size_t n = rows * c.stack.layer.d_model;
    if (c.stacks.encoder_residual) std::memcpy(layout_.residuals.encoder_in, x, n * sizeof(float));
    layout_.stack.encode(*k_, c.stack, model_->encoder_norm_, x, rows, nullptr, layout_.encoder_scratch);
    if (c.stacks.encoder_residual) k_->add_f32(x, layout_.residuals.encoder_in, n);
}

void ForecastSession::decode(const float* tgt, size_t rows, size_t first, float* out) {
    const ForecasterConfig& c = model_->config_;
    const Kernels& k = *k_;
    // A tile of rows at a time through embedding, every layer and the generator: causal self-attention needs
    // only the cached keys of earlier rows, so no [rows, d] buffer is needed.
    const size_t tile = layout_.decoder_scratch.tile;
    for (size_t r = 0; r < rows; r += tile) {
        const size_t n = rows - r < tile ? rows - r : tile;
        // token_conv runs only one-pass (first == 0, every row at once): its neighbours wrap around all rows.
        const float* in = tgt + r * c.decoder_features;
        if (c.input.token_conv()) {
            conv_rows(c.time_marks, tgt, rows, c.decoder_features, r, n, layout_.input.conv_dec);
            in = layout_.input.conv_dec;
        }
        embed(Side::decoder, in, n, first + r, layout_.dec_x, layout_.decoder_scratch);
        const size_t values = n * c.stack.layer.d_model;
        if (c.stacks.decoder_residual) std::memcpy(layout_.residuals.decoder_in, layout_.dec_x, values * sizeof(float));
        layout_.stack.decode(k, c.stack, model_->decoder_norm_, layout_.dec_x, n, first + r, mem_rows_, nullptr,
                             nullptr, layout_.decoder_scratch, c.stacks.tril());
        if (c.stacks.decoder_residual) k.add_f32(layout_.dec_x, layout_.residuals.decoder_in, values);
        linear_forward(k, model_->head_.generator, layout_.dec_x, n, out + r * c.n_outputs,
                       layout_.decoder_scratch.quant);
    }
}

Status ForecastSession::run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space,
                            float* out) {
    // The quantile model's forward(context): one call, its own normalization inside (either input space).
    if (model_ != nullptr && model_->config_.loop == ForecastLoop::quantile_paths)
        return forecast_quantiles(src, src_rows, model_->config_.horizon, out);
    AX_RETURN_IF_ERROR(check_lengths(src_rows, tgt_rows));
    const ForecasterConfig& c = model_->config_;
    if (c.encoder_only()) tgt_rows = 0;  // an encoder-only forward reads no decoder input
    AX_RETURN_IF_ERROR(check_finite_input(src, src_rows * c.n_features, "source input"));
    if (tgt_rows != 0) AX_RETURN_IF_ERROR(check_finite_input(tgt, tgt_rows * c.decoder_features, "target input"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    NormalizerState& state = layout_.normalizer;
    const bool normalized = space == InputSpace::raw && c.normalizer.stored();
    if (normalized) {
        std::memcpy(state.reference, src + (src_rows - 1) * c.n_features, c.n_features * sizeof(float));
        normalize_rows(*model_, state, src, src_rows, layout_.src_z);
        if (tgt_rows != 0) normalize_decoder_rows(*model_, state, tgt, tgt_rows, layout_.tgt_z);
        src = layout_.src_z;
        tgt = layout_.tgt_z;
    }
    if (c.normalizer.revin_on()) {  // part of the model's forward, in either input space
        revin_normalize(*model_, state, src, src_rows, layout_.src_z);
        src = layout_.src_z;
    }
    const size_t out_rows = c.run_rows(src_rows, tgt_rows);
    switch (c.loop) {
        case ForecastLoop::patched:
        case ForecastLoop::pooled:
            forecast_pooled(src, src_rows, out);
            break;
        case ForecastLoop::sliding:  // the forward: one generator row per encoder row
            encode(src, src_rows);
            linear_forward(*k_, model_->head_.generator, layout_.memory, src_rows, out, layout_.encoder_scratch.quant);
            break;
        case ForecastLoop::one_pass_decoder:  // the forward returns the decoder's last horizon rows
            encode(src, src_rows);
            decode(tgt, tgt_rows, 0, layout_.outputs);
            std::memcpy(out, layout_.outputs + (tgt_rows - out_rows) * c.n_outputs,
                        out_rows * c.n_outputs * sizeof(float));
            break;
        case ForecastLoop::autoregressive:
        case ForecastLoop::quantile_paths:  // run by forecast_quantiles above
            encode(src, src_rows);
            decode(tgt, tgt_rows, 0, out);
            break;
    }
    if (normalized) denormalize_outputs(*model_, state, out, out_rows);
    if (c.normalizer.revin_on()) revin_denormalize(*model_, state, out, out_rows);
    return Status::ok();
}

Status ForecastSession::forecast(const float* history, size_t rows, size_t horizon, float* out, const float* future,
                                 size_t future_rows) {
    return forecast_impl(history, rows, horizon, out, true, future, future_rows);
}

Status ForecastSession::forecast_recompute(const float* history, size_t rows, size_t horizon, float* out,
                                           const float* future, size_t future_rows) {
    return forecast_impl(history, rows, horizon, out, false, future, future_rows);
}

void ForecastSession::decoder_row(const float* input_row, float* out) const {
    const ForecasterConfig& c = model_->config_;
    for (size_t j = 0; j < c.decoder_features; ++j) out[j] = input_row[model_->decoder_column(j)];
}

void ForecastSession::next_decoder_row(const float* prediction, const float* future_row, float* out) const {
    const ForecasterConfig& c = model_->config_;
    for (size_t j = 0; j < c.decoder_features; ++j) {
        const size_t column = model_->decoder_column(j);
        out[j] = known_input(future_row[column], column);
        for (size_t i = 0; i < c.n_outputs; ++i)
            if (model_->output_column(i) == column) out[j] = prediction[i];
    }
}

Status Forecaster::check_future(const float* future, size_t rows, size_t horizon) const {
    const ForecasterConfig& c = config_;
    const size_t needed = future_rows(horizon);
    if (needed == 0) return Status::ok();
    if (future == nullptr || rows < needed)
        return Status::error(StatusCode::invalid_argument, "the decoder reads ")
            .add(c.known_inputs)
            .add(" input column(s) known ahead: a forecast of ")
            .add(horizon)
            .add(" steps needs their values for the first ")
            .add(needed)
            .add(" steps (future rows), got ")
            .add(future == nullptr ? 0 : rows);
    for (size_t t = 0; t < needed; ++t)
        for (size_t j = 0; j < c.decoder_features; ++j)
            if (known_decoder_column(j) && !std::isfinite(future[t * c.n_features + decoder_column(j)]))
                return Status::error(StatusCode::bad_input, "future row ")
                    .add(t)
                    .add(" holds NaN or Inf in the known input column ")
                    .add(decoder_column(j));
    return Status::ok();
}

// Each column on its own, as a channel-independent model reshapes [B, C, N, P] to [B x C, N, P]: its window
// (and padding) cut into patches, the patches through the input Linear, positions, the encoder and the
// head, its horizon into column i of out.
void ForecastSession::patched_forward(const float* src, size_t rows, float* out) {
    const ForecasterConfig& c = model_->config_;
    const size_t n = c.n_features;
    const size_t d = c.stack.layer.d_model;
    const size_t tokens = c.encoder_rows(rows);
    float* column_out = layout_.head.x + d + c.head.hidden;
    for (size_t i = 0; i < n; ++i) {
        cut_patches(c.input, src, rows, n, i, layout_.input.series, layout_.input.patches);
        embed(Side::encoder, layout_.input.patches, tokens, 0, layout_.memory, layout_.encoder_scratch);
        encode_stack(layout_.memory, tokens);
        pooled_head(*k_, c.head, model_->head_, layout_.memory, tokens, d, layout_.head, column_out);
        for (size_t h = 0; h < c.horizon; ++h) out[h * n + i] = column_out[h];
    }
}

void ForecastSession::forecast_pooled(const float* src, size_t rows, float* out) {
    const ForecasterConfig& c = model_->config_;
    if (c.loop == ForecastLoop::patched) {
        patched_forward(src, rows, out);
        return;
    }
    encode(src, rows);
    pooled_head(*k_, c.head, model_->head_, layout_.memory, rows, c.stack.layer.d_model, layout_.head, out);
}

// The encoder-only generator, as the author's loop runs it: the last `rows` rows of the history and the
// predictions so far through the whole encoder, the last row's output appended, `horizon` times.
// With known inputs (covariates the model reads but does not predict), each appended row is the prediction in
// its outputs' columns and the step's planned values (`future`) in the others.
Status ForecastSession::forecast_sliding(const float* src, size_t rows, size_t horizon, float* out,
                                         const float* future) {
    const ForecasterConfig& c = model_->config_;
    const size_t n = c.n_features;
    const size_t o = c.n_outputs;
    const size_t d = c.stack.layer.d_model;
    const Linear& generator = model_->head_.generator;
    float* rows_so_far = layout_.tgt_z;
    std::memmove(rows_so_far, src, rows * n * sizeof(float));
    for (size_t t = 0; t < horizon; ++t) {
        encode(rows_so_far + t * n, rows);
        float* next = rows_so_far + (rows + t) * n;
        if (c.known_inputs == 0) {
            linear_forward(*k_, generator, layout_.memory + (rows - 1) * d, 1, next, layout_.head.quant);
            continue;
        }
        float* prediction = layout_.outputs + t * o;
        linear_forward(*k_, generator, layout_.memory + (rows - 1) * d, 1, prediction, layout_.head.quant);
        if (t + 1 < horizon) next_decoder_row(prediction, future + t * n, next);
    }
    if (c.known_inputs == 0)
        std::memcpy(out, rows_so_far + rows * n, horizon * n * sizeof(float));
    else
        std::memcpy(out, layout_.outputs, horizon * o * sizeof(float));
    return Status::ok();
}

// One pass through the decoder over label_len observed rows and the placeholders. Causal self-attention makes
// the first `horizon` placeholders' outputs independent of the later ones, so a shorter forecast runs fewer
// decoder rows and gets the same values.
Status ForecastSession::forecast_one_pass(const float* src, size_t rows, size_t horizon, float* out,
                                          const float* future) {
    const ForecasterConfig& c = model_->config_;
    const size_t n = c.n_features;
    const size_t o = c.n_outputs;
    // Without a causal mask every placeholder's output depends on every other: the trained count only.
    if (!c.stack.decoder_causal && horizon != c.horizon)
        return Status::error(StatusCode::invalid_argument,
                             "a decoder without a causal mask runs its trained horizon of ")
            .add(c.horizon)
            .add(" steps only (each placeholder attends to every other), not ")
            .add(horizon);
    // The token convolution's neighbours wrap around every decoder row: fewer placeholders change them all.
    if (c.input.token_conv() && horizon != c.horizon)
        return Status::error(StatusCode::invalid_argument, "a token_conv decoder runs its trained horizon of ")
            .add(c.horizon)
            .add(" steps only (its neighbours wrap around the decoder's rows), not ")
            .add(horizon);
    const size_t known = c.decoding.label_len;
    if (rows < known)
        return Status::error(StatusCode::invalid_argument, "the decoder reads the last ")
            .add(known)
            .add(" observed rows (label_len), the window has ")
            .add(rows);
    // The decoder's inputs are copied before encoding: src may be src_z, which later phases reuse.
    const size_t m = c.decoder_features;
    for (size_t t = 0; t < known; ++t) decoder_row(src + (rows - known + t) * n, layout_.tgt_z + t * m);
    for (size_t t = 0; t < horizon; ++t) {
        float* row = layout_.tgt_z + (known + t) * m;
        if (c.decoding.placeholder == format::Placeholder::last_value)
            decoder_row(src + (rows - 1) * n, row);
        else
            std::memset(row, 0, m * sizeof(float));
        // The time marks of the step the placeholder stands for (x_mark_dec), known ahead.
        for (size_t j = m - c.time_marks; j < m && c.known_inputs != 0; ++j)
            row[j] = known_input(future[t * n + model_->decoder_column(j)], model_->decoder_column(j));
    }
    encode(src, rows);
    decode(layout_.tgt_z, known + horizon, 0, layout_.outputs);
    std::memcpy(out, layout_.outputs + known * o, horizon * o * sizeof(float));
    return Status::ok();
}

// Step by step: tgt_z holds the decoder inputs, the last observed row (its decoder columns), then each
// prediction (model space), with the known inputs of its time beside it when the decoder reads any. The row is
// copied before encoding: src_z shares its bytes with buffers of the later phases.
Status ForecastSession::forecast_autoregressive(const float* src, size_t rows, size_t horizon, float* out, bool cached,
                                                const float* future) {
    const ForecasterConfig& c = model_->config_;
    const size_t n = c.n_features;
    const size_t m = c.decoder_features;
    const size_t o = c.n_outputs;
    decoder_row(src + (rows - 1) * n, layout_.tgt_z);
    encode(src, rows);
    for (size_t t = 0; t < horizon; ++t) {
        // Without known inputs the prediction is the next decoder row as it is (m == o, same columns).
        float* prediction = c.known_inputs != 0 ? layout_.outputs + t * o : layout_.tgt_z + (t + 1) * m;
        // A decoder without a causal mask cannot reuse cached rows: an appended row changes the earlier
        // ones, as the author's loop reruns the whole decoder each step.
        if (cached && c.stack.decoder_causal) {
            decode(layout_.tgt_z + t * m, 1, t, prediction);
        } else {
            // out doubles as the generator's buffer for all t + 1 rows; only the last one is kept.
            decode(layout_.tgt_z, t + 1, 0, out);
            std::memcpy(prediction, out + t * o, o * sizeof(float));
        }
        if (c.known_inputs != 0 && t + 1 < horizon)
            next_decoder_row(prediction, future + t * n, layout_.tgt_z + (t + 1) * m);
    }
    std::memcpy(out, c.known_inputs != 0 ? layout_.outputs : layout_.tgt_z + m, horizon * o * sizeof(float));
    return Status::ok();
}

Status ForecastSession::forecast_quantiles(const float* history, size_t rows, size_t horizon, float* out) {
    const ForecasterConfig& c = model_->config_;
    if (history == nullptr || rows == 0) return Status::error(StatusCode::invalid_argument, "the history is empty");
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    // The model reads the last `window` values of a longer history (the authors' context_length).
    if (rows > c.window) {
        history += rows - c.window;
        rows = c.window;
    }
    AX_RETURN_IF_ERROR(check_session_length(rows, max_window_, 0, "window of ", " rows"));
    AX_RETURN_IF_ERROR(check_session_length(horizon, max_horizon_, 0, "horizon ", ""));
    // NaN is a missing value; an infinite one has no place in the normalization.
    for (size_t i = 0; i < rows; ++i)
        if (std::isinf(history[i]))
            return Status::error(StatusCode::bad_input, "history value ")
                .add(i)
                .add(" is infinite (a missing value is NaN, or an empty cell in a CSV)");
    chronos_bolt_forecast(*k_, *layout_.quantile_weights, *layout_.quantile, history, rows, horizon, out);
    if (!all_finite(out, c.output_values(horizon)))
        return Status::error(StatusCode::bad_input, "the forecast overflowed to NaN or Inf");
    return Status::ok();
}

Status ForecastSession::forecast_impl(const float* history, size_t rows, size_t horizon, float* out, bool cached,
                                      const float* future, size_t future_rows) {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    const ForecasterConfig& c = model_->config_;
    if (c.loop == ForecastLoop::quantile_paths) return forecast_quantiles(history, rows, horizon, out);
    AX_RETURN_IF_ERROR(check_lengths(rows, c.decoder_rows(horizon)));
    AX_RETURN_IF_ERROR(check_session_length(horizon, max_horizon_, 0, "horizon ", ""));
    const size_t n = c.n_features;
    if (c.loop == ForecastLoop::sliding && c.n_outputs > n)
        return Status::error(StatusCode::unsupported, "forecast feeds outputs back as inputs: the model has ")
            .add(c.n_outputs)
            .add(" outputs but its encoder reads ")
            .add(n)
            .add(" features");
    if (c.loop == ForecastLoop::autoregressive && c.n_outputs > ForecasterConfig::kMaxOutputFeatures)
        return Status::error(StatusCode::unsupported, "forecast feeds outputs back as inputs: the model's ")
            .add(c.n_outputs)
            .add(" outputs are not input columns");
    AX_RETURN_IF_ERROR(model_->check_future(future, future_rows, horizon));
    AX_RETURN_IF_ERROR(check_finite_input(history, rows * n, "history"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");

    NormalizerState& state = layout_.normalizer;
    std::memcpy(state.reference, history + (rows - 1) * n, n * sizeof(float));
    const float* src = history;
    if (c.normalizer.stored()) {
        normalize_rows(*model_, state, history, rows, layout_.src_z);
        src = layout_.src_z;
    }
    if (c.normalizer.revin_on()) {
        revin_normalize(*model_, state, history, rows, layout_.src_z);
        src = layout_.src_z;
    }
    switch (c.loop) {
        case ForecastLoop::autoregressive:
            AX_RETURN_IF_ERROR(forecast_autoregressive(src, rows, horizon, out, cached, future));
            break;
        case ForecastLoop::one_pass_decoder:
            AX_RETURN_IF_ERROR(forecast_one_pass(src, rows, horizon, out, future));
            break;
        case ForecastLoop::sliding:
            AX_RETURN_IF_ERROR(forecast_sliding(src, rows, horizon, out, future));
            break;
        case ForecastLoop::pooled:
        case ForecastLoop::patched:
            forecast_pooled(src, rows, layout_.outputs);
            std::memcpy(out, layout_.outputs, horizon * c.n_outputs * sizeof(float));
            break;
        case ForecastLoop::quantile_paths:  // run by forecast_quantiles above
            break;
    }
    // RevIN needs n_outputs == n_features (its block's check); normalization takes each output's column.
    if (c.normalizer.stored()) denormalize_outputs(*model_, state, out, horizon);
    if (c.normalizer.revin_on()) revin_denormalize(*model_, state, out, horizon);
    if (!all_finite(out, horizon * c.n_outputs))
        return Status::error(StatusCode::bad_input, "the forecast overflowed to NaN or Inf");
    return Status::ok();
}

}  // namespace ax
