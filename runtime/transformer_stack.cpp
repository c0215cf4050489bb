#include "runtime/transformer_stack.h"

#include <new>

#include "runtime/config_reader.h"

namespace ax {

namespace {

using format::ConfigKey;
using format::Role;

Status bind_encoder_layer(TensorBinder& b, const LayerOptions& o, size_t index, EncoderLayerWeights* w) {
    const size_t d = o.d_model;
    const size_t ff = o.dim_feedforward;
    const uint16_t L = static_cast<uint16_t>(index);
    AX_RETURN_IF_ERROR(b.attention(Role::enc_attn_in_weight, L, d, o.value_width(), &w->self_attn));
    AX_RETURN_IF_ERROR(b.linear(Role::enc_ff1_weight, Role::enc_ff1_bias, L, ff, d, &w->ff1));
    AX_RETURN_IF_ERROR(b.linear(Role::enc_ff2_weight, Role::enc_ff2_bias, L, d, ff, &w->ff2));
    AX_RETURN_IF_ERROR(b.layer_norm(Role::enc_norm1_weight, Role::enc_norm1_bias, L, d, &w->norm1));
    return b.layer_norm(Role::enc_norm2_weight, Role::enc_norm2_bias, L, d, &w->norm2);
}

Status bind_decoder_layer(TensorBinder& b, const LayerOptions& o, size_t index, DecoderLayerWeights* w) {
    const size_t d = o.d_model;
    const size_t ff = o.dim_feedforward;
    const uint16_t L = static_cast<uint16_t>(index);
    AX_RETURN_IF_ERROR(b.attention(Role::dec_attn_in_weight, L, d, o.value_width(), &w->self_attn));
    AX_RETURN_IF_ERROR(b.attention(Role::dec_cross_in_weight, L, d, o.value_width(), &w->cross_attn));
    AX_RETURN_IF_ERROR(b.linear(Role::dec_ff1_weight, Role::dec_ff1_bias, L, ff, d, &w->ff1));
    AX_RETURN_IF_ERROR(b.linear(Role::dec_ff2_weight, Role::dec_ff2_bias, L, d, ff, &w->ff2));
    AX_RETURN_IF_ERROR(b.layer_norm(Role::dec_norm1_weight, Role::dec_norm1_bias, L, d, &w->norm1));
    AX_RETURN_IF_ERROR(b.layer_norm(Role::dec_norm2_weight, Role::dec_norm2_bias, L, d, &w->norm2));
    return b.layer_norm(Role::dec_norm3_weight, Role::dec_norm3_bias, L, d, &w->norm3);
}

}  // namespace

Status read_stack_records(const ConfigRecords& f, size_t min_decoder_layers, StackConfig* out) {
    StackConfig c;
    LayerOptions& l = c.layer;
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::d_model, 1, kMaxModelWidth, &l.d_model));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::nhead, 1, l.d_model, &l.nhead));
    // Layers with their own head_dim (T5's) have nhead x head_dim attention columns, whatever d_model is.
    uint32_t head_dim = 0;
    if (l.d_model % l.nhead != 0 && !f.config(ConfigKey::head_dim, &head_dim))
        return Status::error(StatusCode::bad_model, "d_model is not a multiple of nhead");
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::dim_feedforward, 1, kMaxModelWidth, &l.dim_feedforward));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::encoder_layers, 1, kMaxModelLayers, &c.encoder_layers));
    AX_RETURN_IF_ERROR(
        read_config_size(f, ConfigKey::decoder_layers, min_decoder_layers, kMaxModelLayers, &c.decoder_layers));
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::activation, &l.activation));
    AX_RETURN_IF_ERROR(read_config_flag(f, ConfigKey::norm_first, &l.norm_first));
    AX_RETURN_IF_ERROR(read_config_positive_float(f, ConfigKey::layer_norm_eps, &l.eps));
    AX_RETURN_IF_ERROR(read_config_flag(f, ConfigKey::encoder_final_norm, &c.encoder_final_norm));
    AX_RETURN_IF_ERROR(read_config_flag(f, ConfigKey::decoder_final_norm, &c.decoder_final_norm));
    uint32_t norms = 0;
    if (f.config(ConfigKey::layer_norms, &norms))  // optional: files before the key hold LayerNorms
        AX_RETURN_IF_ERROR(read_config_flag(f, ConfigKey::layer_norms, &l.batch_norm));
    if (f.config(ConfigKey::residual_attention, &norms))
        AX_RETURN_IF_ERROR(read_config_flag(f, ConfigKey::residual_attention, &l.residual_attention));
    // Value heads of their own width (attention written one head at a time): the attentions' outputs, nhead x
    // value_dim wide, are bounded as d_model is.
    if (f.config(ConfigKey::value_dim, &norms))
        AX_RETURN_IF_ERROR(
            read_config_u32(f, ConfigKey::value_dim, 1, static_cast<uint32_t>(kMaxModelWidth / l.nhead), &l.value_dim));
    if (l.residual_attention && c.decoder_layers != 0)
        return Status::error(StatusCode::bad_model, "residual attention is an encoder-only model's");
    if (c.decoder_layers == 0 && c.decoder_final_norm)
        return Status::error(StatusCode::bad_model, "a decoder final norm without decoder layers");
    uint32_t v = 0;
    if (f.config(ConfigKey::kv_cache, &v)) {  // optional: files written before the key existed have float caches
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::kv_cache, &c.kv_cache));
        if (c.decoder_layers == 0 && c.kv_cache != CacheType::f32)
            return Status::error(StatusCode::bad_model, "an int8 kv_cache without decoder layers");
    }
    *out = c;
    return Status::ok();
}

