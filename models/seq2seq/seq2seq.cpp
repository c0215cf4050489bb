#include "models/seq2seq/seq2seq.h"

#include <cmath>
#include <new>

#include "runtime/memory_plan.h"
#include "runtime/session_checks.h"
#include "runtime/session_plan.h"
#include "runtime/tensor_binding.h"

namespace ax {

namespace {

using format::ConfigKey;
using format::PositionalEncoding;
using format::Role;

}  // namespace

Status read_seq2seq_config(const ModelFile& f, Seq2SeqConfig* out) {
    if (f.family() != format::Family::seq2seq) return bad_model_config("not a seq2seq model");
    Seq2SeqConfig c;
    AX_RETURN_IF_ERROR(read_stack_config(f, 1, &c.stack));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::src_vocab, 1, kMaxModelWidth, &c.src_vocab));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::tgt_vocab, 1, kMaxModelWidth, &c.tgt_vocab));
    const size_t both = c.src_vocab < c.tgt_vocab ? c.src_vocab : c.tgt_vocab;
    AX_RETURN_IF_ERROR(read_config_token(f, ConfigKey::pad_id, both, true, &c.pad_id));
    AX_RETURN_IF_ERROR(read_config_token(f, ConfigKey::bos_id, c.tgt_vocab, true, &c.bos_id));
    AX_RETURN_IF_ERROR(read_config_token(f, ConfigKey::eos_id, c.tgt_vocab, true, &c.eos_id));
    AX_RETURN_IF_ERROR(read_token_input_config(f, c.stack.layer.d_model, c.pad_id, &c.positional_encoding,
                                               &c.max_positions, &c.embed_scale));
    uint32_t v = 0;
    if (f.config(ConfigKey::decode_mask_pads, &v)) {  // absent in older files: the tutorial's rule
        AX_RETURN_IF_ERROR(read_config_flag(f, ConfigKey::decode_mask_pads, &c.decode_mask_pads));
    }
    *out = c;
    return Status::ok();
}

Status Seq2Seq::open(const ModelFile& file, Seq2Seq* out) {
    Seq2Seq m;
    m.file_ = &file;
    AX_RETURN_IF_ERROR(read_seq2seq_config(file, &m.config_));
    const Seq2SeqConfig& c = m.config_;
    const size_t d = c.stack.layer.d_model;
    const uint16_t none = format::kNoLayer;
    TensorBinder b(file);
    AX_RETURN_IF_ERROR(b.embedding(Role::src_token_embed, none, c.src_vocab, d, &m.src_input_.tokens));
    AX_RETURN_IF_ERROR(b.embedding(Role::tgt_token_embed, none, c.tgt_vocab, d, &m.tgt_input_.tokens));
    if (c.positional_encoding == PositionalEncoding::learned) {
        AX_RETURN_IF_ERROR(b.embedding(Role::src_pos_embed, none, c.max_positions, d, &m.src_input_.positions));
        AX_RETURN_IF_ERROR(b.embedding(Role::tgt_pos_embed, none, c.max_positions, d, &m.tgt_input_.positions));
    }
    TokenInput* inputs[] = {&m.src_input_, &m.tgt_input_};
    for (TokenInput* in : inputs) {
        in->positional_encoding = c.positional_encoding;
        in->scale = c.embed_scale;
        in->pad_id = c.pad_id;
    }
    AX_RETURN_IF_ERROR(b.linear(Role::generator_weight, Role::generator_bias, none, c.tgt_vocab, d, &m.generator_));
    AX_RETURN_IF_ERROR(bind_stack(b, c.stack, &m.encoder_norm_, &m.decoder_norm_));
    AX_RETURN_IF_ERROR(b.vocabulary(Role::src_vocabulary, c.src_vocab, &m.src_vocabulary_));
    AX_RETURN_IF_ERROR(b.vocabulary(Role::tgt_vocabulary, c.tgt_vocab, &m.tgt_vocabulary_));
    AX_RETURN_IF_ERROR(b.check_all_used());
    *out = m;
    return Status::ok();
}

