#include "models/forecaster/input_block.h"

#include <cstring>

#include "models/forecaster/forecaster_config.h"
#include "runtime/config_reader.h"

namespace ax {

using format::ConfigKey;

namespace {

Status bad(const char* what) { return Status::error(StatusCode::bad_model, what); }

}  // namespace

size_t InputBlock::encoder_rows(size_t rows) const {
    if (patch_mlp()) return (rows + patch_len - 1) / patch_len + (has_reg_token() ? 1 : 0);
    if (!patched()) return rows;
    const size_t padded = padded_rows(rows);
    return padded < patch_len ? 0 : (padded - patch_len) / patch_stride + 1;
}

Status InputBlock::read(const ConfigRecords& f) {
    uint32_t v = 0;
    if (f.config(ConfigKey::input_embedding, &v))
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::input_embedding, &kind));
    if (f.config(ConfigKey::embed_scale, &v))
        AX_RETURN_IF_ERROR(read_config_positive_float(f, ConfigKey::embed_scale, &scale));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::patch_len, 0, kMaxSequenceLength, 0, &patch_len));
    if (patch_mlp()) {
        if (patch_len == 0) return bad("input_embedding patch_mlp needs patch_len");
        patch_stride = patch_len;
        if (f.config(ConfigKey::reg_token, &v) && v != format::kNoToken && v > 1)
            return bad("patch_mlp's reg_token is token row 1, or none (kNoToken)");
        reg_token = f.config(ConfigKey::reg_token, &v) ? v : format::kNoToken;
    } else if (patch_len != 0) {
        AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::patch_stride, 1, kMaxSequenceLength, &patch_stride));
        AX_RETURN_IF_ERROR(read_config_flag(f, ConfigKey::patch_padding, &patch_pad));
    }
    return Status::ok();
}

Status InputBlock::check(const ForecasterConfig& c) const {
    if (kind == format::InputEmbedding::none && c.n_features != c.stack.layer.d_model)
        return bad("input_embedding none needs n_features == d_model");
    if (kind == format::InputEmbedding::broadcast && c.n_features != 1)
        return bad("input_embedding broadcast needs one feature");
    if (token_conv() && (patched() || (!c.encoder_only() && c.decoding.mode != format::Decoding::one_pass)))
        return bad("input_embedding token_conv needs whole sequences: an unpatched encoder, one-pass decoding");
    if (patch_mlp() && (c.stacks.kind != format::LayerKind::t5 || c.n_features != 1 || scale != 1.0f))
        return bad("input_embedding patch_mlp is Chronos-Bolt's: one column, t5 layers, no embed_scale");
    if (patched()) {
        if (!c.encoder_only() || !c.head.pooled()) return bad("patches need an encoder-only model with a pooled head");
        if (kind != format::InputEmbedding::linear) return bad("patches need an input Linear");
        if (patch_stride == 0 || c.n_outputs != c.n_features)
            return bad("patches need patch_stride and n_outputs == n_features (one forecast per column)");
        if (c.window != 0 && encoder_rows(c.window) == 0) return bad("the window is shorter than a patch");
    }
    return Status::ok();
}

void InputBlock::write(ConfigWriter& out) const {
    if (kind != format::InputEmbedding::linear) out.put_enum(ConfigKey::input_embedding, kind);
    if (scale != 1.0f) out.put_float(ConfigKey::embed_scale, scale);
    if (patch_mlp()) {
        out.put_size(ConfigKey::patch_len, patch_len);
        out.put(ConfigKey::reg_token, reg_token);
        return;
    }
    if (!patched()) return;
    out.put_size(ConfigKey::patch_len, patch_len);
    out.put_size(ConfigKey::patch_stride, patch_stride);
    out.put(ConfigKey::patch_padding, patch_pad ? 1u : 0u);
}

Status InputWeights::bind(TensorBinder& b, const ForecasterConfig& c) {
    const InputBlock& block = c.input;
    const size_t d = c.stack.layer.d_model;
    const uint16_t none = format::kNoLayer;
    if (block.patch_mlp()) {
        const float* tokens = nullptr;
        AX_RETURN_IF_ERROR(bind_token_rows(b, c, &tokens));
        ResidualMlpWeights mlp;
        return bind_input_mlp(b, c, &mlp);
    }
    if (block.kind == format::InputEmbedding::linear || block.token_conv())
        AX_RETURN_IF_ERROR(b.linear(format::Role::src_embed_weight, format::Role::src_embed_bias, none, d,
                                    block.patched() ? block.patch_len : c.embed_width(c.n_features), &src));
    if (!c.encoder_only())
        AX_RETURN_IF_ERROR(b.linear(format::Role::tgt_embed_weight, format::Role::tgt_embed_bias, none, d,
                                    c.embed_width(c.decoder_features), &tgt));
    return Status::ok();
}