Status read_stack_config(const ModelFile& f, size_t min_decoder_layers, StackConfig* out) {
    AX_RETURN_IF_ERROR(read_stack_records(f, min_decoder_layers, out));
    note_stack_tensors(f, out);
    return Status::ok();
}

void note_stack_tensors(const ModelFile& f, StackConfig* c) {
    // Sizes the encoder's all-rows int8 scratch (LayerScratch::x_q); binding checks the tensors later.
    for (size_t i = 0; i < c->encoder_layers; ++i) {
        TensorView t;
        if (f.find(Role::enc_attn_in_weight, static_cast<uint16_t>(i), &t) && format::dtype_takes_int8_rows(t.dtype))
            c->layer.int8_encoder_attention = true;
    }
}

Status bind_stack(TensorBinder& b, const StackConfig& c, LayerNormWeights* encoder_norm,
                  LayerNormWeights* decoder_norm) {
    const size_t d = c.layer.d_model;
    if (c.encoder_final_norm)
        AX_RETURN_IF_ERROR(
            b.layer_norm(Role::encoder_norm_weight, Role::encoder_norm_bias, format::kNoLayer, d, encoder_norm));
    if (c.decoder_final_norm)
        AX_RETURN_IF_ERROR(
            b.layer_norm(Role::decoder_norm_weight, Role::decoder_norm_bias, format::kNoLayer, d, decoder_norm));
    for (size_t i = 0; i < c.encoder_layers; ++i) {
        EncoderLayerWeights w;
        AX_RETURN_IF_ERROR(bind_encoder_layer(b, c.layer, i, &w));
    }
    for (size_t i = 0; i < c.decoder_layers; ++i) {
        DecoderLayerWeights w;
        AX_RETURN_IF_ERROR(bind_decoder_layer(b, c.layer, i, &w));
    }
    return Status::ok();
}

