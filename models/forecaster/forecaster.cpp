#include "models/forecaster/forecaster.h"

#include <cmath>
#include <cstring>
#include <new>

#include "runtime/arena.h"
#include "runtime/bytes.h"
#include "runtime/positional_encoding.h"
#include "runtime/tensor_binding.h"

namespace ax {

namespace {

using format::ConfigKey;
using format::Role;

Status bad_config(const char* text) { return Status::error(StatusCode::bad_model, text); }

Status read_u32(const ModelFile& f, ConfigKey key, const char* name, uint32_t lo, uint32_t hi, uint32_t* out) {
    if (!f.config(key, out)) return bad_config("config lacks ").add(name);
    if (*out < lo || *out > hi)
        return bad_config("config ").add(name).add(" = ").add(static_cast<int64_t>(*out)).add(" outside ")
            .add(static_cast<int64_t>(lo)).add("..").add(static_cast<int64_t>(hi));
    return Status::ok();
}

Status read_size(const ModelFile& f, ConfigKey key, const char* name, size_t hi, size_t* out) {
    uint32_t v = 0;
    AX_RETURN_IF_ERROR(read_u32(f, key, name, 1, static_cast<uint32_t>(hi), &v));
    *out = v;
    return Status::ok();
}

Status read_flag(const ModelFile& f, ConfigKey key, const char* name, bool* out) {
    uint32_t v = 0;
    AX_RETURN_IF_ERROR(read_u32(f, key, name, 0, 1, &v));
    *out = v != 0;
    return Status::ok();
}

bool all_finite(const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i])) return false;
    return true;
}

Status check_finite(const float* x, size_t n, const char* what) {
    if (x == nullptr) return Status::error(StatusCode::invalid_argument, what).add(" is null");
    if (!all_finite(x, n)) return Status::error(StatusCode::bad_input, what).add(" holds NaN or Inf");
    return Status::ok();
}

Status bind_encoder_layer(TensorBinder& b, const ForecasterConfig& c, size_t index, EncoderLayerWeights* w) {
    const size_t d = c.layer.d_model;
    const size_t ff = c.layer.dim_feedforward;
    const uint16_t L = static_cast<uint16_t>(index);
    AX_RETURN_IF_ERROR(b.attention(Role::enc_attn_in_weight, L, d, &w->self_attn));
    AX_RETURN_IF_ERROR(b.linear(Role::enc_ff1_weight, Role::enc_ff1_bias, L, ff, d, &w->ff1));
    AX_RETURN_IF_ERROR(b.linear(Role::enc_ff2_weight, Role::enc_ff2_bias, L, d, ff, &w->ff2));
    AX_RETURN_IF_ERROR(b.layer_norm(Role::enc_norm1_weight, Role::enc_norm1_bias, L, d, &w->norm1));
    return b.layer_norm(Role::enc_norm2_weight, Role::enc_norm2_bias, L, d, &w->norm2);
}

Status bind_decoder_layer(TensorBinder& b, const ForecasterConfig& c, size_t index, DecoderLayerWeights* w) {
    const size_t d = c.layer.d_model;
    const size_t ff = c.layer.dim_feedforward;
    const uint16_t L = static_cast<uint16_t>(index);
    AX_RETURN_IF_ERROR(b.attention(Role::dec_attn_in_weight, L, d, &w->self_attn));
    AX_RETURN_IF_ERROR(b.attention(Role::dec_cross_in_weight, L, d, &w->cross_attn));
    AX_RETURN_IF_ERROR(b.linear(Role::dec_ff1_weight, Role::dec_ff1_bias, L, ff, d, &w->ff1));
    AX_RETURN_IF_ERROR(b.linear(Role::dec_ff2_weight, Role::dec_ff2_bias, L, d, ff, &w->ff2));
    AX_RETURN_IF_ERROR(b.layer_norm(Role::dec_norm1_weight, Role::dec_norm1_bias, L, d, &w->norm1));
    AX_RETURN_IF_ERROR(b.layer_norm(Role::dec_norm2_weight, Role::dec_norm2_bias, L, d, &w->norm2));
    return b.layer_norm(Role::dec_norm3_weight, Role::dec_norm3_bias, L, d, &w->norm3);
}

}  // namespace

