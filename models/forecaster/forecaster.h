// The time-series forecaster family: input embeddings, optional positions (sinusoidal or a learned table),
// a Transformer encoder (optionally causal) and decoder (causal self-attention unless decoder_mask is none,
// optional tril memory mask), and a head. The forecasters people write vary around that (docs/FORMAT.md, "Forecaster
// variants"):
// - step by step (the default): the decoder is fed its own predictions through a per-row generator;
// - one-pass decoding: the decoder runs once over label_len observed rows and horizon placeholder rows;
// - encoder-only (no decoder layers) with a per-row generator: the window slides one prediction at a time,
//   the encoder rerun each step, as the author's loop does;
// - encoder-only with a pooled head (flatten, last row, mean; an optional hidden Linear): the whole
//   horizon at once.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/config_reader.h"
#include "runtime/embedding.h"
#include "runtime/format.h"
#include "runtime/kernels.h"
#include "runtime/memory_plan.h"
#include "runtime/linear.h"
#include "runtime/model_file.h"
#include "runtime/status.h"
#include "runtime/transformer_layer.h"
#include "runtime/transformer_stack.h"

namespace ax {

struct ForecasterConfig {
    StackConfig stack;
    size_t n_features = 0;
    size_t n_outputs = 0;
    format::PositionalEncoding positional_encoding = format::PositionalEncoding::none;
    format::MemoryMask memory_mask = format::MemoryMask::none;
    format::Normalization normalization = format::Normalization::none;
    // Longest encoder window and decoder input the positions allow (the rows of the `pe` buffer the model
    // was converted from; PyTorch refuses longer ones too); 0 = no limit (no positions, or an older file).
    size_t max_positions = 0;
    size_t window = 0;  // encoder rows the model was trained on; 0 = not stated
    // The variants (format.h documents each); the defaults are the step-by-step encoder-decoder.
    format::ForecastHead head = format::ForecastHead::generator;
    format::InputEmbedding input_embedding = format::InputEmbedding::linear;
    format::Decoding decoding = format::Decoding::autoregressive;
    format::Placeholder placeholder = format::Placeholder::zeros;
    format::Activation head_activation = format::Activation::relu;
    bool encoder_output_act = false;  // an activation on the encoder's rows before a pooled head
    format::Activation encoder_output_activation = format::Activation::relu;
    size_t horizon = 0;          // steps predicted at once (one-pass heads and decoding); 0 otherwise
    size_t trained_horizon = 0;  // step by step: the steps its loop was trained to forecast; 0 = not stated
    size_t label_len = 0;        // one-pass decoding
    size_t head_hidden = 0;      // pooled heads: width of the hidden Linear, 0 = none
    float embed_scale = 1.0f;    // input rows times this before positions (sqrt(d_model) in some models)
    format::PositionalEncoding decoder_positions = format::PositionalEncoding::none;  // the decoder's rows'
    // Columns the decoder reads: n_features, or n_outputs when it reads the predicted columns only (the
    // encoder reading covariates beside them; output i's input column is record kOutputFeatureKey + i).
    size_t decoder_features = 0;
    static constexpr size_t kMaxOutputFeatures = 256;
    // Decoder columns that are not outputs (kDecoderFeatureKey): inputs known ahead, such as calendar
    // features or a planned setpoint; a forecast then takes their values for its steps (`future`).
    size_t known_inputs = 0;
    size_t time_marks = 0;          // trailing input columns that are time features (format.h, time_marks)
    bool encoder_residual = false;  // x + encoder(x) (format.h, encoder_residual)
    bool decoder_residual = false;  // y + decoder(y, memory)

    bool token_conv() const { return input_embedding == format::InputEmbedding::token_conv; }
    // Values per row the input embedding reads for rows of `columns` inputs: token_conv's three neighbours'
    // values and the marks.
    size_t embed_width(size_t columns) const {
        return token_conv() ? 3 * (columns - time_marks) + time_marks : columns;
    }
    // Patched (PatchTST-style): each input column on its own through the encoder, its window cut into
    // patches of patch_len steps, patch_stride apart (after patch_stride copies of the last value when
    // patch_pad), each patch one token; the pooled head gives `horizon` values per column.
    size_t patch_len = 0;  // 0: not patched
    size_t patch_stride = 0;
    bool patch_pad = false;
    format::Revin revin = format::Revin::none;
    float revin_eps = 1e-5f;

    bool patched() const { return patch_len != 0; }
    // Encoder rows for a window of `rows` input rows: the patches' count when patched (0: too short).
    size_t encoder_rows(size_t rows) const;

