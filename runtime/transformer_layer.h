// torch.nn.TransformerEncoderLayer and TransformerDecoderLayer (batch of one, eval mode), post-norm or
// pre-norm, over weights referenced in place. The decoder works incrementally: it appends rows to a
// key/value cache, so an autoregressive step costs O(t), and a teacher-forced pass is the same call with
// all rows at once.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/arena.h"
#include "runtime/format.h"
#include "runtime/kernels.h"
#include "runtime/linear.h"

namespace ax {

struct LayerNormWeights {
    const float* gamma = nullptr;
    const float* beta = nullptr;
};

struct AttentionWeights {
    Linear in_proj;   // [3d, d]: q, k, v stacked
    Linear out_proj;  // [d, d]
};

// kArenaRecordBytes: see Arena::alloc_records (the sizes on a 64-bit target, the largest there is).
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

struct LayerOptions {
    size_t d_model = 0;
    size_t nhead = 0;
    size_t dim_feedforward = 0;
    bool norm_first = false;
    format::Activation activation = format::Activation::relu;
    float eps = 1e-5f;
};

// Working memory for up to `max_rows` rows and `max_keys` attention keys, carved from an arena. The int8
// quantization scratch holds rows of max(d_model, dim_feedforward, max_in) values: a family whose other
// layers read wider rows (input embeddings of many features, a latent vector) passes their width as max_in.
struct LayerScratch {
    float* h = nullptr;       // [rows, d] normed input
    float* qkv = nullptr;     // [rows, 3d]
    float* att = nullptr;     // [rows, d]
    float* tmp = nullptr;     // [rows, d]
    float* ff = nullptr;      // [rows, dim_feedforward]
    float* scores = nullptr;  // [max_keys]
    QuantScratch quant;       // [rows, max(d, dim_feedforward)]

    void allocate(Arena& arena, const LayerOptions& o, size_t max_rows, size_t max_keys, size_t max_in = 0);
};

// Keys and values of one attention, [capacity, d] each.
struct KvCache {
    static constexpr size_t kArenaRecordBytes = 16;
    float* key = nullptr;
    float* value = nullptr;
    void allocate(Arena& arena, size_t capacity, size_t d);
};

// Row-wise LayerNorm; y may equal x.
void layer_norm_rows(const Kernels& k, const LayerNormWeights& w, const float* x, size_t rows, size_t d, float eps,
                     float* y);

// x: [rows, d], updated in place (rows <= the scratch's max_rows).
// key_valid (optional, `rows` flags): key padding, see AttentionInput::key_valid.
void encoder_layer_forward(const Kernels& k, const LayerOptions& o, const EncoderLayerWeights& w, float* x,
                           size_t rows, LayerScratch& s, const uint8_t* key_valid = nullptr);

// Projects the encoder memory [mem_rows, d] into the cross-attention keys and values, once per sequence.
void decoder_layer_prepare_memory(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w,
                                  const float* memory, size_t mem_rows, KvCache& cross, LayerScratch& s);

// x: rows [first_position, first_position + rows) of the target, updated in place. Appends their keys
// and values to `self_cache`, which must hold positions [0, first_position) already. `memory_causal`
// applies the tril memory mask. Optional key padding: self_valid flags target positions
// [0, first_position + rows), memory_valid flags the mem_rows memory rows.
void decoder_layer_forward(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w, float* x,
                           size_t rows, size_t first_position, KvCache& self_cache, const KvCache& cross,
                           size_t mem_rows, bool memory_causal, LayerScratch& s,
                           const uint8_t* self_valid = nullptr, const uint8_t* memory_valid = nullptr);

}  // namespace ax
