// The sequence classifier family: token embeddings (times a scale), positions (learned, sinusoidal, the
// pad-aware sinusoidal_pad0 table or none), a Transformer encoder with a key padding mask, optionally a
// decoder fed one fixed start token over the encoder's memory (embedded with the decoder's own token and
// learned position tables when the model has them, else with the input's), pooling over time that ignores pads (mean,
// max or first) or the decoder's one output row, a linear head, and sigmoid, softmax or no activation.
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
#include "runtime/transformer_stack.h"
#include "runtime/vocabulary.h"

namespace ax {

struct ClassifierConfig {
    StackConfig stack;  // decoder_layers 0: encoder only
    size_t vocab = 0;
    size_t n_labels = 0;
    uint32_t pad_id = format::kNoToken;    // kNoToken: no padding mask
    uint32_t start_id = format::kNoToken;  // the decoder's input token (decoder_layers > 0)
    size_t decoder_vocab = 0;              // rows of the decoder's own token table; 0: it uses the input's
    size_t decoder_position_rows = 0;      // learned positions: rows of the decoder's own table; 0: none
    format::PositionalEncoding positional_encoding = format::PositionalEncoding::none;
    size_t max_positions = 0;  // longest input; 0 = no limit
    float embed_scale = 1.0f;
    format::Pooling pooling = format::Pooling::mean;
    format::OutputActivation output_activation = format::OutputActivation::none;
};

Status read_classifier_config(const ModelFile& file, ClassifierConfig* out);

// Plans a session's arena for a config (the model's, or a variant such as another kv_cache type): the
// buffers, their lifetimes and offsets, as init() will place them. False when a length is 0 or above
// kMaxSequenceLength, or a size overflows. Classifier::arena_bytes is plan->total_bytes().
bool plan_classifier_arena(const ClassifierConfig& config, size_t max_len, MemoryPlan* plan);

class Classifier {
public:
    // Validates the config and every tensor's presence, shape and dtype. `file` must outlive the model.
    static Status open(const ModelFile& file, Classifier* out);

    const ClassifierConfig& config() const { return config_; }
    const ModelFile& file() const { return *file_; }
    // The vocabulary stored with the model (present() false when the file has none).
    const Vocabulary& vocabulary() const { return vocabulary_; }

    // Exact bytes a session needs for inputs up to max_len tokens; 0 when max_len is 0 or too large.
    // workers: the most tasks the session's parallel-for hook runs at once (runtime/parallel.h); 1 without one.
    size_t arena_bytes(size_t max_len, size_t workers = 1) const;

private:
    friend class ClassifierSession;

    const ModelFile* file_ = nullptr;
    ClassifierConfig config_;
    TokenInput input_, decoder_input_;
    Vocabulary vocabulary_;
    Linear head_;
    LayerNormWeights encoder_norm_, decoder_norm_;
};

// The session's buffers in its arena, described once for counting and placing (runtime/session_plan.h).
struct ClassifierLayout {
    StackSession stack;
    float* x = nullptr;            // [max_len, d]
    float* dec_x = nullptr;        // [1, d]
    float* pooled = nullptr;       // [d]
    uint8_t* valid = nullptr;      // [max_len]
    LayerScratch encoder_scratch;  // live while encoding (and pooling) only
    LayerScratch decoder_scratch;  // from preparing the cross-attention caches to the outputs

    void allocate(MemoryPlan& plan, const ClassifierConfig& c, size_t max_len);
};

class ClassifierSession {
public:
    // Lays the session out in `arena` (16-byte aligned, at least model.arena_bytes(max_len, parallel.workers)
    // bytes); the products are split over the optional parallel-for hook.
    Status init(const Classifier& model, const Kernels& kernels, void* arena, size_t arena_bytes, size_t max_len,
                const ParallelFor& parallel = ParallelFor{});

    // The pad id for the padding mask, pooling and sinusoidal_pad0 positions; starts as the model's.
    Status set_pad_id(uint32_t pad_id);

    // One sequence of 1..max_len tokens: out gets n_labels values (probabilities after sigmoid or softmax).
    Status classify(const int32_t* tokens, size_t len, float* out);

private:
    const Classifier* model_ = nullptr;
    const Kernels* k_ = nullptr;
    size_t max_len_ = 0;
    TokenInput input_, decoder_input_;
    ClassifierLayout layout_;
};

}  // namespace ax
