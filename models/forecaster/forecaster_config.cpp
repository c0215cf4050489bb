// The forecaster's config records and the checks that tie its variants together: every combination a
// file may state is either run exactly or refused here, naming the key.
#include "models/forecaster/forecaster.h"

#include "runtime/session_checks.h"

namespace ax {

namespace {

using format::ConfigKey;

Status bad(const char* what) { return Status::error(StatusCode::bad_model, what); }

template <typename E>
Status optional_enum(const ModelFile& f, ConfigKey key, E* out) {
    uint32_t v = 0;
    if (!f.config(key, &v)) return Status::ok();
    return read_config_enum(f, key, out);
}

// The positions a forecaster may have: none, sinusoidal (even d_model) or a learned table of
// max_positions rows.
Status read_positions(const ModelFile& f, size_t d, format::PositionalEncoding* out) {
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::positional_encoding, out));
    if (*out == format::PositionalEncoding::sinusoidal && d % 2 != 0)
        return bad("sinusoidal positions need an even d_model");
    if (*out != format::PositionalEncoding::none && *out != format::PositionalEncoding::sinusoidal &&
        *out != format::PositionalEncoding::learned)
        return bad("a forecaster's positional_encoding is none, sinusoidal or learned");
    return Status::ok();
}

Status check_variants(const ForecasterConfig& c) {
    const size_t d = c.stack.layer.d_model;
    if (c.input_embedding == format::InputEmbedding::none && c.n_features != d)
        return bad("input_embedding none needs n_features == d_model");
    if (c.input_embedding == format::InputEmbedding::broadcast && c.n_features != 1)
        return bad("input_embedding broadcast needs one feature");
    if (c.positional_encoding == format::PositionalEncoding::learned && c.max_positions == 0)
        return bad("learned positions need max_positions");
    if (c.head != format::ForecastHead::generator && !c.encoder_only())
        return bad("a pooled head (flatten, last_row, mean) needs an encoder-only model (decoder_layers 0)");
    if (c.head == format::ForecastHead::generator && c.head_hidden != 0) return bad("head_hidden needs a pooled head");
    if (c.decoding == format::Decoding::one_pass && c.encoder_only())
        return bad("one-pass decoding needs decoder layers");
    if (c.one_pass() && c.horizon == 0) return bad("a one-pass forecaster needs its horizon");
    if (!c.one_pass() && (c.horizon != 0 || c.label_len != 0))
        return bad("horizon and label_len belong to one-pass forecasters");
    if (c.one_pass() && c.trained_horizon != 0)
        return bad("trained_horizon belongs to forecasters that feed predictions back (a one-pass one has horizon)");
    if (c.head == format::ForecastHead::flatten && c.window == 0)
        return bad("a flatten head needs the window it was trained on");
    if (c.encoder_output_act && (!c.encoder_only() || c.head == format::ForecastHead::generator))
        return bad("encoder_output_activation needs an encoder-only model with a pooled head");
    if (c.time_marks >= c.n_features || (!c.encoder_only() && c.time_marks >= c.decoder_features))
        return bad("time_marks leaves no value column");
    if (c.token_conv() && (c.patched() || (!c.encoder_only() && c.decoding != format::Decoding::one_pass)))
        return bad("input_embedding token_conv needs whole sequences: an unpatched encoder, one-pass decoding");
    if (c.patched()) {
        if (!c.encoder_only() || c.head == format::ForecastHead::generator)
            return bad("patches need an encoder-only model with a pooled head");
        if (c.input_embedding != format::InputEmbedding::linear) return bad("patches need an input Linear");
        if (c.patch_stride == 0 || c.n_outputs != c.n_features)
            return bad("patches need patch_stride and n_outputs == n_features (one forecast per column)");
        if (c.window != 0 && c.encoder_rows(c.window) == 0) return bad("the window is shorter than a patch");
    }
    if (c.revin != format::Revin::none &&
        (c.n_outputs != c.n_features || c.normalization != format::Normalization::none || !c.one_pass()))
        return bad("RevIN needs a one-pass model with n_outputs == n_features and no other normalization");
    // Keeps the head's sizes far from overflow on 32-bit targets.
    constexpr uint64_t kMaxHeadWidth = uint64_t{1} << 28;
    if (uint64_t{c.encoder_rows(c.window)} * d > kMaxHeadWidth || uint64_t{c.horizon} * c.n_outputs > kMaxHeadWidth)
        return bad("the head's window x d_model or horizon x n_outputs is too large");
    return Status::ok();
}

