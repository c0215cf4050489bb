#include "models/classifier/classifier.h"

#include <cmath>

#include "runtime/memory_plan.h"
#include "runtime/session_checks.h"
#include "runtime/session_plan.h"
#include "runtime/pooling.h"
#include "runtime/tensor_binding.h"

namespace ax {

namespace {

using format::ConfigKey;
using format::PositionalEncoding;
using format::Role;

}  // namespace

Status read_classifier_config(const ModelFile& f, ClassifierConfig* out) {
    if (f.family() != format::Family::classifier) return bad_model_config("not a classifier model");
    ClassifierConfig c;
    AX_RETURN_IF_ERROR(read_stack_config(f, 0, &c.stack));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::src_vocab, 1, kMaxModelWidth, &c.vocab));
    AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::n_outputs, 1, kMaxModelWidth, &c.n_labels));
    AX_RETURN_IF_ERROR(read_config_token(f, ConfigKey::pad_id, c.vocab, true, &c.pad_id));
    uint32_t v = 0;
    if (f.config(ConfigKey::tgt_vocab, &v)) {  // the decoder's own token table (absent in older files)
        if (c.stack.decoder_layers == 0) return bad_model_config("tgt_vocab is for a classifier with a decoder");
        AX_RETURN_IF_ERROR(read_config_size(f, ConfigKey::tgt_vocab, 1, kMaxModelWidth, &c.decoder_vocab));
    }
    AX_RETURN_IF_ERROR(read_config_token(f, ConfigKey::start_id, c.decoder_vocab ? c.decoder_vocab : c.vocab,
                                         c.stack.decoder_layers == 0, &c.start_id));
    AX_RETURN_IF_ERROR(read_token_input_config(f, c.stack.layer.d_model, c.pad_id, &c.positional_encoding,
                                               &c.max_positions, &c.embed_scale));
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::pooling, &c.pooling));
    AX_RETURN_IF_ERROR(read_config_enum(f, ConfigKey::output_activation, &c.output_activation));
    TensorView table;
    if (c.positional_encoding == PositionalEncoding::learned && c.stack.decoder_layers > 0 &&
        f.find(Role::tgt_pos_embed, format::kNoLayer, &table))
        c.decoder_position_rows = table.dims[0];  // the binder checks the shape
    *out = c;
    return Status::ok();
}

Status Classifier::open(const ModelFile& file, Classifier* out) {
    Classifier m;
    m.file_ = &file;
    AX_RETURN_IF_ERROR(read_classifier_config(file, &m.config_));
    const ClassifierConfig& c = m.config_;
    const size_t d = c.stack.layer.d_model;
    const uint16_t none = format::kNoLayer;
    TensorBinder b(file);
    AX_RETURN_IF_ERROR(b.embedding(Role::src_token_embed, none, c.vocab, d, &m.input_.tokens));
    if (c.positional_encoding == PositionalEncoding::learned)
        AX_RETURN_IF_ERROR(b.embedding(Role::src_pos_embed, none, c.max_positions, d, &m.input_.positions));
    m.input_.positional_encoding = c.positional_encoding;
    m.input_.scale = c.embed_scale;
    m.input_.pad_id = c.pad_id;
    m.decoder_input_ = m.input_;
    if (c.decoder_vocab != 0)
        AX_RETURN_IF_ERROR(b.embedding(Role::tgt_token_embed, none, c.decoder_vocab, d, &m.decoder_input_.tokens));
    if (c.decoder_position_rows != 0)
        AX_RETURN_IF_ERROR(
            b.embedding(Role::tgt_pos_embed, none, c.decoder_position_rows, d, &m.decoder_input_.positions));
    AX_RETURN_IF_ERROR(b.linear(Role::head_weight, Role::head_bias, none, c.n_labels, d, &m.head_));
    AX_RETURN_IF_ERROR(bind_stack(b, c.stack, &m.encoder_norm_, &m.decoder_norm_));
    AX_RETURN_IF_ERROR(b.vocabulary(Role::src_vocabulary, c.vocab, &m.vocabulary_));
    AX_RETURN_IF_ERROR(b.check_all_used());
    *out = m;
    return Status::ok();
}

