#include "models/forecaster/chronos_bolt_file.h"

namespace ax {

using format::ConfigKey;

bool is_chronos_bolt(const ModelFile& f) {
    uint32_t v = 0;
    if (f.family() != format::Family::forecaster) return false;
    if (f.config(ConfigKey::architecture, &v) && v == static_cast<uint32_t>(format::Architecture::chronos_bolt))
        return true;
    return f.config(ConfigKey::layer_kind, &v) && v == static_cast<uint32_t>(format::LayerKind::t5);
}

Status chronos_bolt_open(const ModelFile& f, ChronosBoltModel* out) {
    if (!is_chronos_bolt(f))
        return Status::error(StatusCode::invalid_argument, "not a Chronos-Bolt forecaster (t5 layers)");
    // The layer counts first: the tables below hold kChronosBoltMaxLayers (the file's tensors are checked next).
    ForecasterConfig c;
    AX_RETURN_IF_ERROR(read_forecaster_config(f, &c));
    if (c.stack.encoder_layers > kChronosBoltMaxLayers || c.stack.decoder_layers > kChronosBoltMaxLayers)
        return Status::error(StatusCode::unsupported, "encoder_layers or decoder_layers above ")
            .add(kChronosBoltMaxLayers)
            .add(": the flat-memory entry points hold that many; the forecaster's session (ForecastSession) runs it");
    AX_RETURN_IF_ERROR(Forecaster::open(f, &out->model));
    return out->model.bind_quantile_weights(out->encoder, out->decoder, &out->weights);
}

}  // namespace ax
