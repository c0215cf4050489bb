// torch.nn.TransformerEncoderLayer and TransformerDecoderLayer (batch of one, eval mode), post-norm or
// pre-norm, over weights referenced in place. The decoder works incrementally: it appends rows to a
// key/value cache, so an autoregressive step costs O(t), and a teacher-forced pass is the same call with
// all rows at once.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/format.h"
#include "runtime/kernels.h"
#include "runtime/linear.h"
#include "runtime/linear_split.h"
#include "runtime/memory_plan.h"

namespace ax {

struct LayerNormWeights {
    const float* gamma = nullptr;
    const float* beta = nullptr;
};

struct AttentionWeights {
    Linear in_proj;   // [2d + nhead value_dim, d]: q, k, v stacked ([3d, d] with the default value_dim)
    Linear out_proj;  // [d, nhead value_dim]
};

// kArenaRecordBytes: see MemoryPlan::alloc_records (the sizes on a 64-bit target, the largest there is).
struct EncoderLayerWeights {
    static constexpr size_t kArenaRecordBytes = 224;
    AttentionWeights self_attn;
    Linear ff1, ff2;
    LayerNormWeights norm1, norm2;
};

struct DecoderLayerWeights {
    static constexpr size_t kArenaRecordBytes = 336;
    AttentionWeights self_attn, cross_attn;
    Linear ff1, ff2;
    LayerNormWeights norm1, norm2, norm3;
};

// (The flags sit together and value_dim after them: the struct keeps the size it had before value_dim.)
struct LayerOptions {
    size_t d_model = 0;
    size_t nhead = 0;
    size_t dim_feedforward = 0;
    format::Activation activation = format::Activation::relu;
    float eps = 1e-5f;
    bool norm_first = false;
    // Some encoder layer's attention input projection has int8 weights: the encoder's scratch then holds every
    // row quantized, once per layer for all heads and projections (LayerScratch::x_q).
    bool int8_encoder_attention = false;
    // The layers' own norms are BatchNorm1d in evaluation mode (custom layers such as mvts_transformer's),
    // folded at conversion into a per-channel scale and shift held in the norm weights' gamma and beta.
    bool batch_norm = false;
    // The encoder layers' attention adds the previous layer's pre-softmax scores to its own (PatchTST's
    // res_attention); LayerScratch::res_scores carries them.
    bool residual_attention = false;
    // Value columns per head of every attention, 0 for head_dim(): attention written one head at a time whose
    // value heads are wider (nanoGPT-style heads with values as wide as d_model) or narrower than its queries
    // and keys. Each head's values and output are value_dim wide, the heads' outputs nhead x value_dim.
    uint32_t value_dim = 0;

