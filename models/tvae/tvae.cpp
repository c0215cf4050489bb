#include "models/tvae/tvae.h"

#include <cmath>
#include <cstring>

#include "runtime/memory_plan.h"
#include "runtime/session_checks.h"
#include "runtime/session_plan.h"
#include "runtime/pooling.h"
#include "runtime/positional_encoding.h"
#include "runtime/rows_split.h"
#include "runtime/tensor_binding.h"

namespace ax {

namespace {

using format::ConfigKey;
using format::PositionalEncoding;
using format::Role;

}  // namespace

Status read_tvae_config(const ModelFile& f, TvaeConfig* out) {
    if (f.family() != format::Family::tvae) return bad_model_config("not a tvae model");
    TvaeConfig c;
    AX_RETURN_IF_ERROR(read_stack_config(f, 1, &c.stack));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::n_features, 1, kMaxModelWidth, &c.n_features));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::latent_size, 1, kMaxModelWidth, &c.latent_size));
    AX_RETURN_IF_ERROR(read_config_feature_positions(f, c.stack.layer.d_model, &c.positional_encoding));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::max_positions, 0, kMaxSequenceLength, &c.max_positions));
    *out = c;
    return Status::ok();
}

Status Tvae::open(const ModelFile& file, Tvae* out) {
    Tvae m;
    m.file_ = &file;
    AX_RETURN_IF_ERROR(read_tvae_config(file, &m.config_));
    const TvaeConfig& c = m.config_;
    const size_t d = c.stack.layer.d_model;
    const uint16_t none = format::kNoLayer;
    TensorBinder b(file);
    AX_RETURN_IF_ERROR(b.linear(Role::seq_embed_weight, Role::seq_embed_bias, none, d, c.n_features, &m.seq_embed_));
    AX_RETURN_IF_ERROR(b.linear(Role::z_mean_weight, Role::z_mean_bias, none, c.latent_size, d, &m.z_mean_));
    AX_RETURN_IF_ERROR(b.linear(Role::z_log_var_weight, Role::z_log_var_bias, none, c.latent_size, d, &m.z_log_var_));
    AX_RETURN_IF_ERROR(b.linear(Role::z_embed_weight, Role::z_embed_bias, none, d, c.latent_size, &m.z_embed_));
    AX_RETURN_IF_ERROR(
        b.linear(Role::r_seq_embed_weight, Role::r_seq_embed_bias, none, c.n_features, d, &m.r_seq_embed_));
    AX_RETURN_IF_ERROR(bind_stack(b, c.stack, &m.encoder_norm_, &m.decoder_norm_));
    AX_RETURN_IF_ERROR(b.check_all_used());
    *out = m;
    return Status::ok();
}

// The one description of a session's memory and the phases each buffer is live in: planned once to count
// (MemoryPlan without memory), then placed over the caller's arena by the same calls. The encoder phase
// ends with z; the decoder's memory row is made from z in the prepare phase.
void TvaeLayout::allocate(MemoryPlan& plan, const TvaeConfig& c, size_t max_len) {
    const size_t d = c.stack.layer.d_model;
    stack.allocate(plan, c.stack, max_len, 1);
    x = plan.alloc<float>("encoder rows", uint64_t{max_len} * d, Phase::encode, Phase::encode);
    dec_x = plan.alloc<float>("decoder rows", row_tile(c.stack.layer) * d, Phase::decode, Phase::decode);
    pooled = plan.alloc<float>("pooled rows", d, Phase::encode, Phase::encode);
    z = plan.alloc_session<float>("latent z", c.latent_size);
    memory = plan.alloc<float>("memory row", d, Phase::prepare, Phase::prepare);
    zero_row = plan.alloc_session<float>("zero input row", c.n_features);  // written once by init
    // int8 seq_embedding reads rows of n_features values, z_embedding one row of latent_size values.
    const size_t widest = c.n_features > c.latent_size ? c.n_features : c.latent_size;
    encoder_scratch.allocate(plan, c.stack.layer, max_len, max_len, widest, Phase::encode, Phase::encode);
    decoder_scratch.allocate(plan, c.stack.layer, 0, max_len, widest, Phase::prepare, Phase::decode);
}

bool plan_tvae_arena(const TvaeConfig& config, size_t max_len, MemoryPlan* plan) {
    return plan_session<TvaeLayout>(config, plan, max_len);
}

size_t Tvae::arena_bytes(size_t max_len, size_t workers) const {
    return session_arena_bytes<TvaeLayout>(config_, workers, max_len);
}

Status TvaeSession::init(const Tvae& model, const Kernels& kernels, void* arena, size_t arena_bytes, size_t max_len,
                         const ParallelFor& parallel) {
    TvaeLayout s;
    AX_RETURN_IF_ERROR(place_session(model.config_, parallel.workers, arena, arena_bytes, &s, max_len));
    s.encoder_scratch.split.parallel = parallel;
    s.decoder_scratch.split.parallel = parallel;
    AX_RETURN_IF_ERROR(s.stack.bind(model.file(), model.config_.stack));
    for (size_t i = 0; i < model.config_.n_features; ++i) s.zero_row[i] = 0.0f;
    model_ = &model;
    k_ = &kernels;
    max_len_ = max_len;
    layout_ = s;
    return Status::ok();
}