void StackSession::allocate(MemoryPlan& plan, const StackConfig& c, size_t max_target, size_t max_memory,
                            bool memory_causal) {
    const size_t d = c.layer.d_model;
    const size_t layers = c.decoder_layers;
    const size_t cross_rows = memory_causal && max_target < max_memory ? max_target : max_memory;
    encoder = plan.alloc_records<EncoderLayerWeights>("encoder layer tables", c.encoder_layers);
    decoder = plan.alloc_records<DecoderLayerWeights>("decoder layer tables", layers);
    self_cache = plan.alloc_records<KvCache>("self-attention cache records", layers);
    cross_cache = plan.alloc_records<KvCache>("cross-attention cache records", layers);
    // One block per kind for all layers: the plan's buffer count does not grow with the depth. A layer's keys
    // (d values a row), then its values (nhead x value_dim a row: d unless the model states value_dim).
    const CacheType t = c.kv_cache;
    const size_t elem = t == CacheType::i8 ? 1 : sizeof(float);
    const size_t row = d + c.layer.value_width();  // a key, then a value
    uint8_t* self_rows = plan.alloc<uint8_t>("self-attention k/v cache", uint64_t{layers} * max_target * row * elem,
                                             Phase::decode, Phase::decode);
    uint8_t* cross_rows_block = plan.alloc<uint8_t>(
        "cross-attention k/v cache", uint64_t{layers} * cross_rows * row * elem, Phase::prepare, Phase::decode);
    float* self_scales = nullptr;
    float* cross_scales = nullptr;
    if (t == CacheType::i8) {
        self_scales = plan.alloc<float>("self-attention cache scales", uint64_t{layers} * 2 * max_target, Phase::decode,
                                        Phase::decode);
        cross_scales = plan.alloc<float>("cross-attention cache scales", uint64_t{layers} * 2 * cross_rows,
                                         Phase::prepare, Phase::decode);
    }
    if (self_cache == nullptr || plan.failed()) return;  // planning: no memory to fill in
    const auto cache = [&](uint8_t* rows, float* scales, size_t capacity, size_t i) {
        KvCache kv;
        kv.capacity = capacity;
        kv.type = t;
        kv.key = rows + i * capacity * row * elem;
        kv.value = rows + (i * row + d) * capacity * elem;
        if (scales != nullptr) {
            kv.key_scale = scales + (2 * i) * capacity;
            kv.value_scale = scales + (2 * i + 1) * capacity;
        }
        return kv;
    };
    for (size_t i = 0; i < layers; ++i) {
        new (&self_cache[i]) KvCache(cache(self_rows, self_scales, max_target, i));  // placement into the arena
        new (&cross_cache[i]) KvCache(cache(cross_rows_block, cross_scales, cross_rows, i));
    }
}

Status StackSession::bind(const ModelFile& file, const StackConfig& c) {
    TensorBinder b(file);
    for (size_t i = 0; i < c.encoder_layers; ++i)
        AX_RETURN_IF_ERROR(bind_encoder_layer(b, c.layer, i, new (&encoder[i]) EncoderLayerWeights()));
    for (size_t i = 0; i < c.decoder_layers; ++i)
        AX_RETURN_IF_ERROR(bind_decoder_layer(b, c.layer, i, new (&decoder[i]) DecoderLayerWeights()));
    return Status::ok();
}

void StackSession::encode(const Kernels& k, const StackConfig& c, const LayerNormWeights& final_norm, float* x,
                          size_t rows, const uint8_t* valid, LayerScratch& s) const {
    // The first layer adds zeros: as PyTorch's prev=None.
    if (s.res_scores != nullptr)
        for (size_t i = 0; i < c.layer.nhead * rows * rows; ++i) s.res_scores[i] = 0.0f;
    for (size_t i = 0; i < c.encoder_layers; ++i)
        encoder_layer_forward(k, c.layer, encoder[i], x, rows, s, valid, c.encoder_causal);
    if (c.encoder_final_norm) layer_norm_rows(k, final_norm, x, rows, c.layer.d_model, c.layer.eps, x);
}

void StackSession::prepare_memory(const Kernels& k, const StackConfig& c, const float* memory, size_t rows,
                                  LayerScratch& s) const {
    decoder_layers_prepare_memory(k, c.layer, decoder, cross_cache, c.decoder_layers, memory, rows, s);
}

void StackSession::decode(const Kernels& k, const StackConfig& c, const LayerNormWeights& final_norm, float* x,
                          size_t rows, size_t first, size_t mem_rows, const uint8_t* self_valid,
                          const uint8_t* memory_valid, LayerScratch& s, bool memory_causal) const {
    for (size_t i = 0; i < c.decoder_layers; ++i)
        decoder_layer_forward(k, c.layer, decoder[i], x, rows, first, self_cache[i], cross_cache[i], mem_rows,
                              memory_causal, s, self_valid, memory_valid, c.decoder_causal);
    if (c.decoder_final_norm) layer_norm_rows(k, final_norm, x, rows, c.layer.d_model, c.layer.eps, x);
}

}  // namespace ax
