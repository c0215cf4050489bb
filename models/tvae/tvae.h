// The Transformer-VAE family for time series: seq_embedding Linear(n_features, d_model), optional sinusoidal
// positions, a Transformer encoder, the mean over time, z_mean and z_log_var Linear(d_model, latent),
// z_embedding Linear(latent, d_model) repeated over the sequence as the decoder's memory, a causal
// Transformer decoder fed the sequence shifted right (a zero row first) through the same seq_embedding, and
// r_seq_embedding Linear(d_model, n_features). Generation starts from a zero row and feeds each output back.
//
// The memory rows are all the same vector, so cross-attention over them equals attention over one row (the
// softmax weights are uniform and the values identical): the runtime keeps one memory row whatever the
// sequence length.
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
#include "runtime/transformer_stack.h"

namespace ax {

struct TvaeConfig {
    StackConfig stack;
    size_t n_features = 0;
    size_t latent_size = 0;
    format::PositionalEncoding positional_encoding = format::PositionalEncoding::none;  // none | sinusoidal
    size_t max_positions = 0;  // longest sequence; 0 = no limit
};

Status read_tvae_config(const ModelFile& file, TvaeConfig* out);

// Plans a session's arena for a config (the model's, or a variant such as another kv_cache type): the
// buffers, their lifetimes and offsets, as init() will place them. False when a length is 0 or above
// kMaxSequenceLength, or a size overflows. Tvae::arena_bytes is plan->total_bytes().
bool plan_tvae_arena(const TvaeConfig& config, size_t max_len, MemoryPlan* plan);

class Tvae {
public:
    // Validates the config and every tensor's presence, shape and dtype. `file` must outlive the model.
    static Status open(const ModelFile& file, Tvae* out);

    const TvaeConfig& config() const { return config_; }
    const ModelFile& file() const { return *file_; }

    // Exact bytes a session needs for sequences up to max_len rows; 0 when max_len is 0 or too large.
    // workers: the most tasks the session's parallel-for hook runs at once (runtime/parallel.h); 1 without one.
    size_t arena_bytes(size_t max_len, size_t workers = 1) const;

private:
    friend class TvaeSession;

    const ModelFile* file_ = nullptr;
    TvaeConfig config_;
    Linear seq_embed_, z_mean_, z_log_var_, z_embed_, r_seq_embed_;
    LayerNormWeights encoder_norm_, decoder_norm_;
};

// The session's buffers in its arena, described once for counting and placing (runtime/session_plan.h).
struct TvaeLayout {
    StackSession stack;
    float* x = nullptr;            // [max_len, d]
    float* dec_x = nullptr;        // [tile, d]: the decoder works a tile of rows at a time
    float* pooled = nullptr;       // [d]
    float* z = nullptr;            // [latent]
    float* memory = nullptr;       // [d]
    float* zero_row = nullptr;     // [n_features]
    LayerScratch encoder_scratch;  // live while encoding only
    LayerScratch decoder_scratch;  // from making the memory row to the outputs

    void allocate(MemoryPlan& plan, const TvaeConfig& c, size_t max_len);
};

class TvaeSession {
public:
    // Lays the session out in `arena` (16-byte aligned, at least model.arena_bytes(max_len, parallel.workers)
    // bytes); the products are split over the optional parallel-for hook.
    Status init(const Tvae& model, const Kernels& kernels, void* arena, size_t arena_bytes, size_t max_len,
                const ParallelFor& parallel = ParallelFor{});

    // x: len x n_features. z_mean and z_log_var get latent_size values each (z_log_var may be null).
    Status encode(const float* x, size_t len, float* z_mean, float* z_log_var);

    // The teacher-forced pass of training, with z = z_mean: the decoder sees [0, x[0], ..., x[len-2]] and
    // out gets len x n_features. z_mean / z_log_var may be null.
    Status run(const float* x, size_t len, float* out, float* z_mean, float* z_log_var);

    // Decodes autoregressively from latent z (latent_size values): a zero row first, then each output fed
    // back, for len steps with the KV cache; out gets len x n_features.
    Status generate(const float* z, size_t len, float* out);

    // What the model does in eval mode: encode x, take z = z_mean, generate len = x's rows.
    Status reconstruct(const float* x, size_t len, float* out);

private:
    Status check_length(size_t len) const;
    void set_latent(const float* z);  // memory row and cross-attention caches from z

    const Tvae* model_ = nullptr;
    const Kernels* k_ = nullptr;
    size_t max_len_ = 0;
    TvaeLayout layout_;
};

}  // namespace ax
