// The forecaster's description read from its records: the columns and lengths here, each block's options by
// the block (models/forecaster/*_block.cpp), then every block's check against the rest. Every combination a
// file may state is either run exactly or refused by the block it concerns, naming the key.
#include "models/forecaster/forecaster_config.h"

#include "models/forecaster/chronos_bolt_alias.h"
#include "runtime/config_reader.h"
#include "runtime/session_checks.h"

namespace ax {

namespace {

using format::ConfigKey;

Status bad(const char* what) { return Status::error(StatusCode::bad_model, what); }

// Which input column each output continues and each decoder column reads (format.h, kOutputFeatureKey and
// kDecoderFeatureKey), and how many decoder columns are known-future inputs rather than fed-back outputs.
Status read_decoder_columns(const ConfigRecords& f, ForecasterConfig* c) {
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
        if (!c->head.pooled()) c->known_inputs = c->n_features - c->n_outputs;
        return Status::ok();
    }
    // One pass, the placeholders' known inputs are the time marks (the other columns follow the placeholder
    // rule); step by step, every decoder column the model does not predict.
    if (c->decoding.mode == format::Decoding::one_pass) {
        c->known_inputs = c->time_marks;
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

// What no single block owns: the value columns and the head's sizes.
Status check_columns(const ForecasterConfig& c) {
    if (c.time_marks >= c.n_features || (!c.encoder_only() && c.time_marks >= c.decoder_features))
        return bad("time_marks leaves no value column");
    // Keeps the head's sizes far from overflow on 32-bit targets.
    constexpr uint64_t kMaxHeadWidth = uint64_t{1} << 28;
    if (uint64_t{c.encoder_rows(c.window)} * c.stack.layer.d_model > kMaxHeadWidth ||
        uint64_t{c.horizon} * c.n_outputs > kMaxHeadWidth)
        return bad("the head's window x d_model or horizon x n_outputs is too large");
    return Status::ok();
}

}  // namespace

size_t ForecasterConfig::decoder_rows(size_t max_horizon) const {
    if (encoder_only()) return 0;
    if (decoding.mode == format::Decoding::start_token) return 1;
    return decoding.mode == format::Decoding::one_pass ? decoding.label_len + max_horizon : max_horizon;
}

size_t ForecasterConfig::run_rows(size_t src_rows, size_t tgt_rows) const {
    if (decoding.mode == format::Decoding::start_token) return horizon;  // one call's steps of every quantile
    // forward(x_enc, x_dec) of a one-pass decoder returns its last horizon rows (the Informer convention).
    if (decoding.mode == format::Decoding::one_pass) return tgt_rows < horizon ? tgt_rows : horizon;
    if (!encoder_only()) return tgt_rows;
    return head.pooled() ? horizon : src_rows;
}

size_t ForecasterConfig::run_horizon(size_t tgt_rows) const {
    if (decoding.mode == format::Decoding::start_token) return horizon;
    if (encoder_only()) return one_pass() ? horizon : 1;
    if (decoding.mode == format::Decoding::one_pass)
        return tgt_rows > decoding.label_len ? tgt_rows - decoding.label_len : 1;
    return tgt_rows;
}

void write_forecaster_config(const ForecasterConfig& c, ConfigWriter& out) {
    out.put_size(ConfigKey::n_features, c.n_features);
    out.put_size(ConfigKey::n_outputs, c.n_outputs);
    // Written only when known, so that a model without them reads exactly as files from before the keys.
    if (c.max_positions != 0) out.put_size(ConfigKey::max_positions, c.max_positions);
    if (c.window != 0) out.put_size(ConfigKey::window, c.window);
    if (c.horizon != 0) out.put_size(ConfigKey::horizon, c.horizon);
    if (c.trained_horizon != 0) out.put_size(ConfigKey::trained_horizon, c.trained_horizon);
    if (c.time_marks != 0) out.put_size(ConfigKey::time_marks, c.time_marks);
    c.normalizer.write(out);
    c.positions.write(out);
    c.input.write(out);
    c.stacks.write(c.stack, out);
    c.decoding.write(out);
    c.head.write(out);
}

Status check_forecaster_config(const ForecasterConfig& c) {
    AX_RETURN_IF_ERROR(c.normalizer.check(c));
    AX_RETURN_IF_ERROR(c.positions.check(c));
    AX_RETURN_IF_ERROR(c.stacks.check(c));
    AX_RETURN_IF_ERROR(c.input.check(c));
    AX_RETURN_IF_ERROR(c.head.check(c));
    AX_RETURN_IF_ERROR(c.decoding.check(c));
    return check_columns(c);
}

Status read_forecaster_config(const ModelFile& f, ForecasterConfig* out) {
    if (f.family() != format::Family::forecaster) return bad_model_config("not a forecaster model");
    uint32_t architecture = 0;
    if (!f.config(ConfigKey::architecture, &architecture)) architecture = 0;  // config() leaves a miss undefined
    if (architecture > format::enum_max<format::Architecture>())
        return Status::error(StatusCode::bad_model, "unknown forecaster architecture ")
            .add(architecture)
            .add(": the file is newer than this runtime");
    // A Chronos-Bolt file of before its blocks' options reads as one that states them.
    if (architecture == static_cast<uint32_t>(format::Architecture::chronos_bolt))
        AX_RETURN_IF_ERROR(read_chronos_bolt_alias(f, out));
    else
        AX_RETURN_IF_ERROR(read_forecaster_records(f, out));
    note_stack_tensors(f, &out->stack);
    return Status::ok();
}

Status read_forecaster_records(const ConfigRecords& f, ForecasterConfig* out) {
    ForecasterConfig c;
    AX_RETURN_IF_ERROR(read_stack_records(f, 0, &c.stack));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::n_features, 1, kMaxModelWidth, &c.n_features));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::n_outputs, 1, kMaxModelWidth, &c.n_outputs));
    // Both keys are younger than the family: files without them have no limit and no stated window.
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::window, 0, kMaxSequenceLength, 0, &c.window));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::horizon, 0, kMaxSequenceLength, 0, &c.horizon));
    AX_RETURN_IF_ERROR(
        read_config_optional_size(f, ConfigKey::trained_horizon, 0, kMaxSequenceLength, 0, &c.trained_horizon));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::time_marks, 0, kMaxModelWidth, 0, &c.time_marks));
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::decoder_features, 1, kMaxModelWidth, c.n_features,
                                                 &c.decoder_features));
    // The blocks' own records (the variants' keys are optional: a file without them is the step-by-step
    // encoder-decoder).
    AX_RETURN_IF_ERROR(c.normalizer.read(f));
    AX_RETURN_IF_ERROR(c.positions.read(f, c.stack.layer.d_model, &c.max_positions));
    AX_RETURN_IF_ERROR(c.input.read(f));
    AX_RETURN_IF_ERROR(c.stacks.read(f, &c.stack));
    AX_RETURN_IF_ERROR(c.decoding.read(f));
    AX_RETURN_IF_ERROR(c.head.read(f));
    AX_RETURN_IF_ERROR(read_decoder_columns(f, &c));
    AX_RETURN_IF_ERROR(check_forecaster_config(c));
    c.loop = forecast_loop(c);
    *out = c;
    return Status::ok();
}

}  // namespace ax