Status TvaeSession::check_length(size_t len) const {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    return check_session_length(len, max_len_, model_->config_.max_positions, "sequence of ", " rows");
}

Status TvaeSession::encode(const float* x, size_t len, float* z_mean, float* z_log_var) {
    AX_RETURN_IF_ERROR(check_length(len));
    const TvaeConfig& c = model_->config_;
    AX_RETURN_IF_ERROR(check_finite_input(x, len * c.n_features, "input sequence"));
    if (z_mean == nullptr) return Status::error(StatusCode::invalid_argument, "z_mean buffer is null");
    const Kernels& k = *k_;
    const size_t d = c.stack.layer.d_model;
    linear_forward(k, model_->seq_embed_, x, len, layout_.x, layout_.encoder_scratch.quant);
    if (c.positional_encoding == PositionalEncoding::sinusoidal)
        add_sinusoidal_split(k, layout_.x, len, d, 0, &layout_.encoder_scratch.split.parallel);
    layout_.stack.encode(k, c.stack, model_->encoder_norm_, layout_.x, len, nullptr, layout_.encoder_scratch);
    pool_rows(format::Pooling::mean, layout_.x, len, d, nullptr, layout_.pooled);
    linear_forward(k, model_->z_mean_, layout_.pooled, 1, z_mean, layout_.encoder_scratch.quant);
    if (z_log_var) linear_forward(k, model_->z_log_var_, layout_.pooled, 1, z_log_var, layout_.encoder_scratch.quant);
    return Status::ok();
}

void TvaeSession::set_latent(const float* z) {
    const TvaeConfig& c = model_->config_;
    linear_forward(*k_, model_->z_embed_, z, 1, layout_.memory, layout_.decoder_scratch.quant);
    layout_.stack.prepare_memory(*k_, c.stack, layout_.memory, 1, layout_.decoder_scratch);
}

Status TvaeSession::run(const float* x, size_t len, float* out, float* z_mean, float* z_log_var) {
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    AX_RETURN_IF_ERROR(encode(x, len, layout_.z, z_log_var));
    const TvaeConfig& c = model_->config_;
    const Kernels& k = *k_;
    const size_t d = c.stack.layer.d_model;
    if (z_mean) std::memcpy(z_mean, layout_.z, c.latent_size * sizeof(float));
    set_latent(layout_.z);
    const size_t nf = c.n_features;
    // The decoder's input is the sequence shifted right behind a zero row; a tile of rows at a time through
    // embedding, every layer and the output projection (causal self-attention needs only cached keys).
    const size_t tile = layout_.decoder_scratch.tile;
    for (size_t r = 0; r < len; r += tile) {
        const size_t n = len - r < tile ? len - r : tile;
        if (r == 0) {
            linear_forward(k, model_->seq_embed_, layout_.zero_row, 1, layout_.dec_x, layout_.decoder_scratch.quant);
            if (n > 1)
                linear_forward(k, model_->seq_embed_, x, n - 1, layout_.dec_x + d, layout_.decoder_scratch.quant);
        } else {
            linear_forward(k, model_->seq_embed_, x + (r - 1) * nf, n, layout_.dec_x, layout_.decoder_scratch.quant);
        }
        if (c.positional_encoding == PositionalEncoding::sinusoidal) k.add_sinusoidal_f32(layout_.dec_x, n, d, r);
        layout_.stack.decode(k, c.stack, model_->decoder_norm_, layout_.dec_x, n, r, 1, nullptr, nullptr,
                             layout_.decoder_scratch);
        linear_forward(k, model_->r_seq_embed_, layout_.dec_x, n, out + r * nf, layout_.decoder_scratch.quant);
    }
    return Status::ok();
}

Status TvaeSession::generate(const float* z, size_t len, float* out) {
    AX_RETURN_IF_ERROR(check_length(len));
    const TvaeConfig& c = model_->config_;
    AX_RETURN_IF_ERROR(check_finite_input(z, c.latent_size, "latent vector"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    if (z != layout_.z) std::memcpy(layout_.z, z, c.latent_size * sizeof(float));
    set_latent(layout_.z);
    const Kernels& k = *k_;
    const size_t d = c.stack.layer.d_model;
    const size_t nf = c.n_features;
    for (size_t t = 0; t < len; ++t) {
        float* row = layout_.dec_x;
        linear_forward(k, model_->seq_embed_, t == 0 ? layout_.zero_row : out + (t - 1) * nf, 1, row,
                       layout_.decoder_scratch.quant);
        if (c.positional_encoding == PositionalEncoding::sinusoidal) k.add_sinusoidal_f32(row, 1, d, t);
        layout_.stack.decode(k, c.stack, model_->decoder_norm_, row, 1, t, 1, nullptr, nullptr,
                             layout_.decoder_scratch);
        linear_forward(k, model_->r_seq_embed_, row, 1, out + t * nf, layout_.decoder_scratch.quant);
    }
    for (size_t i = 0; i < len * nf; ++i)
        if (!std::isfinite(out[i])) return Status::error(StatusCode::bad_input, "the output overflowed to NaN or Inf");
    return Status::ok();
}

Status TvaeSession::reconstruct(const float* x, size_t len, float* out) {
    AX_RETURN_IF_ERROR(encode(x, len, layout_.z, nullptr));
    return generate(layout_.z, len, out);
}

}  // namespace ax