// The one description of a session's memory and the phases each buffer is live in: planned once to count
// (MemoryPlan without memory), then placed over the caller's arena by the same calls.
void Seq2SeqLayout::allocate(MemoryPlan& plan, const Seq2SeqConfig& c, size_t max_src, size_t max_tgt) {
    const size_t d = c.stack.layer.d_model;
    stack.allocate(plan, c.stack, max_tgt, max_src);
    memory = plan.alloc<float>("encoder rows / memory", uint64_t{max_src} * d, Phase::encode, Phase::prepare);
    dec_x = plan.alloc<float>("decoder rows", row_tile(c.stack.layer) * d, Phase::decode, Phase::decode);
    step_logits = plan.alloc<float>("step logits", c.tgt_vocab, Phase::decode, Phase::decode);
    // The memory's key padding, read by the decoder.
    src_valid = plan.alloc_session<uint8_t>("source padding flags", max_src);
    tgt_valid = plan.alloc<uint8_t>("target padding flags", max_tgt, Phase::decode, Phase::decode);
    encoder_scratch.allocate(plan, c.stack.layer, max_src, max_src, 0, Phase::encode, Phase::encode);
    const size_t keys = max_src > max_tgt ? max_src : max_tgt;
    decoder_scratch.allocate(plan, c.stack.layer, 0, keys, 0, Phase::prepare, Phase::decode);
}

bool plan_seq2seq_arena(const Seq2SeqConfig& config, size_t max_src, size_t max_tgt, MemoryPlan* plan) {
    return plan_session<Seq2SeqLayout>(config, plan, max_src, max_tgt);
}

size_t Seq2Seq::arena_bytes(size_t max_src, size_t max_tgt, size_t workers) const {
    return session_arena_bytes<Seq2SeqLayout>(config_, workers, max_src, max_tgt);
}

Status Seq2SeqSession::init(const Seq2Seq& model, const Kernels& kernels, void* arena, size_t arena_bytes,
                            size_t max_src, size_t max_tgt, const ParallelFor& parallel) {
    Seq2SeqLayout s;
    AX_RETURN_IF_ERROR(place_session(model.config_, parallel.workers, arena, arena_bytes, &s, max_src, max_tgt));
    s.encoder_scratch.split.parallel = parallel;
    s.decoder_scratch.split.parallel = parallel;
    AX_RETURN_IF_ERROR(s.stack.bind(model.file(), model.config_.stack));
    model_ = &model;
    k_ = &kernels;
    max_src_ = max_src;
    max_tgt_ = max_tgt;
    pad_id_ = model.config_.pad_id;
    decode_mask_pads_ = model.config_.decode_mask_pads;
    src_input_ = model.src_input_;
    tgt_input_ = model.tgt_input_;
    layout_ = s;
    return Status::ok();
}

Status Seq2SeqSession::set_pad_id(uint32_t pad_id) {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    const Seq2SeqConfig& c = model_->config_;
    const size_t both = c.src_vocab < c.tgt_vocab ? c.src_vocab : c.tgt_vocab;  // the pad id is shared
    AX_RETURN_IF_ERROR(check_pad_id(pad_id, both, c.positional_encoding));
    pad_id_ = pad_id;
    src_input_.pad_id = pad_id;
    tgt_input_.pad_id = pad_id;
    return Status::ok();
}

Status Seq2SeqSession::check_source(const int32_t* src, size_t src_len) const {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    const Seq2SeqConfig& c = model_->config_;
    AX_RETURN_IF_ERROR(check_session_length(src_len, max_src_, c.max_positions, "source of ", " tokens"));
    return check_tokens(src, src_len, c.src_vocab, "source");
}

const uint8_t* Seq2SeqSession::encode(const int32_t* src, size_t src_len) {
    const Seq2SeqConfig& c = model_->config_;
    const Kernels& k = *k_;
    embed_tokens(src_input_, src, src_len, 0, layout_.memory);
    const uint8_t* valid = mark_non_pad(src, src_len, pad_id_, layout_.src_valid);
    layout_.stack.encode(k, c.stack, model_->encoder_norm_, layout_.memory, src_len, valid, layout_.encoder_scratch);
    layout_.stack.prepare_memory(k, c.stack, layout_.memory, src_len, layout_.decoder_scratch);
    return valid;
}

