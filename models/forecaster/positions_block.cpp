#include "models/forecaster/positions_block.h"

#include "models/forecaster/forecaster_config.h"
#include "runtime/config_reader.h"
#include "runtime/session_checks.h"
#include "runtime/rows_split.h"

namespace ax {

using format::ConfigKey;
using format::PositionalEncoding;

namespace {

Status bad(const char* what) { return Status::error(StatusCode::bad_model, what); }

}  // namespace

Status PositionsBlock::read(const ConfigRecords& f, size_t d_model, size_t* max_positions) {
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::positional_encoding, &encoder));
    if (encoder == PositionalEncoding::sinusoidal && d_model % 2 != 0)
        return bad("sinusoidal positions need an even d_model");
    if (encoder != PositionalEncoding::none && encoder != PositionalEncoding::sinusoidal &&
        encoder != PositionalEncoding::learned && encoder != PositionalEncoding::relative)
        return bad("a forecaster's positional_encoding is none, sinusoidal, learned or relative");
    if (relative()) {
        AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::relative_buckets, 4, 4096, &buckets));
        AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::relative_max_distance, 2, 1u << 20, &max_distance));
        if (buckets % 4 != 0 || max_distance <= buckets / 4)
            return bad("relative_buckets must be a multiple of 4 and relative_max_distance above a quarter of it");
    }
    AX_RETURN_IF_ERROR(read_config_optional_size(f, ConfigKey::max_positions, 0, kMaxSequenceLength, 0, max_positions));
    decoder = encoder;
    uint32_t v = 0;
    if (f.config(ConfigKey::decoder_positional_encoding, &v)) {
        AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::decoder_positional_encoding, &decoder));
        // One learned table per side needs the table's rows (max_positions) from the encoder's.
        if (decoder != encoder && decoder != PositionalEncoding::none)
            return bad("decoder_positional_encoding is none or the encoder's positional_encoding");
    }
    return Status::ok();
}

Status PositionsBlock::check(const ForecasterConfig& c) const {
    // A patched model's positions count patches.
    if (c.max_positions != 0 && c.encoder_rows(c.window) > c.max_positions)
        return bad_model_config("config window is longer than max_positions");
    if (encoder == PositionalEncoding::learned && c.max_positions == 0)
        return bad("learned positions need max_positions");
    if ((relative() || decoder == PositionalEncoding::relative) &&
        (decoder != encoder || c.stacks.kind != format::LayerKind::t5))
        return bad("relative positions are T5's: both stacks of t5 layers");
    return Status::ok();
}

void PositionsBlock::write(ConfigWriter& out) const {
    out.put_enum(ConfigKey::positional_encoding, encoder);
    if (decoder != encoder) out.put_enum(ConfigKey::decoder_positional_encoding, decoder);
    if (relative()) {
        out.put_size(ConfigKey::relative_buckets, buckets);
        out.put_size(ConfigKey::relative_max_distance, max_distance);
    }
}

Status PositionsWeights::bind(TensorBinder& b, const ForecasterConfig& c) {
    const PositionsBlock& block = c.positions;
    const size_t d = c.stack.layer.d_model;
    if (block.relative()) {
        const float* tables[2] = {};
        return bind_relative_bias(b, c, &tables[0], &tables[1]);
    }
    if (block.encoder == PositionalEncoding::learned)
        AX_RETURN_IF_ERROR(b.embedding(format::Role::src_pos_embed, format::kNoLayer, c.max_positions, d, &src));
    if (!c.encoder_only() && block.decoder == PositionalEncoding::learned)
        AX_RETURN_IF_ERROR(b.embedding(format::Role::tgt_pos_embed, format::kNoLayer, c.max_positions, d, &tgt));
    return Status::ok();
}

Status bind_relative_bias(TensorBinder& b, const ForecasterConfig& c, const float** encoder, const float** decoder) {
    // The first layer of each stack holds the table (layer 0: the encoder's, 1: the decoder's).
    const size_t buckets = c.positions.buckets, heads = c.stack.layer.nhead;
    AX_RETURN_IF_ERROR(b.table_f32(format::Role::relative_bias, 0, buckets, heads, encoder));
    return b.table_f32(format::Role::relative_bias, 1, buckets, heads, decoder);
}

void add_positions(const Kernels& k, const PositionsBlock& block, const PositionsWeights& w, Side side, float* x,
                   size_t rows, size_t first, size_t d, const ParallelFor* parallel) {
    const PositionalEncoding kind = side == Side::encoder ? block.encoder : block.decoder;
    if (kind == PositionalEncoding::sinusoidal) {
        add_sinusoidal_split(k, x, rows, d, first, parallel);
    } else if (kind == PositionalEncoding::learned) {
        const EmbeddingTable& table = side == Side::encoder ? w.src : w.tgt;
        for (size_t r = 0; r < rows; ++r) embedding_add_row(table, first + r, x + r * d);
    }
}

}  // namespace ax