Status read_forecaster_config(const ModelFile& f, ForecasterConfig* out) {
    if (f.family() != format::Family::forecaster) return bad_config("not a forecaster model");
    ForecasterConfig c;
    LayerOptions& l = c.layer;
    AX_RETURN_IF_ERROR(read_size(f, ConfigKey::d_model, "d_model", kMaxModelWidth, &l.d_model));
    AX_RETURN_IF_ERROR(read_size(f, ConfigKey::nhead, "nhead", l.d_model, &l.nhead));
    if (l.d_model % l.nhead != 0) return bad_config("d_model is not a multiple of nhead");
    AX_RETURN_IF_ERROR(read_size(f, ConfigKey::dim_feedforward, "dim_feedforward", kMaxModelWidth, &l.dim_feedforward));
    AX_RETURN_IF_ERROR(read_size(f, ConfigKey::encoder_layers, "encoder_layers", kMaxModelLayers, &c.encoder_layers));
    AX_RETURN_IF_ERROR(read_size(f, ConfigKey::decoder_layers, "decoder_layers", kMaxModelLayers, &c.decoder_layers));
    AX_RETURN_IF_ERROR(read_size(f, ConfigKey::n_features, "n_features", kMaxModelWidth, &c.n_features));
    AX_RETURN_IF_ERROR(read_size(f, ConfigKey::n_outputs, "n_outputs", kMaxModelWidth, &c.n_outputs));
    uint32_t v = 0;
    AX_RETURN_IF_ERROR(read_u32(f, ConfigKey::activation, "activation", 0, 1, &v));
    l.activation = static_cast<format::Activation>(v);
    AX_RETURN_IF_ERROR(read_flag(f, ConfigKey::norm_first, "norm_first", &l.norm_first));
    if (!f.config(ConfigKey::layer_norm_eps, &v)) return bad_config("config lacks layer_norm_eps");
    l.eps = bits_to_float(v);
    if (!(l.eps > 0.0f) || !std::isfinite(l.eps)) return bad_config("layer_norm_eps must be a positive number");
    AX_RETURN_IF_ERROR(read_u32(f, ConfigKey::positional_encoding, "positional_encoding", 0, 1, &v));
    c.positional_encoding = static_cast<format::PositionalEncoding>(v);
    if (c.positional_encoding == format::PositionalEncoding::sinusoidal && l.d_model % 2 != 0)
        return bad_config("sinusoidal positions need an even d_model");
    AX_RETURN_IF_ERROR(read_u32(f, ConfigKey::memory_mask, "memory_mask", 0, 1, &v));
    c.memory_mask = static_cast<format::MemoryMask>(v);
    AX_RETURN_IF_ERROR(read_flag(f, ConfigKey::encoder_final_norm, "encoder_final_norm", &c.encoder_final_norm));
    AX_RETURN_IF_ERROR(read_flag(f, ConfigKey::decoder_final_norm, "decoder_final_norm", &c.decoder_final_norm));
    AX_RETURN_IF_ERROR(read_u32(f, ConfigKey::normalization, "normalization", 0, 2, &v));
    c.normalization = static_cast<format::Normalization>(v);
    if (c.normalization != format::Normalization::none && c.n_outputs != c.n_features)
        return bad_config("input normalization needs n_outputs == n_features");
    *out = c;
    return Status::ok();
}

Status Forecaster::open(const ModelFile& file, Forecaster* out) {
    Forecaster m;
    m.file_ = &file;
    AX_RETURN_IF_ERROR(read_forecaster_config(file, &m.config_));
    const ForecasterConfig& c = m.config_;
    const size_t d = c.layer.d_model;
    TensorBinder b(file);
    const uint16_t none = format::kNoLayer;
    AX_RETURN_IF_ERROR(b.linear(Role::src_embed_weight, Role::src_embed_bias, none, d, c.n_features, &m.src_embed_));
    AX_RETURN_IF_ERROR(b.linear(Role::tgt_embed_weight, Role::tgt_embed_bias, none, d, c.n_features, &m.tgt_embed_));
    AX_RETURN_IF_ERROR(b.linear(Role::generator_weight, Role::generator_bias, none, c.n_outputs, d, &m.generator_));
    if (c.encoder_final_norm)
        AX_RETURN_IF_ERROR(b.layer_norm(Role::encoder_norm_weight, Role::encoder_norm_bias, none, d, &m.encoder_norm_));
    if (c.decoder_final_norm)
        AX_RETURN_IF_ERROR(b.layer_norm(Role::decoder_norm_weight, Role::decoder_norm_bias, none, d, &m.decoder_norm_));
    if (c.normalization == format::Normalization::global)
        AX_RETURN_IF_ERROR(b.vector(Role::input_mean, none, c.n_features, &m.input_mean_));
    if (c.normalization != format::Normalization::none) {
        AX_RETURN_IF_ERROR(b.vector(Role::input_scale, none, c.n_features, &m.input_scale_));
        for (size_t i = 0; i < c.n_features; ++i)
            if (!(m.input_scale_[i] != 0.0f) || !std::isfinite(m.input_scale_[i]))
                return bad_config("normalization scale must be finite and non-zero");
    }
    // Binding every layer once here means a session can later bind without failing.
    for (size_t i = 0; i < c.encoder_layers; ++i) {
        EncoderLayerWeights w;
        AX_RETURN_IF_ERROR(bind_encoder_layer(b, c, i, &w));
    }
    for (size_t i = 0; i < c.decoder_layers; ++i) {
        DecoderLayerWeights w;
        AX_RETURN_IF_ERROR(bind_decoder_layer(b, c, i, &w));
    }
    AX_RETURN_IF_ERROR(b.check_all_used());
    *out = m;
    return Status::ok();
}