// Which input column each output continues and each decoder column reads (format.h, kOutputFeatureKey and
// kDecoderFeatureKey), and how many decoder columns are known-future inputs rather than fed-back outputs.
Status read_decoder_columns(const ModelFile& f, ForecasterConfig* c) {
    auto bad = [](const char* what) { return Status::error(StatusCode::bad_model, what); };
    auto column_of = [&](uint32_t base, size_t i, size_t fallback) {
        uint32_t column = 0;
        return f.config(static_cast<ConfigKey>(base + i), &column) ? size_t{column} : fallback;
    };
    uint32_t first = 0;
    const bool listed = f.config(static_cast<ConfigKey>(format::kDecoderFeatureKey), &first);
    if (c->decoder_features != c->n_features || listed) {
        if (c->decoder_features > ForecasterConfig::kMaxOutputFeatures || c->n_outputs > c->n_features)
            return bad(
                "a decoder reading some columns reads at most 256 of them and feeds back outputs that are inputs");
        if (!listed && c->decoder_features != c->n_outputs)
            return bad("decoder_features is n_features, or n_outputs when the decoder reads the outputs, or listed");
    }
    if (c->n_outputs > c->n_features) return Status::ok();  // more outputs than inputs: none is fed back
    for (size_t i = 0; i < c->n_outputs; ++i) {
        const size_t column = column_of(format::kOutputFeatureKey, i, i);
        if (column >= c->n_features) return bad("an output's input column must be below n_features");
        for (size_t e = 0; e < i; ++e)
            if (column_of(format::kOutputFeatureKey, e, e) == column) return bad("two outputs name one input column");
    }
    // An encoder-only generator predicting some of its columns slides its window over rows of predictions
    // and the other columns' known values (covariates planned ahead).
    if (c->stack.decoder_layers == 0) {
        if (c->head == format::ForecastHead::generator) c->known_inputs = c->n_features - c->n_outputs;
        return Status::ok();
    }
    for (size_t j = 0; j < c->decoder_features; ++j) {
        const size_t fallback = c->decoder_features == c->n_features ? j : column_of(format::kOutputFeatureKey, j, j);
        const size_t column = listed ? column_of(format::kDecoderFeatureKey, j, c->n_features) : fallback;
        if (column >= c->n_features) return bad("each listed decoder column must be an input column below n_features");
        bool output = false;
        for (size_t i = 0; i < c->n_outputs; ++i)
            output = output || column_of(format::kOutputFeatureKey, i, i) == column;
        if (!output) ++c->known_inputs;
    }
    return Status::ok();
}

}  // namespace

size_t ForecasterConfig::encoder_rows(size_t rows) const {
    if (!patched()) return rows;
    const size_t padded = rows + (patch_pad ? patch_stride : 0);
    return padded < patch_len ? 0 : (padded - patch_len) / patch_stride + 1;
}

size_t ForecasterConfig::decoder_rows(size_t max_horizon) const {
    if (encoder_only()) return 0;
    return decoding == format::Decoding::one_pass ? label_len + max_horizon : max_horizon;
}

size_t ForecasterConfig::run_rows(size_t src_rows, size_t tgt_rows) const {
    // forward(x_enc, x_dec) of a one-pass decoder returns its last horizon rows (the Informer convention).
    if (decoding == format::Decoding::one_pass) return tgt_rows < horizon ? tgt_rows : horizon;
    if (!encoder_only()) return tgt_rows;
    return head == format::ForecastHead::generator ? src_rows : horizon;
}

size_t ForecasterConfig::run_horizon(size_t tgt_rows) const {
    if (encoder_only()) return one_pass() ? horizon : 1;
    if (decoding == format::Decoding::one_pass) return tgt_rows > label_len ? tgt_rows - label_len : 1;
    return tgt_rows;
}

