#include "models/forecaster/chronos_bolt_alias.h"

#include "models/forecaster/forecaster_config.h"

namespace ax {

using format::ConfigKey;

void ChronosBoltAliasRecords::append(uint32_t key, uint32_t value) {
    if (count_ == kMaxRecords) {
        full_ = true;
        return;
    }
    uint8_t* at = bytes_ + count_ * format::kConfigRecordBytes;
    const uint32_t words[2] = {key, value};
    for (size_t w = 0; w < 2; ++w)
        for (size_t b = 0; b < 4; ++b) at[4 * w + b] = static_cast<uint8_t>(words[w] >> (8 * b));
    ++count_;
}

void ChronosBoltAliasRecords::put(ConfigKey key, uint32_t value) {
    uint32_t present = 0;
    if (!records().config(key, &present)) append(static_cast<uint32_t>(key), value);
}

Status read_chronos_bolt_alias(const ModelFile& f, ForecasterConfig* out) {
    static_assert(sizeof(ChronosBoltAliasRecords) <= 600, "the alias records live on the stack while reading");
    ChronosBoltAliasRecords records;
    AX_RETURN_IF_ERROR(records.fill(f));
    return read_forecaster_records(records.records(), out);
}

Status ChronosBoltAliasRecords::fill(const ModelFile& f) {
    count_ = 0;
    full_ = false;
    uint32_t architecture = 0;
    if (!f.config(ConfigKey::architecture, &architecture) ||
        architecture != static_cast<uint32_t>(format::Architecture::chronos_bolt))
        return Status::error(StatusCode::invalid_argument, "not a chronos_bolt file (architecture record)");
    // Every record of the file as it is (a repeated key included: the first one counts, as in the file).
    for (uint32_t i = 0; i < f.config_count(); ++i) {
        uint32_t key = 0, value = 0;
        f.config_record(i, &key, &value);
        append(key, value);
    }
    put(ConfigKey::n_features, 1);
    put(ConfigKey::n_outputs, 1);
    put(ConfigKey::norm_first, 1);
    put(ConfigKey::encoder_final_norm, 1);
    put(ConfigKey::decoder_final_norm, 1);
    put(ConfigKey::normalization, static_cast<uint32_t>(format::Normalization::instance));
    put(ConfigKey::positional_encoding, static_cast<uint32_t>(format::PositionalEncoding::relative));
    put(ConfigKey::memory_mask, static_cast<uint32_t>(format::MemoryMask::none));
    put(ConfigKey::layer_kind, static_cast<uint32_t>(format::LayerKind::t5));
    put(ConfigKey::input_embedding, static_cast<uint32_t>(format::InputEmbedding::patch_mlp));
    put(ConfigKey::decoding, static_cast<uint32_t>(format::Decoding::start_token));
    put(ConfigKey::head, static_cast<uint32_t>(format::ForecastHead::residual_mlp));
    TensorView levels;
    if (f.find(format::Role::quantile_levels, 0, &levels) && levels.rank == 1)
        put(ConfigKey::quantiles, static_cast<uint32_t>(levels.dims[0]));
    if (full_)
        return Status::error(StatusCode::bad_model, "a chronos_bolt file with more than ")
            .add(kMaxRecords - 13)
            .add(" config records");
    return Status::ok();
}

}  // namespace ax