namespace {

// The one description of a session's memory: used to count (arena without memory) and to lay out.
struct SessionLayout {
    EncoderLayerWeights* encoder;
    DecoderLayerWeights* decoder;
    KvCache* self_cache;
    KvCache* cross_cache;
    float* memory;
    float* dec_x;
    float* src_z;
    float* tgt_z;
    float* reference;
    LayerScratch scratch;
};

SessionLayout lay_out(Arena& arena, const ForecasterConfig& c, size_t max_window, size_t max_horizon) {
    const size_t d = c.layer.d_model;
    const size_t rows = max_window > max_horizon ? max_window : max_horizon;
    SessionLayout s;
    s.encoder = arena.alloc<EncoderLayerWeights>(c.encoder_layers);
    s.decoder = arena.alloc<DecoderLayerWeights>(c.decoder_layers);
    s.self_cache = arena.alloc<KvCache>(c.decoder_layers);
    s.cross_cache = arena.alloc<KvCache>(c.decoder_layers);
    s.memory = arena.alloc<float>(max_window * d);
    s.dec_x = arena.alloc<float>(max_horizon * d);
    s.src_z = arena.alloc<float>(max_window * c.n_features);
    s.tgt_z = arena.alloc<float>((max_horizon + 1) * c.n_features);
    s.reference = arena.alloc<float>(c.n_features);
    for (size_t i = 0; i < c.decoder_layers; ++i) {
        KvCache self, cross;
        self.allocate(arena, max_horizon, d);
        cross.allocate(arena, max_window, d);
        if (!arena.counting() && !arena.exhausted()) {
            new (&s.self_cache[i]) KvCache(self);  // placement into the arena
            new (&s.cross_cache[i]) KvCache(cross);  // placement into the arena
        }
    }
    s.scratch.allocate(arena, c.layer, rows, rows, c.n_features);  // int8 input embeddings read n_features
    return s;
}

bool length_ok(size_t n) { return n >= 1 && n <= kMaxSequenceLength; }

}  // namespace

size_t Forecaster::arena_bytes(size_t max_window, size_t max_horizon) const {
    if (!length_ok(max_window) || !length_ok(max_horizon)) return 0;
    Arena counter;
    lay_out(counter, config_, max_window, max_horizon);
    return counter.exhausted() ? 0 : counter.used();
}

Status ForecastSession::init(const Forecaster& model, const Kernels& kernels, void* arena, size_t arena_bytes,
                             size_t max_window, size_t max_horizon) {
    if (!length_ok(max_window) || !length_ok(max_horizon))
        return Status::error(StatusCode::invalid_argument, "window and horizon must be 1..")
            .add(static_cast<int64_t>(kMaxSequenceLength));
    if (arena == nullptr || reinterpret_cast<uintptr_t>(arena) % 16 != 0)
        return Status::error(StatusCode::invalid_argument, "arena must be non-null and 16-byte aligned");
    const size_t needed = model.arena_bytes(max_window, max_horizon);
    if (arena_bytes < needed)
        return Status::error(StatusCode::arena_too_small, "arena of ").add_u(arena_bytes).add(" bytes, the session needs ")
            .add_u(needed);
    Arena a(arena, arena_bytes);
    const SessionLayout s = lay_out(a, model.config_, max_window, max_horizon);
    if (a.exhausted()) return Status::error(StatusCode::arena_too_small, "arena exhausted");

    // Layer weights were validated by Forecaster::open; binding again cannot fail.
    TensorBinder b(model.file());
    for (size_t i = 0; i < model.config_.encoder_layers; ++i)
        AX_RETURN_IF_ERROR(bind_encoder_layer(b, model.config_, i, new (&s.encoder[i]) EncoderLayerWeights()));
    for (size_t i = 0; i < model.config_.decoder_layers; ++i)
        AX_RETURN_IF_ERROR(bind_decoder_layer(b, model.config_, i, new (&s.decoder[i]) DecoderLayerWeights()));
    model_ = &model;
    k_ = &kernels;
    max_window_ = max_window;
    max_horizon_ = max_horizon;
    encoder_ = s.encoder;
    decoder_ = s.decoder;
    self_cache_ = s.self_cache;
    cross_cache_ = s.cross_cache;
    memory_ = s.memory;
    dec_x_ = s.dec_x;
    src_z_ = s.src_z;
    tgt_z_ = s.tgt_z;
    reference_ = s.reference;
    scratch_ = s.scratch;
    return Status::ok();
}