    // Query and key columns per head.
    size_t head_dim() const { return d_model / nhead; }
    // Value columns per head, and of all heads: the attention output's width, the output projection's input.
    size_t value_head_dim() const { return value_dim != 0 ? value_dim : head_dim(); }
    size_t value_width() const { return value_dim != 0 ? nhead * value_dim : d_model; }
};

// Rows per tile: the encoder's projections, feed-forward and residual steps and every decoder step work on
// at most this many rows at a time, so no [rows, dim_feedforward] or [rows, 3 d_model] buffer exists. Small
// enough that a tile's buffers are a few KB at d_model 128, large enough that a tile's matrix products still
// stream each weight once per 8 rows (on a microcontroller the weights come from flash).
constexpr size_t kRowTile = 8;
// Layers whose feed-forward matrices hold at least kWideTileWeights weights (d_model 256 with
// dim_feedforward 1024 and up: megabytes per layer, more than a core's cache, models for hosts rather than
// microcontrollers) work kWideRowTile rows at a time instead. A matrix product streams its weights from
// memory once per tile: at 8 rows that traffic, not the arithmetic, was the product's time (seed shape,
// d_model 512, window 100: 70 GFLOP/s against 150-170 at 100 rows on the same AVX-512 kernel). The choice
// depends on the model's shape only, so a session's arena is the same figure on every machine and port.
constexpr size_t kWideTileWeights = size_t{1} << 18;
constexpr size_t kWideRowTile = 128;
// kRowTile or kWideRowTile for a layer of this shape.
size_t row_tile(const LayerOptions& o);

// Working memory of the encoder or the decoder layers, carved from a session's memory plan. The int8
// quantization scratch holds a tile's rows of max(d_model, dim_feedforward, max_in) values: a family whose
// other layers read wider rows (input embeddings of many features, a latent vector) passes that width as
// max_in; linear_forward quantizes longer inputs a tile at a time.
struct LayerScratch {
    static constexpr size_t kArenaRecordBytes = 192;  // worker_views: see MemoryPlan::alloc_records
    float* h = nullptr;                               // [tile, d] normed input (pre-norm)
    float* q = nullptr;                               // [tile, d] queries
    float* tmp = nullptr;         // [tile, d] a sublayer's output; keys or values on their way into an int8 cache
    float* ff = nullptr;          // [tile, dim_feedforward]
    float* att = nullptr;         // attention output: encoder [max_rows, values], decoder [tile, values]
    float* head_k = nullptr;      // encoder only: one head's keys [max_rows, head_dim]
    float* head_v = nullptr;      // encoder only: one head's values [max_rows, value_dim]
    float* scores = nullptr;      // [max_keys]: one query row of one head
    float* res_scores = nullptr;  // encoder with o.residual_attention: [nhead, max_rows, max_rows], zeroed per pass
    QuantScratch quant;           // [tile, max(d, dim_feedforward, values, max_in)]
    // Encoder with o.int8_encoder_attention only (else null): every row's attention input (x, or its LayerNorm
    // when pre-norm) quantized once per layer, read by the 3 x nhead products of the head loop. In the bytes
    // of tmp and ff (free during the head loop), which grow to hold them where needed.
    int8_t* x_q = nullptr;        // [max_rows, d]
    float* x_q_scales = nullptr;  // [max_rows]
    // The sizes are 32-bit and sit together, the pointers after the split: the struct has the same bytes on
    // 32-bit and 64-bit targets as before value_dim (the C API's fixed-size handle holds two of these structs).
    uint32_t tile = kRowTile;  // rows per tile: row_tile(options)
    uint32_t workers = 1;
    uint32_t encoder_rows = 0;  // encoder: the most rows; 0 for the decoder's scratch
    uint32_t d_model = 0;
    uint32_t head_dim = 0;
    uint32_t value_dim = 0;  // value columns per head (LayerOptions::value_head_dim)
    uint32_t dim_ff = 0;
    uint32_t max_keys = 0;  // decoder: the scores row's length
    // The products' output columns over the session's workers, with per-worker scratch for the most rows a
    // product of these layers has (none when the plan is for one worker). The session sets the hook.
    LinearSplit split;
    // Encoder of a plan for more than one worker only (else null): per-worker copies of the head loop's
    // buffers (h, q, head_k, head_v, scores, quant), so that workers run whole heads side by side; after the
    // head loop, the same bytes hold each worker's tile buffers (h, tmp, ff, quant) for its own range of rows.
    float* worker_heads = nullptr;

    // The attention output's columns: nhead x value_dim (d_model unless the model states value_dim).
    size_t values() const;
    // The widest row a product of these layers quantizes from the layers' own buffers.
    size_t widest_row() const;

    // One head's buffers of the encoder's head loop: worker w's own copies (w < workers) when the plan holds
    // them, else the shared ones.
    struct Head {
        float* h;
        float* q;
        float* k;
        float* v;
        float* scores;
        QuantScratch quant;
    };
    Head head(size_t worker) const;
    size_t head_floats() const;
    // Worker w's buffers for rows of the encoder's post-attention sublayers (output projection, residual,
    // feed-forward), at most worker_rows() rows at a time: a scratch like this one with those pointers and no
    // hook. Only when worker_heads is set.
    bool rows_split_shape() const;
    size_t worker_rows() const;
    size_t rows_floats() const;
    LayerScratch rows_scratch(size_t worker) const;
    // Decoder of a plan for more than one worker: worker w's view of the tile buffers for tile rows
    // [first, first + n), the same bytes one thread uses for those rows, with its own scores row (decoder
    // scores hold `workers` rows of max_keys) and no hook. Written into worker_views[w], in the arena rather
    // than on the task's stack (which a microcontroller's budget counts).
    LayerScratch& decoder_rows(size_t worker, size_t first, size_t n) const;
    LayerScratch* worker_views = nullptr;  // decoder, more than one worker: one record per worker