    bool encoder_only() const { return stack.decoder_layers == 0; }
    // Predicts `horizon` steps in one call rather than feeding predictions back.
    bool one_pass() const { return head != format::ForecastHead::generator || decoding == format::Decoding::one_pass; }
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

// Reads a config from its records; shared by the runtime and the converter's self-check.
Status read_forecaster_config(const ModelFile& file, ForecasterConfig* out);

// Plans a session's arena for a config (the model's, or a variant such as another kv_cache type): the
// buffers, their lifetimes and offsets, as init() will place them. False when a length is 0 or above
// kMaxSequenceLength, or a size overflows. Forecaster::arena_bytes is plan->total_bytes().
bool plan_forecaster_arena(const ForecasterConfig& config, size_t max_window, size_t max_horizon, MemoryPlan* plan);

class Forecaster {
public:
    // Validates the config and every tensor's presence, shape and dtype. `file` must outlive the model.
    static Status open(const ModelFile& file, Forecaster* out);

    const ForecasterConfig& config() const { return config_; }
    const ModelFile& file() const { return *file_; }

    // The input column of the decoder's column j (j < decoder_features), and of output i (i < n_outputs,
    // when the decoder reads fewer columns than the encoder); both checked when the model opened.
    size_t decoder_column(size_t j) const;
    size_t output_column(size_t i) const;
    // Whether the decoder's column j is an input known ahead (a forecast's `future` supplies it): step by
    // step, a column no output continues; one pass, a time mark of the placeholder rows.
    bool known_decoder_column(size_t j) const;
    // The `future` rows a forecast of `horizon` steps reads: horizon - 1 step by step (the last prediction is
    // not fed back), horizon one pass (a placeholder per step); 0 without known inputs.
    size_t future_rows(size_t horizon) const;
    // A forecast's `future` rows for `horizon` steps: enough of them, and a finite value in every known input
    // column (invalid_argument, bad_input); ok when the model reads none. Every mode's session asks this.
    Status check_future(const float* future, size_t rows, size_t horizon) const;

    // Exact bytes a session needs for encoder windows up to max_window and decoder lengths (horizon or
    // teacher-forced target rows) up to max_horizon. 0 when a length is 0 or above kMaxSequenceLength.
    // workers: the most tasks the session's parallel-for hook runs at once (runtime/parallel.h); 1 without one.
    size_t arena_bytes(size_t max_window, size_t max_horizon, size_t workers = 1) const;

private:
    friend class ForecastSession;

    const ModelFile* file_ = nullptr;
    ForecasterConfig config_;
    Linear src_embed_, tgt_embed_, generator_;
    Linear head_hidden_;                   // pooled heads with a hidden layer
    const float* revin_weight_ = nullptr;  // RevIN affine [n_features]
    const float* revin_bias_ = nullptr;
    EmbeddingTable src_positions_, tgt_positions_;  // learned positions
    LayerNormWeights encoder_norm_, decoder_norm_;
    const float* input_mean_ = nullptr;
    const float* input_scale_ = nullptr;
    // The integer-only mode's parameters (models/forecaster/forecaster_integer.h), when the file has them.
    const int32_t* integer_plan_ = nullptr;
    size_t integer_plan_words_ = 0;

public:
    const int32_t* integer_plan() const { return integer_plan_; }
    size_t integer_plan_words() const { return integer_plan_words_; }
    const float* input_mean() const { return input_mean_; }
    const float* input_scale() const { return input_scale_; }
};

enum class InputSpace { raw, model };  // raw: apply the model's stored normalization to inputs and outputs

// The session's buffers in its arena, described once for counting and placing (runtime/session_plan.h).
struct ForecastLayout {
    StackSession stack;
    float* memory = nullptr;       // [max_window, d]
    float* dec_x = nullptr;        // [tile, d]: the decoder works a tile of rows at a time
    float* src_z = nullptr;        // [max_window, n_features]
    float* tgt_z = nullptr;        // decoder inputs: [decoder rows + 1, n_features]; sliding: the window and
                                   // every prediction, [max_window + max_horizon, n_features]
    float* outputs = nullptr;      // one-pass: [decoder rows or horizon, n_outputs]
    float* reference = nullptr;    // [n_features], last observed row
    float* head_x = nullptr;       // pooled heads: [max(d, head_hidden)], the pooled row or the hidden one
    LayerScratch encoder_scratch;  // live while encoding only
    LayerScratch decoder_scratch;  // from preparing the cross-attention caches to the outputs
    QuantScratch head_quant;       // encoder-only heads: one row as wide as the head's input
    float* revin_stats = nullptr;  // RevIN: each input column's window mean and std, [2, n_features]
    float* series = nullptr;       // patched: one column's window and its padding
    float* patches = nullptr;      // patched: its patches, [encoder rows, patch_len]
    float* conv_src = nullptr;     // token_conv: the window's embedding inputs, [max_window, embed_width(n)]
    float* conv_dec = nullptr;     // token_conv: a decoder tile's, [tile, embed_width(decoder_features)]
    float* stack_in = nullptr;     // a residual around the encoder: its embedded rows, [encoder rows, d]
    float* dec_in = nullptr;       // a residual around the decoder: a tile's embedded rows, [tile, d]

