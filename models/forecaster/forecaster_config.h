// The forecaster's model description: its columns and lengths, then one option set per block (each block's
// header says what it covers, reads its records and holds the one check a user sees). A session is assembled
// from these blocks when the model is opened (models/forecaster/forecaster.h), its loop chosen once.
#pragma once
#include <cstddef>

#include "models/forecaster/decoding_block.h"
#include "models/forecaster/head_block.h"
#include "models/forecaster/input_block.h"
#include "models/forecaster/normalizer_block.h"
#include "models/forecaster/positions_block.h"
#include "models/forecaster/stack_block.h"
#include "runtime/model_file.h"
#include "runtime/status.h"
#include "runtime/transformer_stack.h"

namespace ax {

struct ForecasterConfig {
    StackConfig stack;
    // Columns: the encoder reads n_features per row; the decoder decoder_features (n_features, or n_outputs
    // when it reads the predicted columns only, or a listed set: output i's input column is record
    // kOutputFeatureKey + i, decoder column j's kDecoderFeatureKey + j).
    size_t n_features = 0;
    size_t n_outputs = 0;
    size_t decoder_features = 0;
    static constexpr size_t kMaxOutputFeatures = 256;
    // Decoder columns that are not outputs: inputs known ahead, such as calendar features or a planned
    // setpoint; a forecast then takes their values for its steps (`future`).
    size_t known_inputs = 0;
    size_t time_marks = 0;  // trailing input columns that are time features (format.h, time_marks)
    // Lengths.
    // Longest encoder window and decoder input the positions allow (the rows of the table the model was
    // converted from, the `pe` buffer or a learned one; PyTorch refuses longer ones too); 0 = no limit.
    size_t max_positions = 0;
    size_t window = 0;           // encoder rows the model was trained on; 0 = not stated
    size_t horizon = 0;          // steps predicted at once (one-pass heads and decoding); 0 otherwise
    size_t trained_horizon = 0;  // step by step: the steps its loop was trained to forecast; 0 = not stated
    // The blocks.
    NormalizerBlock normalizer;
    InputBlock input;
    PositionsBlock positions;
    StackBlock stacks;
    DecodingBlock decoding;
    HeadBlock head;
    ForecastLoop loop = ForecastLoop::autoregressive;  // set by read_forecaster_config

    size_t embed_width(size_t columns) const { return input.width(columns, time_marks); }
    size_t encoder_rows(size_t rows) const { return input.encoder_rows(rows); }
    bool encoder_only() const { return stack.decoder_layers == 0; }
    bool t5() const { return stacks.kind == format::LayerKind::t5; }
    // Predicts `horizon` steps in one call rather than feeding predictions back.
    bool one_pass() const { return head.pooled() || decoding.mode != format::Decoding::autoregressive; }
    // Quantile levels per step and output (1: a point forecast). A quantile forecast's values are
    // [quantiles, steps] per output: row q the forecast of level q.
    size_t quantiles() const { return head.quantile() ? head.quantiles : 1; }
    // Values a forecast (or `run`) of `steps` steps writes: steps x n_outputs, or quantiles x steps.
    size_t output_values(size_t steps) const { return quantiles() * steps * n_outputs; }
    // Decoder rows a forecast of max_horizon steps runs (0 without a decoder).
    size_t decoder_rows(size_t max_horizon) const;
    // Rows `run` returns for src_rows encoder and tgt_rows decoder input rows (each n_outputs wide), as the
    // model's forward does: one per decoder row; a one-pass decoder's last horizon rows; an encoder-only
    // model's horizon steps, or one per input row through a per-row generator.
    size_t run_rows(size_t src_rows, size_t tgt_rows) const;
    // The max_horizon a session needs to `run` tgt_rows decoder rows (one-pass decoding's rows include
    // label_len; an encoder-only model reads none).
    size_t run_horizon(size_t tgt_rows) const;
};

// kMaxModelWidth, kMaxModelLayers and kMaxSequenceLength (shared by every family) are in
// runtime/config_reader.h.

// Writes the description's records for the converter: the columns and lengths, then each block's (a block
// writes only what differs from a file without its keys, so that such files read back the same). The
// decoder's column lists (kOutputFeatureKey, kDecoderFeatureKey and decoder_features) and the stack's own keys
// are the converter's.
void write_forecaster_config(const ForecasterConfig& c, ConfigWriter& out);

// Every block's check against the rest of the description: the messages a user sees, for a file being read
// and for a description a converter is about to write.
Status check_forecaster_config(const ForecasterConfig& c);

// Reads a config from its records, block by block, and checks each block against the rest; shared by the
// runtime and the converter's self-check.
Status read_forecaster_config(const ModelFile& file, ForecasterConfig* out);
// The same from records alone (a converter's, before it writes them), the family not checked.
Status read_forecaster_records(const ConfigRecords& records, ForecasterConfig* out);

}  // namespace ax