Status ForecastSession::check_lengths(size_t src_rows, size_t tgt_rows) const {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    if (src_rows < 1 || src_rows > max_window_)
        return Status::error(StatusCode::invalid_argument, "window of ").add_u(src_rows).add(" rows outside 1..")
            .add_u(max_window_).add(" declared for this session");
    if (tgt_rows < 1 || tgt_rows > max_horizon_)
        return Status::error(StatusCode::invalid_argument, "decoder length ").add_u(tgt_rows).add(" outside 1..")
            .add_u(max_horizon_).add(" declared for this session");
    return Status::ok();
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
    const size_t d = c.layer.d_model;
    linear_forward(k, model_->src_embed_, src, rows, memory_, scratch_.quant);
    if (c.positional_encoding == format::PositionalEncoding::sinusoidal) add_sinusoidal_positions(memory_, rows, d, 0);
    for (size_t i = 0; i < c.encoder_layers; ++i) encoder_layer_forward(k, c.layer, encoder_[i], memory_, rows, scratch_);
    if (c.encoder_final_norm) layer_norm_rows(k, model_->encoder_norm_, memory_, rows, d, c.layer.eps, memory_);
    for (size_t i = 0; i < c.decoder_layers; ++i)
        decoder_layer_prepare_memory(k, c.layer, decoder_[i], memory_, rows, cross_cache_[i], scratch_);
    mem_rows_ = rows;
}

void ForecastSession::decode(const float* tgt, size_t rows, size_t first, float* out) {
    const ForecasterConfig& c = model_->config_;
    const Kernels& k = *k_;
    const size_t d = c.layer.d_model;
    const bool tril = c.memory_mask == format::MemoryMask::tril;
    linear_forward(k, model_->tgt_embed_, tgt, rows, dec_x_, scratch_.quant);
    if (c.positional_encoding == format::PositionalEncoding::sinusoidal) add_sinusoidal_positions(dec_x_, rows, d, first);
    for (size_t i = 0; i < c.decoder_layers; ++i)
        decoder_layer_forward(k, c.layer, decoder_[i], dec_x_, rows, first, self_cache_[i], cross_cache_[i], mem_rows_,
                              tril, scratch_);
    if (c.decoder_final_norm) layer_norm_rows(k, model_->decoder_norm_, dec_x_, rows, d, c.layer.eps, dec_x_);
    linear_forward(k, model_->generator_, dec_x_, rows, out, scratch_.quant);
}

Status ForecastSession::run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space,
                            float* out) {
    AX_RETURN_IF_ERROR(check_lengths(src_rows, tgt_rows));
    const ForecasterConfig& c = model_->config_;
    AX_RETURN_IF_ERROR(check_finite(src, src_rows * c.n_features, "source input"));
    AX_RETURN_IF_ERROR(check_finite(tgt, tgt_rows * c.n_features, "target input"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    const bool normalized = space == InputSpace::raw && c.normalization != format::Normalization::none;
    if (normalized) {
        std::memcpy(reference_, src + (src_rows - 1) * c.n_features, c.n_features * sizeof(float));
        normalize(src, src_rows, reference_, src_z_);
        normalize(tgt, tgt_rows, reference_, tgt_z_);
        src = src_z_;
        tgt = tgt_z_;
    }
    encode(src, src_rows);
    decode(tgt, tgt_rows, 0, out);
    if (normalized) denormalize(out, tgt_rows, reference_);
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
            .add_u(c.n_outputs).add(" outputs but ").add_u(n).add(" features");
    AX_RETURN_IF_ERROR(check_finite(history, rows * n, "history"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");

    std::memcpy(reference_, history + (rows - 1) * n, n * sizeof(float));
    const float* src = history;
    if (c.normalization != format::Normalization::none) {
        normalize(history, rows, reference_, src_z_);
        src = src_z_;
    }
    encode(src, rows);
    // tgt_z_ holds the decoder inputs: the last observed row, then each prediction (model space).
    std::memcpy(tgt_z_, src + (rows - 1) * n, n * sizeof(float));
    for (size_t t = 0; t < horizon; ++t) {
        float* next = tgt_z_ + (t + 1) * n;
        if (cached) {
            decode(tgt_z_ + t * n, 1, t, next);
        } else {
            // out doubles as the generator's buffer for all t + 1 rows; only the last one is kept.
            decode(tgt_z_, t + 1, 0, out);
            std::memcpy(next, out + t * n, n * sizeof(float));
        }
    }
    std::memcpy(out, tgt_z_ + n, horizon * n * sizeof(float));
    if (c.normalization != format::Normalization::none) denormalize(out, horizon, reference_);
    if (!all_finite(out, horizon * n))
        return Status::error(StatusCode::bad_input, "the forecast overflowed to NaN or Inf");
    return Status::ok();
}

}  // namespace ax
