// The time-series forecaster family: a model description of blocks (models/forecaster/forecaster_config.h: the
// normalizer, the input embedding, positions, the encoder and decoder stacks, decoding, the head), each block
// binding its own tensors and buffers, and a session that runs the loop the description chose when the model
// was opened (docs/FORMAT.md, "Forecaster variants"):
// - step by step (the default): the decoder is fed its own predictions through a per-row generator;
// - one-pass decoding: the decoder runs once over label_len observed rows and horizon placeholder rows;
// - encoder-only with a per-row generator: the window slides one prediction at a time, the encoder rerun each
//   step, as the author's loop does;
// - encoder-only with a pooled head (flatten, last row, mean; an optional hidden Linear): the whole horizon at
//   once, each column on its own when patched;
// - T5 layers with a start token (Chronos-Bolt): one decoder step to quantiles x horizon, past the horizon the
//   quantile paths of models/forecaster/chronos_bolt.h. Its forecasts are [quantiles, horizon] (row q the
//   forecast of quantile level q, ForecasterConfig::output_values), NaN in the history read as missing.
#pragma once
#include <cstddef>
#include <cstdint>

#include "models/forecaster/chronos_bolt.h"
#include "models/forecaster/forecaster_config.h"
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

// Plans a session's arena for a config (the model's, or a variant such as another kv_cache type): the
// buffers, their lifetimes and offsets, as init() will place them. False when a length is 0 or above
// kMaxSequenceLength, or a size overflows. Forecaster::arena_bytes is plan->total_bytes().
bool plan_forecaster_arena(const ForecasterConfig& config, size_t max_window, size_t max_horizon, MemoryPlan* plan);

// The quantile loop's shape of a description with T5 layers (its sizes from the blocks' options).
ChronosBoltShape quantile_shape(const ForecasterConfig& c);

class Forecaster {
public:
    // Validates the config and every tensor's presence, shape and dtype. `file` must outlive the model. A failed
    // open leaves *out an unopened Forecaster.
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

    // T5 layers (ForecastLoop::quantile_paths): the blocks' weights as the quantile loop reads them, the layers
    // bound into the caller's tables (config().stack's layer counts of them). Checked by open: cannot fail then.
    Status bind_quantile_weights(T5EncoderLayerWeights* encoder, T5DecoderLayerWeights* decoder,
                                 ChronosBoltWeights* out) const;
    // The quantile levels (config().quantiles() of them; nullptr for a point forecast).
    const float* quantile_levels() const;

private:
    friend class ForecastSession;

    Status bind(const ModelFile& file);  // open's work, in place

    const ModelFile* file_ = nullptr;
    ForecasterConfig config_;
    NormalizerWeights normalizer_;
    InputWeights input_;
    PositionsWeights positions_;
    LayerNormWeights encoder_norm_, decoder_norm_;
    HeadWeights head_;
    // The integer-only mode's parameters (models/forecaster/forecaster_integer.h), when the file has them.
    const int32_t* integer_plan_ = nullptr;
    size_t integer_plan_words_ = 0;

public:
    const int32_t* integer_plan() const { return integer_plan_; }
    size_t integer_plan_words() const { return integer_plan_words_; }
    const NormalizerWeights& normalizer() const { return normalizer_; }
    const float* input_mean() const { return normalizer_.mean; }
    const float* input_scale() const { return normalizer_.scale; }
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
    NormalizerState normalizer;    // the last observed row, RevIN's statistics
    HeadBuffers head;              // pooled heads' rows; encoder-only heads' int8 row
    LayerScratch encoder_scratch;  // live while encoding only
    LayerScratch decoder_scratch;  // from preparing the cross-attention caches to the outputs
    InputBuffers input;            // token_conv's neighbour rows, patching's column and patches
    StackBuffers residuals;        // the embedded rows a residual around a stack adds back
    // T5 layers: their tables, the quantile loop's weights and buffers (records in the arena).
    T5EncoderLayerWeights* t5_encoder = nullptr;
    T5DecoderLayerWeights* t5_decoder = nullptr;
    ChronosBoltWeights* quantile_weights = nullptr;
    ChronosBoltBuffers* quantile = nullptr;

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
    // config().run_rows(src_rows, tgt_rows) x n_outputs (an encoder-only model reads no tgt); a quantile model's
    // forward(context) gives config().output_values(horizon): [quantiles, horizon].
    Status run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space, float* out);

    // A forecast of `horizon` steps from the last `rows` history rows; out gets horizon x n_outputs values
    // in the user's raw units (a quantile model: [quantiles, horizon], config().output_values(horizon)). Step by step:
    // the decoder starts from the last history row and is fed each prediction back (the KV cache makes step t cost
    // O(t)). One-pass models predict up to their trained horizon at once; an encoder-only generator slides the window.
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
    // A known input's value (raw units, from `future`) as the decoder reads it: in model units when the model
    // normalizes, as the history's column was.
    float known_input(float v, size_t column) const;
    // The side's input rows [first, first + rows) to d_model-wide rows x: the input block, then positions.
    void embed(Side side, const float* in, size_t rows, size_t first, float* x, const LayerScratch& scratch) const;
    // The decoder's columns of an input row (all of them, or the outputs').
    void decoder_row(const float* input_row, float* out) const;
    void encode(const float* src, size_t rows);
    // The encoder stack over embedded rows x, in place, with the residual around it when the model has one.
    void encode_stack(float* x, size_t rows);
    // Decoder rows [first, first + rows) from target inputs tgt (model space) to generator outputs.
    void decode(const float* tgt, size_t rows, size_t first, float* out);
    // Decoder input row t + 1 (model space) from step t's prediction and the known inputs of its time.
    void next_decoder_row(const float* prediction, const float* future_row, float* out) const;
    // The loops (ForecastLoop), each a forecast of `horizon` steps from a window in model units.
    Status forecast_autoregressive(const float* src, size_t rows, size_t horizon, float* out, bool cached,
                                   const float* future);
    Status forecast_one_pass(const float* src, size_t rows, size_t horizon, float* out, const float* future);
    Status forecast_sliding(const float* src, size_t rows, size_t horizon, float* out, const float* future);
    // Encoder-only pooled heads: out gets horizon x n_outputs (patched: every column on its own).
    void forecast_pooled(const float* src, size_t rows, float* out);
    void patched_forward(const float* src, size_t rows, float* out);
    // The quantile loop: out [quantiles, horizon].
    Status forecast_quantiles(const float* history, size_t rows, size_t horizon, float* out);
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
