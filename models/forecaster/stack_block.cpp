#include "models/forecaster/stack_block.h"

#include "models/forecaster/forecaster_config.h"
#include "runtime/config_reader.h"

namespace ax {

using format::ConfigKey;

namespace {

Status bad(const char* what) { return Status::error(StatusCode::bad_model, what); }

}  // namespace

Status StackBlock::read(const ConfigRecords& f, StackConfig* stack) {
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::memory_mask, &memory_mask));
    uint32_t v = 0;
    if (f.config(ConfigKey::layer_kind, &v)) AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::layer_kind, &kind));
    if (kind == format::LayerKind::t5) {
        AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::head_dim, 1, kMaxModelWidth, &head_dim));
        size_t g = 0;
        AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::gated_feed_forward, 0, 1, 0, &g));
        gated = g != 0;
    } else if (f.config(ConfigKey::gated_feed_forward, &v)) {
        return bad("gated_feed_forward is t5 layers' (layer_kind t5)");
    }
    format::EncoderMask encoder_mask = format::EncoderMask::none;
    if (f.config(ConfigKey::encoder_mask, &v))
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::encoder_mask, &encoder_mask));
    stack->encoder_causal = encoder_mask == format::EncoderMask::causal;
    format::DecoderMask decoder_mask = format::DecoderMask::causal;
    if (f.config(ConfigKey::decoder_mask, &v))
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::decoder_mask, &decoder_mask));
    if (decoder_mask != format::DecoderMask::causal && stack->decoder_layers == 0)
        return bad("decoder_mask without a decoder");
    stack->decoder_causal = decoder_mask == format::DecoderMask::causal;
    size_t residual = 0;
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::encoder_residual, 0, 1, 0, &residual));
    encoder_residual = residual != 0;
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::decoder_residual, 0, 1, 0, &residual));
    decoder_residual = residual != 0;
    return Status::ok();
}

void StackBlock::write(const StackConfig& stack, ConfigWriter& out) const {
    out.put_enum(ConfigKey::memory_mask, memory_mask);
    if (kind == format::LayerKind::t5) {
        out.put_enum(ConfigKey::layer_kind, kind);
        out.put_size(ConfigKey::head_dim, head_dim);
        if (gated) out.put(ConfigKey::gated_feed_forward, 1u);
    }
    if (stack.encoder_causal) out.put_enum(ConfigKey::encoder_mask, format::EncoderMask::causal);
    if (!stack.decoder_causal) out.put_enum(ConfigKey::decoder_mask, format::DecoderMask::none);
    if (encoder_residual) out.put(ConfigKey::encoder_residual, 1u);
    if (decoder_residual) out.put(ConfigKey::decoder_residual, 1u);
}

Status StackBlock::check(const ForecasterConfig& c) const {
    if (decoder_residual && c.encoder_only())
        return bad("config \"decoder_residual\" needs a decoder; this model has none");
    if (kind != format::LayerKind::t5) return Status::ok();
    // T5 layers run Chronos-Bolt's blocks: the other blocks' options that go with them, nothing else.
    const LayerOptions& l = c.stack.layer;
    if (!c.normalizer.instance() || !c.input.patch_mlp() || !c.positions.relative() ||
        c.decoding.mode != format::Decoding::start_token || c.head.kind != format::ForecastHead::residual_mlp)
        return bad(
            "t5 layers run with normalization instance, input_embedding patch_mlp, positional_encoding relative, "
            "decoding start_token and head residual_mlp (Chronos-Bolt's blocks)");
    if (c.encoder_only() || c.n_features != 1 || c.n_outputs != 1 || c.time_marks != 0 || c.window == 0 ||
        c.horizon == 0 || c.horizon > c.window)
        return bad(
            "t5 layers forecast one column from a stated window, decoder layers and a horizon within the window");
    if (memory_mask != format::MemoryMask::none || encoder_residual || decoder_residual || c.stack.encoder_causal ||
        !c.stack.decoder_causal || !l.norm_first || l.batch_norm || l.residual_attention ||
        !c.stack.encoder_final_norm || !c.stack.decoder_final_norm || c.stack.kv_cache != format::CacheType::f32)
        return bad("t5 layers are pre-norm with final norms, without masks, residuals, BatchNorm or int8 caches");
    if (l.value_dim != 0) return bad("value_dim is torch layers'; t5 layers' heads are head_dim wide throughout");
    if (l.activation == format::Activation::elu) return bad("t5 layers' activation is relu, gelu or gelu_tanh");
    if (!(l.eps < 1.0f)) return bad("t5 layers' layer_norm_eps must be below 1");
    return Status::ok();
}

T5StackOptions t5_options(const ForecasterConfig& c) {
    T5StackOptions o;
    o.d_model = c.stack.layer.d_model;
    o.nhead = c.stack.layer.nhead;
    o.d_kv = c.stacks.head_dim;
    o.d_ff = c.stack.layer.dim_feedforward;
    o.eps = c.stack.layer.eps;
    o.activation = c.stack.layer.activation;
    o.num_buckets = c.positions.buckets;
    o.max_distance = c.positions.max_distance;
    o.gated = c.stacks.gated;
    return o;
}

