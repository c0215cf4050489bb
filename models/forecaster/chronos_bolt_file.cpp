#include "models/forecaster/chronos_bolt_file.h"

#include <cstring>

#include "runtime/tensor_binding.h"

namespace ax {
namespace {

using format::ConfigKey;
using format::Role;

Status required(const ModelFile& f, ConfigKey key, uint32_t lo, uint32_t hi, size_t* out) {
    uint32_t v = 0;
    if (!f.config(key, &v))
        return Status::error(StatusCode::bad_model, "chronos_bolt model lacks config key ").add(format::enum_name(key));
    if (v < lo || v > hi)
        return Status::error(StatusCode::bad_model, "chronos_bolt config key ")
            .add(format::enum_name(key))
            .add(" = ")
            .add(v)
            .add(" outside [")
            .add(lo)
            .add(", ")
            .add(hi)
            .add("]");
    *out = v;
    return Status::ok();
}

float bits_to_float(uint32_t bits) {
    float f = 0.0f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

Status bind_attention(TensorBinder& b, Role in_w, Role out_w, uint16_t layer, size_t d, size_t inner,
                      T5AttentionWeights* w) {
    Linear packed;
    AX_RETURN_IF_ERROR(b.linear_no_bias(in_w, layer, 3 * inner, d, &packed));
    w->q = packed.slice(0, inner);
    w->k = packed.slice(inner, inner);
    w->v = packed.slice(2 * inner, inner);
    return b.linear_no_bias(out_w, layer, d, inner, &w->o);
}

Status bind_mlp(TensorBinder& b, uint16_t layer, size_t in, size_t hidden, size_t out, format::Activation a,
                ResidualMlpWeights* w) {
    AX_RETURN_IF_ERROR(b.linear(Role::mlp_hidden_weight, Role::mlp_hidden_bias, layer, hidden, in, &w->hidden));
    AX_RETURN_IF_ERROR(b.linear(Role::mlp_output_weight, Role::mlp_output_bias, layer, out, hidden, &w->output));
    AX_RETURN_IF_ERROR(b.linear(Role::mlp_residual_weight, Role::mlp_residual_bias, layer, out, in, &w->residual));
    w->activation = a;
    return Status::ok();
}

}  // namespace

bool is_chronos_bolt(const ModelFile& f) {
    uint32_t a = 0;
    return f.family() == format::Family::forecaster && f.config(ConfigKey::architecture, &a) &&
           a == static_cast<uint32_t>(format::Architecture::chronos_bolt);
}

Status chronos_bolt_open(const ModelFile& f, ChronosBoltModel* out) {
    if (!is_chronos_bolt(f))
        return Status::error(StatusCode::invalid_argument, "not a chronos_bolt forecaster (architecture record)");
    ChronosBoltShape& s = out->weights.shape;
    T5StackOptions& o = s.stack;
    size_t activation = 0, reg = 0, start = 0, eps_bits = 0;
    AX_RETURN_IF_ERROR(required(f, ConfigKey::d_model, 1, 1u << 14, &o.d_model));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::nhead, 1, 256, &o.nhead));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::head_dim, 1, 1u << 12, &o.d_kv));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::dim_feedforward, 1, 1u << 16, &o.d_ff));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::activation, 0, 1, &activation));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::layer_norm_eps, 0, 0xFFFFFFFFu, &eps_bits));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::relative_buckets, 4, 4096, &o.num_buckets));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::relative_max_distance, 2, 1u << 20, &o.max_distance));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::encoder_layers, 1, kChronosBoltMaxLayers, &s.encoder_layers));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::decoder_layers, 1, kChronosBoltMaxLayers, &s.decoder_layers));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::window, 1, 1u << 16, &s.context_length));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::patch_len, 1, 4096, &s.patch_size));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::horizon, 1, 1u << 16, &s.prediction_length));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::start_id, 0, 1, &start));
    AX_RETURN_IF_ERROR(required(f, ConfigKey::reg_token, 0, 0xFFFFFFFFu, &reg));
    const float eps = bits_to_float(static_cast<uint32_t>(eps_bits));
    if (!(eps > 0.0f && eps < 1.0f))
        return Status::error(StatusCode::bad_model, "chronos_bolt layer_norm_eps must be in (0, 1)");
    if (o.num_buckets % 4 != 0 || o.max_distance <= o.num_buckets / 4)
        return Status::error(StatusCode::bad_model,
                             "chronos_bolt relative_buckets must be a multiple of 4 and "
                             "relative_max_distance above a quarter of it");
    if (s.prediction_length > s.context_length)
        return Status::error(StatusCode::bad_model, "chronos_bolt horizon exceeds its window");
    o.eps = eps;
    o.activation = static_cast<format::Activation>(activation);
    s.reg_token = reg != format::kNoToken;
    if (s.reg_token && reg != 1)
        return Status::error(StatusCode::bad_model, "chronos_bolt reg_token must be 1 or kNoToken");
    s.reg_token_id = s.reg_token ? 1 : 0;
    s.start_token = start;
    const size_t vocab = s.reg_token ? 2 : 1;
    if (start >= vocab) return Status::error(StatusCode::bad_model, "chronos_bolt start_id outside its vocabulary");

    TensorBinder b(f);
    ChronosBoltWeights& w = out->weights;
    TensorView levels;
    if (!f.find(Role::quantile_levels, 0, &levels) || levels.rank != 1 || levels.dtype != format::DType::f32 ||
        levels.dims[0] < 1 || levels.dims[0] > 64)
        return Status::error(StatusCode::bad_model, "chronos_bolt model lacks its quantile levels (1 to 64 float32)");
    s.quantiles = levels.dims[0];
    AX_RETURN_IF_ERROR(b.vector(Role::quantile_levels, 0, s.quantiles, &w.quantile_levels));
    for (size_t i = 0; i < s.quantiles; ++i)
        if (!(w.quantile_levels[i] > 0.0f && w.quantile_levels[i] < 1.0f) ||
            (i > 0 && !(w.quantile_levels[i] > w.quantile_levels[i - 1])))
            return Status::error(StatusCode::bad_model, "chronos_bolt quantile levels must rise within (0, 1)");
    const size_t d = o.d_model, inner = o.inner(), ff = o.d_ff;
    AX_RETURN_IF_ERROR(b.table_f32(Role::src_token_embed, format::kNoLayer, vocab, d, &w.shared));
    AX_RETURN_IF_ERROR(bind_mlp(b, 0, 2 * s.patch_size, ff, d, o.activation, &w.input));
    AX_RETURN_IF_ERROR(bind_mlp(b, 1, d, ff, s.quantiles * s.prediction_length, o.activation, &w.head));
    AX_RETURN_IF_ERROR(b.table_f32(Role::relative_bias, 0, o.num_buckets, o.nhead, &w.encoder_bias));
    AX_RETURN_IF_ERROR(b.table_f32(Role::relative_bias, 1, o.num_buckets, o.nhead, &w.decoder_bias));
    for (size_t l = 0; l < s.encoder_layers; ++l) {
        const auto layer = static_cast<uint16_t>(l);
        T5EncoderLayerWeights& e = out->encoder[l];
        AX_RETURN_IF_ERROR(b.vector(Role::enc_norm1_weight, layer, d, &e.attention_norm));
        AX_RETURN_IF_ERROR(
            bind_attention(b, Role::enc_attn_in_weight, Role::enc_attn_out_weight, layer, d, inner, &e.self_attn));
        AX_RETURN_IF_ERROR(b.vector(Role::enc_norm2_weight, layer, d, &e.ff_norm));
        AX_RETURN_IF_ERROR(b.linear_no_bias(Role::enc_ff1_weight, layer, ff, d, &e.wi));
        AX_RETURN_IF_ERROR(b.linear_no_bias(Role::enc_ff2_weight, layer, d, ff, &e.wo));
    }
    for (size_t l = 0; l < s.decoder_layers; ++l) {
        const auto layer = static_cast<uint16_t>(l);
        T5DecoderLayerWeights& e = out->decoder[l];
        AX_RETURN_IF_ERROR(b.vector(Role::dec_norm1_weight, layer, d, &e.self_norm));
        AX_RETURN_IF_ERROR(
            bind_attention(b, Role::dec_attn_in_weight, Role::dec_attn_out_weight, layer, d, inner, &e.self_attn));
        AX_RETURN_IF_ERROR(b.vector(Role::dec_norm2_weight, layer, d, &e.cross_norm));
        AX_RETURN_IF_ERROR(
            bind_attention(b, Role::dec_cross_in_weight, Role::dec_cross_out_weight, layer, d, inner, &e.cross_attn));
        AX_RETURN_IF_ERROR(b.vector(Role::dec_norm3_weight, layer, d, &e.ff_norm));
        AX_RETURN_IF_ERROR(b.linear_no_bias(Role::dec_ff1_weight, layer, ff, d, &e.wi));
        AX_RETURN_IF_ERROR(b.linear_no_bias(Role::dec_ff2_weight, layer, d, ff, &e.wo));
    }
    AX_RETURN_IF_ERROR(b.vector(Role::encoder_norm_weight, format::kNoLayer, d, &w.encoder_norm));
    AX_RETURN_IF_ERROR(b.vector(Role::decoder_norm_weight, format::kNoLayer, d, &w.decoder_norm));
    AX_RETURN_IF_ERROR(b.check_all_used());
    w.encoder = out->encoder;
    w.decoder = out->decoder;
    return Status::ok();
}

}  // namespace ax
