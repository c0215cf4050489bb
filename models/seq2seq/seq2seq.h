// The seq2seq translator family: the PyTorch "language translation with nn.Transformer" model. Source and
// target token embeddings times a scale (sqrt(d_model)), positions (sinusoidal, learned or none), an
// nn.Transformer encoder and decoder with final norms, key padding masks from a pad id, a linear generator
// over the target vocabulary; greedy decoding with the KV cache.
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

struct Seq2SeqConfig {
    StackConfig stack;
    size_t src_vocab = 0;
    size_t tgt_vocab = 0;
    uint32_t pad_id = format::kNoToken;  // kNoToken: no padding masks
    uint32_t bos_id = format::kNoToken;  // defaults for translate
    uint32_t eos_id = format::kNoToken;
    format::PositionalEncoding positional_encoding = format::PositionalEncoding::none;
    size_t max_positions = 0;  // longest source or target sequence; 0 = no limit
    float embed_scale = 1.0f;
    // Greedy decoding masks pad ids in the generated prefix as keys (bentrevett's translate_sentence with
    // make_trg_mask); false: they are attended like any token (the translation tutorial's greedy_decode).
    bool decode_mask_pads = false;
};

Status read_seq2seq_config(const ModelFile& file, Seq2SeqConfig* out);

// Plans a session's arena for a config (the model's, or a variant such as another kv_cache type): the
// buffers, their lifetimes and offsets, as init() will place them. False when a length is 0 or above
// kMaxSequenceLength, or a size overflows. Seq2Seq::arena_bytes is plan->total_bytes().
bool plan_seq2seq_arena(const Seq2SeqConfig& config, size_t max_src, size_t max_tgt, MemoryPlan* plan);

class Seq2Seq {
public:
    // Validates the config and every tensor's presence, shape and dtype. `file` must outlive the model.
    static Status open(const ModelFile& file, Seq2Seq* out);

    const Seq2SeqConfig& config() const { return config_; }
    const ModelFile& file() const { return *file_; }
    // The vocabularies stored with the model (present() false when the file has none).
    const Vocabulary& src_vocabulary() const { return src_vocabulary_; }
    const Vocabulary& tgt_vocabulary() const { return tgt_vocabulary_; }

    // Exact bytes a session needs for sources up to max_src tokens and decoder lengths (teacher-forced
    // target tokens, or translate's max_len) up to max_tgt. 0 when a length is 0 or above the limits.
    // workers: the most tasks the session's parallel-for hook runs at once (runtime/parallel.h); 1 without one.
    size_t arena_bytes(size_t max_src, size_t max_tgt, size_t workers = 1) const;

private:
    friend class Seq2SeqSession;

    const ModelFile* file_ = nullptr;
    Seq2SeqConfig config_;
    TokenInput src_input_, tgt_input_;
    Vocabulary src_vocabulary_, tgt_vocabulary_;
    Linear generator_;
    LayerNormWeights encoder_norm_, decoder_norm_;
};

// The session's buffers in its arena, described once for counting and placing (runtime/session_plan.h).
struct Seq2SeqLayout {
    StackSession stack;
    float* memory = nullptr;       // [max_src, d]
    float* dec_x = nullptr;        // [tile, d]: the decoder works a tile of rows at a time
    float* step_logits = nullptr;  // [tgt_vocab]
    uint8_t* src_valid = nullptr;  // [max_src]
    uint8_t* tgt_valid = nullptr;  // [max_tgt]
    LayerScratch encoder_scratch;  // live while encoding only
    LayerScratch decoder_scratch;  // from preparing the cross-attention caches to the outputs

    void allocate(MemoryPlan& plan, const Seq2SeqConfig& c, size_t max_src, size_t max_tgt);
};

class Seq2SeqSession {
public:
    // Lays the session out in `arena` (16-byte aligned, at least model.arena_bytes(max_src, max_tgt,
    // parallel.workers)); the products are split over the optional parallel-for hook.
    Status init(const Seq2Seq& model, const Kernels& kernels, void* arena, size_t arena_bytes, size_t max_src,
                size_t max_tgt, const ParallelFor& parallel = ParallelFor{});

    // The pad id used for key padding masks (and sinusoidal_pad0 positions); starts as the model's. kNoToken
    // turns the masks off.
    Status set_pad_id(uint32_t pad_id);
    // Whether translate masks pad ids in the generated prefix; starts as the model's decode_mask_pads.
    void set_decode_mask_pads(bool mask) { decode_mask_pads_ = mask; }

    // Teacher-forced pass as the module's forward(src, tgt) with src/tgt/memory key padding masks from the
    // pad id and a causal target mask: logits gets tgt_len x tgt_vocab values.
    Status run(const int32_t* src, size_t src_len, const int32_t* tgt, size_t tgt_len, float* logits);

    // Greedy decoding: the decoder starts from bos and is fed its argmax (first on ties) until it emits eos
    // (eos is written) or has written max_len tokens (1..max_tgt; bos is not counted). Source pads are
    // masked; pad ids in the generated prefix only when the model says decode_mask_pads. eos may be kNoToken
    // (always max_len tokens).
    Status translate(const int32_t* src, size_t src_len, uint32_t bos, uint32_t eos, size_t max_len, int32_t* out,
                     size_t* out_len);

private:
    Status check_source(const int32_t* src, size_t src_len) const;
    // Encodes the source into the cross-attention caches; returns the memory mask (nullptr: no pads).
    const uint8_t* encode(const int32_t* src, size_t src_len);

    const Seq2Seq* model_ = nullptr;
    const Kernels* k_ = nullptr;
    size_t max_src_ = 0;
    size_t max_tgt_ = 0;
    uint32_t pad_id_ = format::kNoToken;
    bool decode_mask_pads_ = false;
    TokenInput src_input_, tgt_input_;
    Seq2SeqLayout layout_;
};

}  // namespace ax