namespace {

// T5's q, k and v are stored as one [3 inner, d] in-projection, as the other layers' are.
Status bind_t5_attention(TensorBinder& b, format::Role in_w, format::Role out_w, uint16_t layer, size_t d, size_t inner,
                         T5AttentionWeights* w) {
    Linear packed;
    AX_RETURN_IF_ERROR(b.linear_no_bias(in_w, layer, 3 * inner, d, &packed));
    w->q = packed.slice(0, inner);
    w->k = packed.slice(inner, inner);
    w->v = packed.slice(2 * inner, inner);
    return b.linear_no_bias(out_w, layer, d, inner, &w->o);
}

}  // namespace

Status bind_t5_stacks(TensorBinder& b, const ForecasterConfig& c, LayerNormWeights* encoder_norm,
                      LayerNormWeights* decoder_norm) {
    const size_t d = c.stack.layer.d_model;
    AX_RETURN_IF_ERROR(b.vector(format::Role::encoder_norm_weight, format::kNoLayer, d, &encoder_norm->gamma));
    AX_RETURN_IF_ERROR(b.vector(format::Role::decoder_norm_weight, format::kNoLayer, d, &decoder_norm->gamma));
    const T5StackOptions o = t5_options(c);
    for (size_t l = 0; l < c.stack.encoder_layers; ++l) {
        T5EncoderLayerWeights w;
        AX_RETURN_IF_ERROR(bind_t5_encoder_layer(b, o, l, &w));
    }
    for (size_t l = 0; l < c.stack.decoder_layers; ++l) {
        T5DecoderLayerWeights w;
        AX_RETURN_IF_ERROR(bind_t5_decoder_layer(b, o, l, &w));
    }
    return Status::ok();
}

Status bind_t5_encoder_layer(TensorBinder& b, const T5StackOptions& o, size_t layer, T5EncoderLayerWeights* e) {
    using format::Role;
    const auto l = static_cast<uint16_t>(layer);
    const size_t d = o.d_model;
    AX_RETURN_IF_ERROR(b.vector(Role::enc_norm1_weight, l, d, &e->attention_norm));
    AX_RETURN_IF_ERROR(
        bind_t5_attention(b, Role::enc_attn_in_weight, Role::enc_attn_out_weight, l, d, o.inner(), &e->self_attn));
    AX_RETURN_IF_ERROR(b.vector(Role::enc_norm2_weight, l, d, &e->ff_norm));
    AX_RETURN_IF_ERROR(b.linear_no_bias(Role::enc_ff1_weight, l, o.d_ff, d, &e->wi));
    if (o.gated) AX_RETURN_IF_ERROR(b.linear_no_bias(Role::enc_ff_gate_weight, l, o.d_ff, d, &e->wi_gate));
    return b.linear_no_bias(Role::enc_ff2_weight, l, d, o.d_ff, &e->wo);
}

Status bind_t5_decoder_layer(TensorBinder& b, const T5StackOptions& o, size_t layer, T5DecoderLayerWeights* e) {
    using format::Role;
    const auto l = static_cast<uint16_t>(layer);
    const size_t d = o.d_model, inner = o.inner();
    AX_RETURN_IF_ERROR(b.vector(Role::dec_norm1_weight, l, d, &e->self_norm));
    AX_RETURN_IF_ERROR(
        bind_t5_attention(b, Role::dec_attn_in_weight, Role::dec_attn_out_weight, l, d, inner, &e->self_attn));
    AX_RETURN_IF_ERROR(b.vector(Role::dec_norm2_weight, l, d, &e->cross_norm));
    AX_RETURN_IF_ERROR(
        bind_t5_attention(b, Role::dec_cross_in_weight, Role::dec_cross_out_weight, l, d, inner, &e->cross_attn));
    AX_RETURN_IF_ERROR(b.vector(Role::dec_norm3_weight, l, d, &e->ff_norm));
    AX_RETURN_IF_ERROR(b.linear_no_bias(Role::dec_ff1_weight, l, o.d_ff, d, &e->wi));
    if (o.gated) AX_RETURN_IF_ERROR(b.linear_no_bias(Role::dec_ff_gate_weight, l, o.d_ff, d, &e->wi_gate));
    return b.linear_no_bias(Role::dec_ff2_weight, l, d, o.d_ff, &e->wo);
}

void StackBuffers::allocate_encoder(MemoryPlan& plan, const ForecasterConfig& c, size_t encoder_rows) {
    if (c.stacks.encoder_residual)
        encoder_in = plan.alloc<float>("residual around the encoder: its input rows",
                                       uint64_t{encoder_rows} * c.stack.layer.d_model, Phase::encode, Phase::encode);
}

void StackBuffers::allocate_decoder(MemoryPlan& plan, const ForecasterConfig& c, size_t tile) {
    if (c.stacks.decoder_residual)
        decoder_in = plan.alloc<float>("residual around the decoder: a tile's input rows",
                                       uint64_t{tile} * c.stack.layer.d_model, Phase::decode, Phase::decode);
}

}  // namespace ax