Status bind_token_rows(TensorBinder& b, const ForecasterConfig& c, const float** out) {
    // The [REG] row and the decoder's start row (Chronos-Bolt's `shared`).
    const size_t start = c.decoding.start_id;
    const size_t rows = 1 + (c.input.has_reg_token() && c.input.reg_token > start ? c.input.reg_token : start);
    return b.table_f32(format::Role::src_token_embed, format::kNoLayer, rows, c.stack.layer.d_model, out);
}

Status bind_input_mlp(TensorBinder& b, const ForecasterConfig& c, ResidualMlpWeights* out) {
    return bind_residual_mlp(b, 0, 2 * c.input.patch_len, c.stack.layer.dim_feedforward, c.stack.layer.d_model,
                             c.stack.layer.activation, out);
}

void InputBuffers::allocate_encoder(MemoryPlan& plan, const ForecasterConfig& c, size_t max_window) {
    const InputBlock& block = c.input;
    if (block.token_conv())
        conv_src = plan.alloc<float>("token_conv: the window's neighbours",
                                     uint64_t{max_window} * c.embed_width(c.n_features), Phase::encode, Phase::encode);
    if (block.patched()) {
        series = plan.alloc<float>("one column's window", uint64_t{max_window} + block.patch_stride, Phase::encode,
                                   Phase::encode);
        patches = plan.alloc<float>("one column's patches", uint64_t{block.encoder_rows(max_window)} * block.patch_len,
                                    Phase::encode, Phase::encode);
    }
}

void InputBuffers::allocate_decoder(MemoryPlan& plan, const ForecasterConfig& c, size_t tile) {
    if (c.input.token_conv())
        conv_dec = plan.alloc<float>("token_conv: a decoder tile's neighbours",
                                     uint64_t{tile} * c.embed_width(c.decoder_features), Phase::decode, Phase::decode);
}

void embed_input(const Kernels& k, const InputBlock& block, const Linear& linear, const float* in, size_t rows,
                 size_t d, float* x, const QuantScratch& quant) {
    const format::InputEmbedding kind = linear.weight != nullptr ? format::InputEmbedding::linear : block.kind;
    if (kind == format::InputEmbedding::linear) {
        linear_forward(k, linear, in, rows, x, quant);
    } else if (kind == format::InputEmbedding::none) {
        std::memcpy(x, in, rows * d * sizeof(float));
    } else {
        for (size_t r = 0; r < rows; ++r)
            for (size_t j = 0; j < d; ++j) x[r * d + j] = in[r];
    }
    if (block.scale != 1.0f)
        for (size_t i = 0; i < rows * d; ++i) x[i] *= block.scale;
}

void conv_rows(size_t time_marks, const float* seq, size_t seq_rows, size_t columns, size_t first, size_t n,
               float* out) {
    const size_t values = columns - time_marks;
    const size_t width = 3 * values + time_marks;
    for (size_t r = 0; r < n; ++r) {
        const size_t t = first + r;
        const size_t neighbours[3] = {(t + seq_rows - 1) % seq_rows, t, (t + 1) % seq_rows};
        float* row = out + r * width;
        for (size_t i = 0; i < 3; ++i)
            std::memcpy(row + i * values, seq + neighbours[i] * columns, values * sizeof(float));
        std::memcpy(row + 3 * values, seq + t * columns + values, time_marks * sizeof(float));
    }
}

void cut_patches(const InputBlock& block, const float* src, size_t rows, size_t n_features, size_t column,
                 float* series, float* patches) {
    for (size_t r = 0; r < rows; ++r) series[r] = src[r * n_features + column];
    const size_t padded = block.padded_rows(rows);
    for (size_t r = rows; r < padded; ++r) series[r] = src[(rows - 1) * n_features + column];
    const size_t tokens = block.encoder_rows(rows);
    for (size_t t = 0; t < tokens; ++t)
        std::memcpy(patches + t * block.patch_len, series + t * block.patch_stride, block.patch_len * sizeof(float));
}

}  // namespace ax