    // encoder_rows > 0: the encoder's scratch for sequences up to that length (max_keys = encoder_rows);
    // encoder_rows == 0: the decoder's, whose attention sees up to max_keys keys. Live in [first, last].
    // min_tile: the decoder's tiles hold at least that many rows (a decoder without a causal mask runs all its
    // rows in one tile).
    void allocate(MemoryPlan& plan, const LayerOptions& o, size_t encoder_rows, size_t max_keys, size_t max_in,
                  Phase first, Phase last, size_t min_tile = 0);
};

using format::CacheType;

// Keys [capacity, d] and values [capacity, nhead x value_dim] of one attention: float32, or int8 with one float
// scale per row (quantize_rows_i8's rule: symmetric, max |x| / 127).
struct KvCache {
    static constexpr size_t kArenaRecordBytes = 48;
    void* key = nullptr;
    void* value = nullptr;
    float* key_scale = nullptr;  // int8: [capacity]
    float* value_scale = nullptr;
    size_t capacity = 0;
    CacheType type = CacheType::f32;

    float* key_f32() const { return static_cast<float*>(key); }
    float* value_f32() const { return static_cast<float*>(value); }
    int8_t* key_i8() const { return static_cast<int8_t*>(key); }
    int8_t* value_i8() const { return static_cast<int8_t*>(value); }
    // Bytes of one row: a key of d values and a value of `values` (and their scales).
    static size_t row_bytes(CacheType type, size_t d, size_t values);
};

// A layer's own norm over rows x[0, rows): LayerNorm, or the folded BatchNorm (x * gamma + beta per channel).
// y may equal x.
void layer_own_norm(const Kernels& k, const LayerOptions& o, const LayerNormWeights& w, const float* x, size_t rows,
                    float* y);

// Row-wise LayerNorm; y may equal x.
void layer_norm_rows(const Kernels& k, const LayerNormWeights& w, const float* x, size_t rows, size_t d, float eps,
                     float* y);

// x: [rows, d], updated in place (rows <= the scratch's encoder_rows). Computed head by head (each head's
// keys and values for all rows, its queries a tile at a time) and then a tile of rows at a time.
// key_valid (optional, `rows` flags): key padding, see AttentionInput::key_valid. causal: row i attends to
// rows <= i only (a square subsequent mask passed to the encoder).
void encoder_layer_forward(const Kernels& k, const LayerOptions& o, const EncoderLayerWeights& w, float* x, size_t rows,
                           LayerScratch& s, const uint8_t* key_valid = nullptr, bool causal = false);

// Projects the encoder memory [mem_rows, d] into the cross-attention keys and values, once per sequence.
// Only the first cross.capacity rows are projected: a session whose decoder sees memory rows [0, p] only
// (the tril memory mask) sizes the cache to its longest decoder length.
void decoder_layer_prepare_memory(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w,
                                  const float* memory, size_t mem_rows, KvCache& cross, LayerScratch& s);
// The same for layers [0, layers) (w[i] into cross[i]): where their caches are float and their projections of
// one dtype, the memory rows are quantized once and the keys and values of two layers at a time go to the
// workers in one hand-off (each product alone is too small to pay for its own). The same bits as layer by layer.
void decoder_layers_prepare_memory(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights* w,
                                   KvCache* cross, size_t layers, const float* memory, size_t mem_rows,
                                   LayerScratch& s);

// x: rows [first_position, first_position + rows) of the target, updated in place, s.tile rows at a
// time (causal self-attention: a row needs only the keys of the rows before it, already cached). Appends their keys
// and values to `self_cache`, which must hold positions [0, first_position) already. `memory_causal`
// applies the tril memory mask. Optional key padding: self_valid flags target positions
// [0, first_position + rows), memory_valid flags the mem_rows memory rows. Without self_causal (a decoder
// called without tgt_mask) every row attends to every row of the call: first_position must be 0 and rows fit in
// one tile (s.tile), since a later row changes what an earlier one computes.
void decoder_layer_forward(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w, float* x, size_t rows,
                           size_t first_position, KvCache& self_cache, const KvCache& cross, size_t mem_rows,
                           bool memory_causal, LayerScratch& s, const uint8_t* self_valid = nullptr,
                           const uint8_t* memory_valid = nullptr, bool self_causal = true);

}  // namespace ax