Status read_forecaster_config(const ModelFile& f, ForecasterConfig* out) {
    if (f.family() != format::Family::forecaster) return bad_model_config("not a forecaster model");
    ForecasterConfig c;
    AX_RETURN_IF_ERROR(read_stack_config(f, 0, &c.stack));
    const size_t d = c.stack.layer.d_model;
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::n_features, 1, kMaxModelWidth, &c.n_features));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::n_outputs, 1, kMaxModelWidth, &c.n_outputs));
    AX_RETURN_IF_ERROR(read_positions(f, d, &c.positional_encoding));
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::memory_mask, &c.memory_mask));
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::normalization, &c.normalization));
    // Each output is de-normalized with the scale of the input column it predicts.
    if (c.normalization != format::Normalization::none && c.n_outputs > c.n_features)
        return bad_model_config(
            "normalization scales each output as the input column it predicts: more outputs "
            "than input columns leave some without a scale");
    // Both keys are younger than the family: files without them have no limit and no stated window.
    AX_RETURN_IF_ERROR(
        read_config_optional_size(f, ConfigKey::max_positions, 0, kMaxSequenceLength, 0, &c.max_positions));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::window, 0, kMaxSequenceLength, 0, &c.window));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::patch_len, 0, kMaxSequenceLength, 0, &c.patch_len));
    if (c.patch_len != 0) {
        AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::patch_stride, 1, kMaxSequenceLength, &c.patch_stride));
        AX_RETURN_IF_ERROR(read_config_flag(f, ConfigKey::patch_padding, &c.patch_pad));
    }
    // A patched model's positions count patches.
    if (c.max_positions != 0 && c.encoder_rows(c.window) > c.max_positions)
        return bad_model_config("config window is longer than max_positions");
    // The variants' keys are optional: a file without them is the step-by-step encoder-decoder.
    format::EncoderMask mask = format::EncoderMask::none;
    AX_RETURN_IF_ERROR(optional_enum(f, ConfigKey::encoder_mask, &mask));
    c.stack.encoder_causal = mask == format::EncoderMask::causal;
    AX_RETURN_IF_ERROR(optional_enum(f, ConfigKey::head, &c.head));
    AX_RETURN_IF_ERROR(optional_enum(f, ConfigKey::input_embedding, &c.input_embedding));
    AX_RETURN_IF_ERROR(optional_enum(f, ConfigKey::decoding, &c.decoding));
    AX_RETURN_IF_ERROR(optional_enum(f, ConfigKey::placeholder, &c.placeholder));
    AX_RETURN_IF_ERROR(optional_enum(f, ConfigKey::head_activation, &c.head_activation));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::horizon, 0, kMaxSequenceLength, 0, &c.horizon));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::label_len, 0, kMaxSequenceLength, 0, &c.label_len));
    AX_RETURN_IF_ERROR(
        read_config_optional_size(f, ConfigKey::trained_horizon, 0, kMaxSequenceLength, 0, &c.trained_horizon));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::head_hidden, 0, kMaxModelWidth, 0, &c.head_hidden));
    uint32_t bits = 0;
    if (f.config(ConfigKey::embed_scale, &bits))
        AX_RETURN_IF_ERROR(read_config_positive_float(f, ConfigKey::embed_scale, &c.embed_scale));
    c.decoder_positions = c.positional_encoding;
    if (f.config(ConfigKey::decoder_positional_encoding, &bits)) {
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::decoder_positional_encoding, &c.decoder_positions));
        // One learned table per side needs the table's rows (max_positions) from the encoder's.
        if (c.decoder_positions != c.positional_encoding && c.decoder_positions != format::PositionalEncoding::none)
            return bad("decoder_positional_encoding is none or the encoder's positional_encoding");
    }
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::decoder_features, 1, kMaxModelWidth, c.n_features,
                                                 &c.decoder_features));
    AX_RETURN_IF_ERROR(read_decoder_columns(f, &c));
    AX_RETURN_IF_ERROR(optional_enum(f, ConfigKey::revin, &c.revin));
    if (f.config(ConfigKey::encoder_output_activation, &bits)) {
        c.encoder_output_act = true;
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::encoder_output_activation, &c.encoder_output_activation));
    }
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::time_marks, 0, kMaxModelWidth, 0, &c.time_marks));
    // One pass, the placeholders' known inputs are the time marks (the other columns follow the placeholder
    // rule); step by step, every decoder column the model does not predict (read_decoder_columns).
    if (!c.encoder_only() && c.decoding == format::Decoding::one_pass) c.known_inputs = c.time_marks;
    size_t residual = 0;
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::encoder_residual, 0, 1, 0, &residual));
    c.encoder_residual = residual != 0;
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::decoder_residual, 0, 1, 0, &residual));
    c.decoder_residual = residual != 0;
    if (c.decoder_residual && c.encoder_only()) return bad("decoder_residual without a decoder");
    format::DecoderMask decoder_mask = format::DecoderMask::causal;
    AX_RETURN_IF_ERROR(optional_enum(f, ConfigKey::decoder_mask, &decoder_mask));
    if (decoder_mask != format::DecoderMask::causal && c.encoder_only()) return bad("decoder_mask without a decoder");
    c.stack.decoder_causal = decoder_mask == format::DecoderMask::causal;
    if (f.config(ConfigKey::revin_eps, &bits))
        AX_RETURN_IF_ERROR(read_config_positive_float(f, ConfigKey::revin_eps, &c.revin_eps));
    AX_RETURN_IF_ERROR(check_variants(c));
    *out = c;
    return Status::ok();
}

}  // namespace ax
