// T5's encoder and decoder layers and stacks as Hugging Face's T5Stack computes them in evaluation mode:
// pre-norm with RMS norms (runtime/rms_norm.h), attention without the 1/sqrt(d_kv) scale and with an additive
// per-head relative position bias that the stack's first layer holds and every layer adds
// (runtime/relative_position.h), no biases in any projection, q/k/v/o of num_heads * d_kv columns (which need
// not equal d_model), a feed-forward wi -> activation -> wo (gated, T5 v1.1's: activation(x wi) * (x wi_gate) ->
// wo), and a final RMS norm per stack. The decoder's
// cross-attention has no position bias, only the memory's key mask.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/format.h"
#include "runtime/kernels.h"
#include "runtime/linear.h"
#include "runtime/relative_position.h"

namespace ax {

struct T5AttentionWeights {
    Linear q, k, v;  // [inner, d_model]
    Linear o;        // [d_model, inner]
};

// kArenaRecordBytes: a session's layer tables in its arena (MemoryPlan::alloc_records; the 64-bit sizes).
struct T5EncoderLayerWeights {
    static constexpr size_t kArenaRecordBytes = 352;
    const float* attention_norm = nullptr;  // [d_model]
    T5AttentionWeights self_attn;
    const float* ff_norm = nullptr;
    Linear wi, wo;   // [d_ff, d_model], [d_model, d_ff]
    Linear wi_gate;  // gated: [d_ff, d_model]
};

struct T5DecoderLayerWeights {
    static constexpr size_t kArenaRecordBytes = 552;
    const float* self_norm = nullptr;
    T5AttentionWeights self_attn;
    const float* cross_norm = nullptr;
    T5AttentionWeights cross_attn;
    const float* ff_norm = nullptr;
    Linear wi, wo;
    Linear wi_gate;  // gated
};

struct T5StackOptions {
    size_t d_model = 0;
    size_t nhead = 0;
    size_t d_kv = 0;
    size_t d_ff = 0;
    float eps = 1e-6f;
    format::Activation activation = format::Activation::relu;
    size_t num_buckets = 32;
    size_t max_distance = 128;
    bool gated = false;  // the feed-forward multiplies its activation by a second projection (wi_gate)
    size_t inner() const { return nhead * d_kv; }
};

// Working memory for rows queries against up to `keys` keys (the caller's buffers; see t5_scratch_floats).
struct T5Scratch {
    float* h = nullptr;       // [rows, d_model]
    float* q = nullptr;       // [rows, inner]
    float* k = nullptr;       // [keys, inner]
    float* v = nullptr;       // [keys, inner]
    float* att = nullptr;     // [rows, inner]
    float* ff = nullptr;      // [kT5TileRows, d_ff]: the feed-forward runs that many rows at a time
    float* tile = nullptr;    // [kT5TileRows, d_model]: a tile's feed-forward output
    float* gate = nullptr;    // gated: [kT5TileRows, d_ff], the second projection
    float* scores = nullptr;  // [keys]
    float* bias = nullptr;    // [nhead, relative_bias_span(0, rows, rows).span]
    // Int8 layers: kT5QuantRows rows of max(d_model, d_ff, inner, max_in) values quantized at a time.
    QuantScratch quant;
};
constexpr size_t kT5QuantRows = 8;
constexpr size_t kT5TileRows = 8;
// Floats of all of T5Scratch's buffers for that many rows and keys (keys >= rows); max_in: the widest input
// of other int8 layers that share the scratch (0: none).
size_t t5_scratch_floats(const T5StackOptions& o, size_t rows, size_t keys, size_t max_in = 0);
// Carves them from `floats` (t5_scratch_floats of them), in the order above.
T5Scratch t5_scratch(const T5StackOptions& o, size_t rows, size_t keys, float* floats, size_t max_in = 0);

// One T5 attention after the projections: out [n_q, nhead * d_kv] = softmax(q k^T + bias) v per head, no scale.
// bias (optional): [nhead, span.span] by distance (runtime/relative_position.h) for queries at positions
// [first_query, first_query + n_q). causal: query p sees keys [0, p]. key_valid (optional): masked keys take
// no part; a query with no key left attends to all n_k keys evenly (T5's finfo.min mask makes every score equal).
void t5_attend(const Kernels& k, const float* q, const float* keys, const float* values, size_t n_q, size_t n_k,
               size_t nhead, size_t d_kv, const float* bias, RelativeBiasSpan span, size_t first_query, bool causal,
               const uint8_t* key_valid, float* scores, float* out);

// x [rows, d_model] in place through one encoder layer; bias as t5_attend's (first_query 0, n_k = rows).
void t5_encoder_layer_forward(const Kernels& k, const T5StackOptions& o, const T5EncoderLayerWeights& w, float* x,
                              size_t rows, const uint8_t* valid, const float* bias, RelativeBiasSpan span,
                              T5Scratch& s);
// y [rows, d_model] (target positions [0, rows)) in place through one decoder layer: causal self-attention
// with the bias, then cross-attention on memory [mem_rows, d_model] (memory_valid optional).
void t5_decoder_layer_forward(const Kernels& k, const T5StackOptions& o, const T5DecoderLayerWeights& w, float* y,
                              size_t rows, const float* bias, RelativeBiasSpan span, const float* memory,
                              size_t mem_rows, const uint8_t* memory_valid, T5Scratch& s);

// The stacks: the bias of the table [num_buckets, nhead] (bidirectional in the encoder, causal in the
// decoder), the layers in turn, the final norm.
void t5_encode(const Kernels& k, const T5StackOptions& o, const T5EncoderLayerWeights* layers, size_t n_layers,
               const float* bias_table, const float* final_norm, float* x, size_t rows, const uint8_t* valid,
               T5Scratch& s);
void t5_decode(const Kernels& k, const T5StackOptions& o, const T5DecoderLayerWeights* layers, size_t n_layers,
               const float* bias_table, const float* final_norm, float* y, size_t rows, const float* memory,
               size_t mem_rows, const uint8_t* memory_valid, T5Scratch& s);

}  // namespace ax
