// An encoder stack and a decoder stack as torch.nn.TransformerEncoder / TransformerDecoder hold them (layers
// plus optional final `norm=` LayerNorms), shared by the token and latent families. The config part is read
// from the model file; the per-layer weight tables and KV caches live in a session's arena.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/kernels.h"
#include "runtime/memory_plan.h"
#include "runtime/model_file.h"
#include "runtime/status.h"
#include "runtime/tensor_binding.h"
#include "runtime/transformer_layer.h"

namespace ax {

struct StackConfig {
    LayerOptions layer;
    size_t encoder_layers = 0;
    size_t decoder_layers = 0;  // 0 only where the family allows no decoder
    bool encoder_final_norm = false;
    bool decoder_final_norm = false;
    bool encoder_causal = false;          // the encoder's self-attention under a causal mask (set by the family)
    bool decoder_causal = true;           // false: the decoder's rows attend to each other unmasked (the family's)
    CacheType kv_cache = CacheType::f32;  // how the decoder's key/value caches store their rows
};

// Reads d_model, nhead, dim_feedforward, the layer counts, activation, norm_first, layer_norm_eps and the
// final-norm flags, and the optional kv_cache key (absent: float32). min_decoder_layers is 0 for a family whose decoder
// is optional.
Status read_stack_config(const ModelFile& f, size_t min_decoder_layers, StackConfig* out);
// The same in two steps: the records alone, then what the tensors' dtypes tell (int8 encoder attention).
Status read_stack_records(const ConfigRecords& f, size_t min_decoder_layers, StackConfig* out);
void note_stack_tensors(const ModelFile& f, StackConfig* c);

// Binds the final norms (when present) and every layer once, so that a session's later binding cannot fail.
Status bind_stack(TensorBinder& b, const StackConfig& c, LayerNormWeights* encoder_norm,
                  LayerNormWeights* decoder_norm);

// The per-session part: one weight table per layer and the decoder's key/value caches, in an arena.
struct StackSession {
    EncoderLayerWeights* encoder = nullptr;
    DecoderLayerWeights* decoder = nullptr;
    KvCache* self_cache = nullptr;   // capacity max_target rows per decoder layer
    KvCache* cross_cache = nullptr;  // capacity max_memory rows per decoder layer

    // Plans (or places) the tables, live for the whole call, and the caches: the cross-attention caches from
    // Phase::prepare, the self-attention caches in Phase::decode only. A decoder whose position p sees memory
    // rows [0, p] only (memory_causal) needs at most max_target memory rows cached.
    void allocate(MemoryPlan& plan, const StackConfig& c, size_t max_target, size_t max_memory,
                  bool memory_causal = false);
    // After a successful allocation over real memory: fills the weight tables.
    Status bind(const ModelFile& file, const StackConfig& c);

    // x [rows, d] through the encoder layers (key padding from `valid`, optional) and the final norm.
    void encode(const Kernels& k, const StackConfig& c, const LayerNormWeights& final_norm, float* x, size_t rows,
                const uint8_t* valid, LayerScratch& s) const;
    // Projects the memory [rows, d] into every decoder layer's cross-attention keys and values.
    void prepare_memory(const Kernels& k, const StackConfig& c, const float* memory, size_t rows,
                        LayerScratch& s) const;
    // Decoder rows [first, first + rows) in place, through the layers and the final norm. Causal
    // self-attention; self_valid flags target positions [0, first + rows), memory_valid the mem_rows rows;
    // memory_causal: target position p sees memory rows [0, p] (the forecaster's "tril" memory mask).
    void decode(const Kernels& k, const StackConfig& c, const LayerNormWeights& final_norm, float* x, size_t rows,
                size_t first, size_t mem_rows, const uint8_t* self_valid, const uint8_t* memory_valid, LayerScratch& s,
                bool memory_causal = false) const;
};

}  // namespace ax
