// The time-series forecaster family: linear input embeddings, optional sinusoidal positions, a
// Transformer encoder and decoder (causal self-attention, optional tril memory mask), a linear generator.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/config_reader.h"
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

    // Exact bytes a session needs for encoder windows up to max_window and decoder lengths (horizon or
    // teacher-forced target rows) up to max_horizon. 0 when a length is 0 or above kMaxSequenceLength.
    size_t arena_bytes(size_t max_window, size_t max_horizon) const;

private:
    friend class ForecastSession;

    const ModelFile* file_ = nullptr;
    ForecasterConfig config_;
    Linear src_embed_, tgt_embed_, generator_;
    LayerNormWeights encoder_norm_, decoder_norm_;
    const float* input_mean_ = nullptr;
    const float* input_scale_ = nullptr;
};

enum class InputSpace { raw, model };  // raw: apply the model's stored normalization to inputs and outputs

// The session's buffers in its arena, described once for counting and placing (runtime/session_plan.h).
struct ForecastLayout {
    StackSession stack;
    float* memory = nullptr;       // [max_window, d]
    float* dec_x = nullptr;        // [tile, d]: the decoder works a tile of rows at a time
    float* src_z = nullptr;        // [max_window, n_features]
    float* tgt_z = nullptr;        // [max_horizon + 1, n_features]
    float* reference = nullptr;    // [n_features], last observed row
    LayerScratch encoder_scratch;  // live while encoding only
    LayerScratch decoder_scratch;  // from preparing the cross-attention caches to the outputs

    void allocate(MemoryPlan& plan, const ForecasterConfig& c, size_t max_window, size_t max_horizon);
};

class ForecastSession {
public:
    // Lays the session out in `arena` (16-byte aligned, at least model.arena_bytes(max_window,
    // max_horizon) bytes). Nothing is allocated afterwards. Refuses a max_window or max_horizon (decoder
    // length) beyond the model's max_positions.
    Status init(const Forecaster& model, const Kernels& kernels, void* arena, size_t arena_bytes, size_t max_window,
                size_t max_horizon);

    // One teacher-forced pass, as the PyTorch module's forward(src, tgt): out gets tgt_rows x n_outputs.
    Status run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space, float* out);

    // Autoregressive forecast: history rows form the encoder window, the decoder starts from the last
    // history row and is fed each prediction back; out gets horizon x n_features values in the user's raw
    // units. Needs n_outputs == n_features. Uses the KV cache: step t costs O(t).
    Status forecast(const float* history, size_t rows, size_t horizon, float* out);

    // The same forecast by recomputing the whole decoder at every step: O(t^2), for verification only.
    Status forecast_recompute(const float* history, size_t rows, size_t horizon, float* out);

private:
    Status check_lengths(size_t src_rows, size_t tgt_rows) const;
    void normalize(const float* x, size_t rows, const float* reference, float* z) const;
    void denormalize(float* y, size_t rows, const float* reference) const;
    void encode(const float* src, size_t rows);
    // Decoder rows [first, first + rows) from target inputs tgt (model space) to generator outputs.
    void decode(const float* tgt, size_t rows, size_t first, float* out);
    Status forecast_impl(const float* history, size_t rows, size_t horizon, float* out, bool cached);

    const Forecaster* model_ = nullptr;
    const Kernels* k_ = nullptr;
    size_t max_window_ = 0;
    size_t max_horizon_ = 0;
    size_t mem_rows_ = 0;
    ForecastLayout layout_;
};

}  // namespace ax
