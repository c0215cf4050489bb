#include "models/forecaster/decoding_block.h"

#include "models/forecaster/forecaster_config.h"
#include "runtime/config_reader.h"

namespace ax {

using format::ConfigKey;

namespace {

Status bad(const char* what) { return Status::error(StatusCode::bad_model, what); }

}  // namespace

Status DecodingBlock::read(const ConfigRecords& f) {
    uint32_t v = 0;
    if (f.config(ConfigKey::decoding, &v)) AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::decoding, &mode));
    if (f.config(ConfigKey::placeholder, &v))
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::placeholder, &placeholder));
    if (mode == format::Decoding::start_token)
        AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::start_id, 0, 1, &start_id));
    return read_config_optional_size(f, ConfigKey::label_len, 0, kMaxSequenceLength, 0, &label_len);
}

void DecodingBlock::write(ConfigWriter& out) const {
    if (mode == format::Decoding::start_token) {
        out.put_enum(ConfigKey::decoding, mode);
        out.put_size(ConfigKey::start_id, start_id);
    }
    if (mode != format::Decoding::one_pass) return;
    out.put_enum(ConfigKey::decoding, mode);
    out.put_size(ConfigKey::label_len, label_len);
    out.put_enum(ConfigKey::placeholder, placeholder);
}

Status DecodingBlock::check(const ForecasterConfig& c) const {
    if (mode == format::Decoding::one_pass && c.encoder_only()) return bad("one-pass decoding needs decoder layers");
    if (mode == format::Decoding::start_token && c.stacks.kind != format::LayerKind::t5)
        return bad("start_token decoding is Chronos-Bolt's: it needs t5 layers");
    if (c.one_pass() && c.horizon == 0) return bad("a one-pass forecaster needs its horizon");
    if (!c.one_pass() && (c.horizon != 0 || label_len != 0))
        return bad("horizon and label_len belong to one-pass forecasters");
    if (c.one_pass() && c.trained_horizon != 0)
        return bad("trained_horizon belongs to forecasters that feed predictions back (a one-pass one has horizon)");
    return Status::ok();
}

ForecastLoop forecast_loop(const ForecasterConfig& c) {
    if (c.decoding.mode == format::Decoding::start_token) return ForecastLoop::quantile_paths;
    if (c.encoder_only()) {
        if (!c.head.pooled()) return ForecastLoop::sliding;
        return c.input.patched() ? ForecastLoop::patched : ForecastLoop::pooled;
    }
    return c.decoding.mode == format::Decoding::one_pass ? ForecastLoop::one_pass_decoder
                                                         : ForecastLoop::autoregressive;
}

}  // namespace ax