Status Seq2SeqSession::run(const int32_t* src, size_t src_len, const int32_t* tgt, size_t tgt_len, float* logits) {
    AX_RETURN_IF_ERROR(check_source(src, src_len));
    const Seq2SeqConfig& c = model_->config_;
    AX_RETURN_IF_ERROR(check_session_length(tgt_len, max_tgt_, c.max_positions, "target of ", " tokens"));
    AX_RETURN_IF_ERROR(check_tokens(tgt, tgt_len, c.tgt_vocab, "target"));
    if (logits == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    const uint8_t* memory_valid = encode(src, src_len);
    const uint8_t* self_valid = mark_non_pad(tgt, tgt_len, pad_id_, layout_.tgt_valid);
    // A tile of rows at a time through embedding, every layer and the generator (causal self-attention needs
    // only the cached keys of earlier rows).
    const size_t tile = layout_.decoder_scratch.tile;
    for (size_t r = 0; r < tgt_len; r += tile) {
        const size_t n = tgt_len - r < tile ? tgt_len - r : tile;
        embed_tokens(tgt_input_, tgt + r, n, r, layout_.dec_x);
        layout_.stack.decode(*k_, c.stack, model_->decoder_norm_, layout_.dec_x, n, r, src_len, self_valid,
                             memory_valid, layout_.decoder_scratch);
        linear_forward(*k_, model_->generator_, layout_.dec_x, n, logits + r * c.tgt_vocab,
                       layout_.decoder_scratch.quant);
    }
    return Status::ok();
}

Status Seq2SeqSession::translate(const int32_t* src, size_t src_len, uint32_t bos, uint32_t eos, size_t max_len,
                                 int32_t* out, size_t* out_len) {
    AX_RETURN_IF_ERROR(check_source(src, src_len));
    const Seq2SeqConfig& c = model_->config_;
    if (out == nullptr || out_len == nullptr)
        return Status::error(StatusCode::invalid_argument, "output buffer is null");
    *out_len = 0;
    if (bos == format::kNoToken || bos >= c.tgt_vocab)
        return Status::error(StatusCode::invalid_argument, "greedy decoding needs a bos id in the target vocabulary");
    if (eos != format::kNoToken && eos >= c.tgt_vocab)
        return Status::error(StatusCode::invalid_argument, "eos id ").add(eos).add(" is outside the vocabulary");
    AX_RETURN_IF_ERROR(check_session_length(max_len, max_tgt_, c.max_positions, "max length ", ""));
    const uint8_t* memory_valid = encode(src, src_len);
    int32_t token = static_cast<int32_t>(bos);
    const bool mask_pads = decode_mask_pads_ && pad_id_ != format::kNoToken;
    bool any_pad = false;
    for (size_t t = 0; t < max_len; ++t) {
        float* row = layout_.dec_x;
        embed_tokens(tgt_input_, &token, 1, t, row);
        layout_.tgt_valid[t] = static_cast<uint32_t>(token) != pad_id_;
        any_pad = any_pad || !layout_.tgt_valid[t];
        const uint8_t* self_valid = mask_pads && any_pad ? layout_.tgt_valid : nullptr;
        layout_.stack.decode(*k_, c.stack, model_->decoder_norm_, row, 1, t, src_len, self_valid, memory_valid,
                             layout_.decoder_scratch);
        linear_forward(*k_, model_->generator_, row, 1, layout_.step_logits, layout_.decoder_scratch.quant);
        size_t best = 0;
        for (size_t i = 1; i < c.tgt_vocab; ++i)
            if (layout_.step_logits[i] > layout_.step_logits[best]) best = i;
        if (!std::isfinite(layout_.step_logits[best]))
            return Status::error(StatusCode::bad_input, "the decoder's logits overflowed to NaN or Inf");
        token = static_cast<int32_t>(best);
        out[(*out_len)++] = token;
        if (static_cast<uint32_t>(token) == eos) break;
    }
    return Status::ok();
}

}  // namespace ax