// The one description of a session's memory and the phases each buffer is live in: planned once to count
// (MemoryPlan without memory), then placed over the caller's arena by the same calls. Without a decoder,
// pooling and the head belong to the encode phase.
void ClassifierLayout::allocate(MemoryPlan& plan, const ClassifierConfig& c, size_t max_len) {
    const size_t d = c.stack.layer.d_model;
    const bool decoder = c.stack.decoder_layers > 0;
    stack.allocate(plan, c.stack, 1, max_len);
    x = plan.alloc<float>("token rows / encoder output", uint64_t{max_len} * d, Phase::encode,
                          decoder ? Phase::prepare : Phase::encode);
    dec_x = plan.alloc<float>("decoder row", d, Phase::decode, Phase::decode);
    pooled = plan.alloc<float>("pooled features", d, Phase::encode, Phase::encode);
    valid = plan.alloc_session<uint8_t>("key padding flags", max_len);
    encoder_scratch.allocate(plan, c.stack.layer, max_len, max_len, 0, Phase::encode, Phase::encode);
    if (decoder) decoder_scratch.allocate(plan, c.stack.layer, 0, max_len, 0, Phase::prepare, Phase::decode);
}

bool plan_classifier_arena(const ClassifierConfig& config, size_t max_len, MemoryPlan* plan) {
    return plan_session<ClassifierLayout>(config, plan, max_len);
}

size_t Classifier::arena_bytes(size_t max_len, size_t workers) const {
    return session_arena_bytes<ClassifierLayout>(config_, workers, max_len);
}

Status ClassifierSession::init(const Classifier& model, const Kernels& kernels, void* arena, size_t arena_bytes,
                               size_t max_len, const ParallelFor& parallel) {
    ClassifierLayout s;
    AX_RETURN_IF_ERROR(place_session(model.config_, parallel.workers, arena, arena_bytes, &s, max_len));
    s.encoder_scratch.split.parallel = parallel;
    s.decoder_scratch.split.parallel = parallel;
    AX_RETURN_IF_ERROR(s.stack.bind(model.file(), model.config_.stack));
    model_ = &model;
    k_ = &kernels;
    max_len_ = max_len;
    input_ = model.input_;
    decoder_input_ = model.decoder_input_;
    layout_ = s;
    return Status::ok();
}

Status ClassifierSession::set_pad_id(uint32_t pad_id) {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    AX_RETURN_IF_ERROR(check_pad_id(pad_id, model_->config_.vocab, model_->config_.positional_encoding));
    input_.pad_id = pad_id;
    decoder_input_.pad_id = pad_id;
    return Status::ok();
}

Status ClassifierSession::classify(const int32_t* tokens, size_t len, float* out) {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    const ClassifierConfig& c = model_->config_;
    AX_RETURN_IF_ERROR(check_session_length(len, max_len_, c.max_positions, "input of ", " tokens"));
    AX_RETURN_IF_ERROR(check_tokens(tokens, len, c.vocab, "input"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    const Kernels& k = *k_;
    const size_t d = c.stack.layer.d_model;
    const uint8_t* valid = mark_non_pad(tokens, len, input_.pad_id, layout_.valid);
    embed_tokens(input_, tokens, len, 0, layout_.x);
    layout_.stack.encode(k, c.stack, model_->encoder_norm_, layout_.x, len, valid, layout_.encoder_scratch);
    const float* features = layout_.pooled;
    const QuantScratch* head_quant = &layout_.encoder_scratch.quant;
    if (c.stack.decoder_layers > 0) {
        layout_.stack.prepare_memory(k, c.stack, layout_.x, len, layout_.decoder_scratch);
        const int32_t start = static_cast<int32_t>(c.start_id);
        embed_tokens(decoder_input_, &start, 1, 0, layout_.dec_x);
        layout_.stack.decode(k, c.stack, model_->decoder_norm_, layout_.dec_x, 1, 0, len, nullptr, valid,
                             layout_.decoder_scratch);
        features = layout_.dec_x;
        head_quant = &layout_.decoder_scratch.quant;
    } else {
        pool_rows(c.pooling, layout_.x, len, d, valid, layout_.pooled);
    }
    linear_forward(k, model_->head_, features, 1, out, *head_quant);
    apply_output_activation(k, c.output_activation, out, c.n_labels);
    for (size_t i = 0; i < c.n_labels; ++i)
        if (!std::isfinite(out[i])) return Status::error(StatusCode::bad_input, "the outputs overflowed to NaN or Inf");
    return Status::ok();
}

}  // namespace ax