    void allocate(MemoryPlan& plan, const ForecasterConfig& c, size_t max_window, size_t max_horizon);
};

class ForecastSession {
public:
    // Lays the session out in `arena` (16-byte aligned, at least model.arena_bytes(max_window,
    // max_horizon) bytes). Nothing is allocated afterwards. Refuses a max_window or max_horizon (decoder
    // length) beyond the model's max_positions. With a parallel-for hook (runtime/parallel.h) the arena is
    // model.arena_bytes(max_window, max_horizon, parallel.workers) and the products are split over it.
    Status init(const Forecaster& model, const Kernels& kernels, void* arena, size_t arena_bytes, size_t max_window,
                size_t max_horizon, const ParallelFor& parallel = ParallelFor{});

    // One teacher-forced pass, as the PyTorch module's forward(src, tgt): out gets
    // config().run_rows(src_rows, tgt_rows) x n_outputs (an encoder-only model reads no tgt).
    Status run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space, float* out);

    // A forecast of `horizon` steps from the last `rows` history rows; out gets horizon x n_outputs values
    // in the user's raw units. Step by step: the decoder starts from the last history row and is fed each
    // prediction back (the KV cache makes step t cost O(t)). One-pass models predict up to their trained
    // horizon at once; an encoder-only generator slides the window.
    // A decoder that reads inputs the model does not predict (config().known_inputs) takes their values from
    // `future`: rows laid out like the history's, row t holding the inputs at the time out row t predicts;
    // only those columns are read, and only rows 0..horizon-2 (the last step's prediction is not fed back).
    Status forecast(const float* history, size_t rows, size_t horizon, float* out, const float* future = nullptr,
                    size_t future_rows = 0);

    // The same forecast by recomputing the whole decoder at every step: O(t^2), for verification only.
    Status forecast_recompute(const float* history, size_t rows, size_t horizon, float* out,
                              const float* future = nullptr, size_t future_rows = 0);

private:
    Status check_lengths(size_t src_rows, size_t tgt_rows) const;
    // The model's normalization (offsets: the stored mean, or the last history row in layout_.reference):
    // rows of every input column, decoder rows (decoder_features wide), output rows (n_outputs wide).
    float to_model_units(float v, size_t column) const;
    void normalize(const float* x, size_t rows, float* z) const;
    void normalize_decoder_rows(const float* x, size_t rows, float* z) const;
    void denormalize(float* y, size_t rows) const;
    // A known input's value (raw units, from `future`) as the decoder reads it: in model units when the model
    // normalizes, as the history's column was.
    float known_input(float v, size_t column) const {
        return model_->config_.normalization == format::Normalization::none ? v : to_model_units(v, column);
    }
    void embed(const Linear& linear, const EmbeddingTable& positions, format::PositionalEncoding kind, const float* in,
               size_t rows, size_t first, float* x, const QuantScratch& quant, const ParallelFor* parallel) const;
    // The decoder's columns of an input row (all of them, or the outputs').
    void decoder_row(const float* input_row, float* out) const;
    void conv_rows(const float* seq, size_t seq_rows, size_t columns, size_t first, size_t n, float* out) const;
    void encode(const float* src, size_t rows);
    // The encoder stack over embedded rows x, in place, with the residual around it when the model has one.
    void encode_stack(float* x, size_t rows);
    // The pooled head over the encoded rows: out gets horizon x n_outputs.
    void pooled_head(size_t rows, float* out);
    Status forecast_sliding(const float* src, size_t rows, size_t horizon, float* out, const float* future);
    // Patched: every input column through the encoder and the head on its own; out gets horizon x n_features.
    void patched_forward(const float* src, size_t rows, float* out);
    void revin_normalize(const float* x, size_t rows, float* z);
    void revin_denormalize(float* y, size_t rows) const;
    Status forecast_one_pass(const float* src, size_t rows, size_t horizon, float* out, const float* future);
    // Decoder rows [first, first + rows) from target inputs tgt (model space) to generator outputs.
    void decode(const float* tgt, size_t rows, size_t first, float* out);
    // Decoder input row t + 1 (model space) from step t's prediction and the known inputs of its time.
    void next_decoder_row(const float* prediction, const float* future_row, float* out) const;
    Status forecast_impl(const float* history, size_t rows, size_t horizon, float* out, bool cached,
                         const float* future, size_t future_rows);

    const Forecaster* model_ = nullptr;
    const Kernels* k_ = nullptr;
    size_t max_window_ = 0;
    size_t max_horizon_ = 0;
    size_t max_decoder_ = 0;  // decoder rows the session holds (0: encoder-only)
    size_t mem_rows_ = 0;
    ForecastLayout layout_;
};

}  // namespace ax
