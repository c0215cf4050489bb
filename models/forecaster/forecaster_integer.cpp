#include "models/forecaster/forecaster_integer.h"

#include <cmath>
#include <cstring>

#include "runtime/bytes.h"
#include "runtime/session_checks.h"
#include "runtime/session_plan.h"

namespace ax {

namespace {

using format::Role;

// Reads the plan's words in order, checking every count against the plan's end and every value against
// its kernel's contract; once a read fails, every later one returns zeros and ok() stays false. A session
// re-reads the plan that IntegerForecaster::open checked whole: Check::counts skips the per-value checks
// (every factor of a layer, every beta), which a decoder step would otherwise repeat for each output.
class PlanReader {
public:
    enum class Check { all, counts };
    // section_hint (a session's, one per section of the plan): where the section's first weight was found the
    // last time, so that the next reading of the section finds it at once; null: no memory.
    PlanReader(const int32_t* words, size_t count, size_t at = 0, Check check = Check::all,
               uint32_t* section_hint = nullptr)
        : w_(words),
          n_(count),
          at_(at),
          values_(check == Check::all),
          hint_(section_hint != nullptr ? *section_hint : 0),
          section_hint_(section_hint) {}

    bool ok() const { return ok_; }
    size_t at() const { return at_; }
    bool at_end() const { return at_ == n_; }

    int32_t word() { return ok_ && take(1) ? w_[at_ - 1] : 0; }
    const int32_t* words(size_t count) {
        if (!ok_ || !take(count)) return nullptr;
        return w_ + at_ - count;
    }
    const int8_t* bytes(size_t count) {
        const int32_t* p = words((count + 3) / 4);
        return reinterpret_cast<const int8_t*>(p);
    }
    fixed::Requant requant() {
        fixed::Requant m{word(), word()};
        check(fixed::requant_valid(m));
        return m;
    }
    LinearQ linear(const int8_t* weight, size_t in, size_t out, int32_t type_lo, int32_t type_hi) {
        LinearQ l;
        l.weight = weight;
        l.in = in;
        l.out = out;
        l.zero = word();
        l.lo = word();
        l.hi = word();
        check(type_lo <= l.lo && l.lo <= l.hi && l.hi <= type_hi && type_lo <= l.zero && l.zero <= type_hi);
        l.bias = words(out);
        const int32_t* m = words(2 * out);
        l.m = reinterpret_cast<const fixed::Requant*>(m);
        for (size_t o = 0; values_ && ok_ && o < out; ++o) check(fixed::requant_valid(l.m[o]));
        check(weight != nullptr);
        return l;
    }
    LayerNormQ norm(size_t d) {
        LayerNormQ n;
        n.shift = word();
        check(n.shift >= 0 && n.shift <= 30);
        const uint32_t lo = static_cast<uint32_t>(word());
        const uint32_t hi = static_cast<uint32_t>(word());
        n.eps = (uint64_t{hi} << 32) | lo;
        check(hi < (1u << 30));  // v + eps stays far inside uint64
        n.gamma = words(d);
        n.beta = words(d);
        for (size_t i = 0; values_ && ok_ && i < d; ++i) check(n.beta[i] >= -(1 << 20) && n.beta[i] <= (1 << 20));
        return n;
    }
    AddQ add() {
        AddQ a;
        a.a = requant();
        a.b = requant();
        return a;
    }
    void check(bool condition) { ok_ = ok_ && condition; }

    // The int8 matrix of `role` and `layer`, [rows, cols], or nullptr. The plan names the weights in the order
    // the converter writes their tensors, so the search starts after the last one found (and wraps around):
    // a step of the decoder looks at a few records per layer instead of every record for every matrix.
    const int8_t* weight(const ModelFile& f, Role role, uint16_t layer, size_t rows, size_t cols) {
        const uint32_t n = f.tensor_count();
        for (uint32_t step = 0; step < n; ++step) {
            const uint32_t i = (hint_ + step) % n;
            const TensorView v = f.tensor(i);
            if (v.role != role || v.layer != layer) continue;
            if (section_hint_ != nullptr && !found_any_) *section_hint_ = i;
            found_any_ = true;
            hint_ = i + 1;
            if (v.dtype != format::DType::i8 || v.rank != 2 || v.dims[0] != rows || v.dims[1] != cols) return nullptr;
            return static_cast<const int8_t*>(v.data);
        }
        return nullptr;
    }

private:
    bool take(size_t count) {
        if (count > n_ - at_) {
            ok_ = false;
            return false;
        }
        at_ += count;
        return true;
    }

    const int32_t* w_;
    size_t n_;
    size_t at_;
    bool values_;
    bool ok_ = true;
    uint32_t hint_;
    uint32_t* section_hint_;
    bool found_any_ = false;
};

AttentionQ read_attention(PlanReader& r, const ModelFile& f, Role in_w, uint16_t layer, size_t d) {
    const int8_t* in = r.weight(f, in_w, layer, 3 * d, d);
    const int8_t* out = r.weight(f, static_cast<Role>(static_cast<uint16_t>(in_w) + 2), layer, d, d);
    AttentionQ a;
    a.q = r.linear(in, d, d, -128, 127);
    a.k = r.linear(in ? in + d * d : nullptr, d, d, -128, 127);
    a.v = r.linear(in ? in + 2 * d * d : nullptr, d, d, -128, 127);
    a.out = r.linear(out, d, d, -128, 127);
    a.to_exp = r.requant();
    a.values = r.requant();
    return a;
}

FeedForwardQ read_feed_forward(PlanReader& r, const ModelFile& f, const LayerOptions& o, Role ff1, Role ff2,
                               uint16_t layer) {
    FeedForwardQ ff;
    ff.ff1 = r.linear(r.weight(f, ff1, layer, o.dim_feedforward, o.d_model), o.d_model, o.dim_feedforward, -128, 127);
    ff.table = o.activation == format::Activation::relu ? nullptr : r.bytes(256);
    ff.ff2 = r.linear(r.weight(f, ff2, layer, o.d_model, o.dim_feedforward), o.dim_feedforward, o.d_model, -128, 127);
    return ff;
}

EncoderLayerQ read_encoder_layer(PlanReader& r, const ModelFile& f, const LayerOptions& o, uint16_t layer) {
    EncoderLayerQ e;
    e.attn = read_attention(r, f, Role::enc_attn_in_weight, layer, o.d_model);
    e.add1 = r.add();
    e.norm1 = r.norm(o.d_model);
    e.ff = read_feed_forward(r, f, o, Role::enc_ff1_weight, Role::enc_ff2_weight, layer);
    e.add2 = r.add();
    e.norm2 = r.norm(o.d_model);
    return e;
}

DecoderLayerQ read_decoder_layer(PlanReader& r, const ModelFile& f, const LayerOptions& o, uint16_t layer) {
    DecoderLayerQ dl;
    dl.self = read_attention(r, f, Role::dec_attn_in_weight, layer, o.d_model);
    dl.add1 = r.add();
    dl.norm1 = r.norm(o.d_model);
    dl.cross = read_attention(r, f, Role::dec_cross_in_weight, layer, o.d_model);
    dl.add2 = r.add();
    dl.norm2 = r.norm(o.d_model);
    dl.ff = read_feed_forward(r, f, o, Role::dec_ff1_weight, Role::dec_ff2_weight, layer);
    dl.add3 = r.add();
    dl.norm3 = r.norm(o.d_model);
    return dl;
}

LayerShapeQ shape_of(const ForecasterConfig& c) {
    return LayerShapeQ{c.stack.layer.d_model, c.stack.layer.nhead, c.stack.layer.dim_feedforward};
}

bool sinusoidal_or_none(format::PositionalEncoding p) {
    return p == format::PositionalEncoding::none || p == format::PositionalEncoding::sinusoidal;
}

// A session's reader of the plan from word `at` on (IntegerForecaster::open checked every value).
PlanReader run_reader(const IntegerForecaster& m, size_t at, uint32_t* section_hint) {
    return PlanReader(m.model().integer_plan(), m.model().integer_plan_words(), at, PlanReader::Check::counts,
                      section_hint);
}

// rows of d int8 values through a final LayerNorm: widened onto its int16 input scale (add.a; the second
// input is the row itself at factor 0), normalized back into x, a tile at a time.
void final_norm_q(const IntegerKernels& k, const AddQ& add, const LayerNormQ& norm, int8_t* x, size_t rows, size_t d,
                  LayerScratchQ& s) {
    const size_t tile = kRowTileQ;
    for (size_t r = 0; r < rows; r += tile) {
        const size_t n = rows - r < tile ? rows - r : tile;
        k.add_q8_to_q16(x + r * d, add.a, x + r * d, fixed::Requant{}, n * d, s.sum);
        layer_norm_q(k, norm, s.sum, n, d, x + r * d);
    }
}

}  // namespace

const char* integer_mode_unsupported(const ForecasterConfig& c) {
    if (c.encoder_only()) return "the integer-only mode runs encoder-decoder forecasters only";
    if (c.one_pass()) return "the integer-only mode runs step-by-step decoding with a per-row generator only";
    if (c.stack.layer.norm_first) return "the integer-only mode runs post-norm layers only (norm_first false)";
    if (c.input.patched() || c.normalizer.revin != format::Revin::none)
        return "the integer-only mode runs unpatched models without RevIN";
    if (c.input.kind != format::InputEmbedding::linear) return "the integer-only mode needs a Linear input embedding";
    if (!sinusoidal_or_none(c.positions.encoder) || !sinusoidal_or_none(c.positions.decoder))
        return "the integer-only mode takes sinusoidal positions or none";
    // Each prediction is fed back as the decoder columns it predicts (forecast_q): every output is an input.
    if (c.n_outputs > c.n_features)
        return "the integer-only mode feeds predictions back as decoder inputs: a model with more outputs than "
               "input columns runs in the int8 mode (convert with --dtype int8, without --integer-only)";
    if (c.input.scale != 1.0f) return "the integer-only mode needs embed_scale 1";
    if (c.stack.layer.activation == format::Activation::gelu_tanh)
        return "the integer-only mode's activations are relu, gelu and elu (not gelu_tanh)";
    if (c.stack.layer.batch_norm) return "the integer-only mode runs LayerNorm layers, not BatchNorm";
    if (c.stack.layer.value_head_dim() != c.stack.layer.head_dim())
        return "the integer-only mode's attention has values as wide as its keys (d_model / nhead per head); this "
               "model's value heads are value_dim wide: it runs in the int8 mode (convert with --dtype int8, without "
               "--integer-only)";
    if (c.time_marks != 0) return "the integer-only mode takes no time-mark columns";
    if (c.stacks.encoder_residual || c.stacks.decoder_residual)
        return "the integer-only mode runs no residual around a whole stack";
    if (!c.stack.decoder_causal)
        return "the integer-only mode reuses each step's cached decoder rows: it needs a causal decoder (decoder_mask "
               "causal)";
    return nullptr;
}

Status IntegerForecaster::open(const Forecaster& model, IntegerForecaster* out) {
    const ForecasterConfig& c = model.config();
    if (model.integer_plan() == nullptr)
        return Status::error(StatusCode::unsupported, "the model has no integer plan (convert it with --integer-only)");
    if (const char* why = integer_mode_unsupported(c)) return Status::error(StatusCode::bad_model, why);
    const ModelFile& f = model.file();
    const LayerOptions& o = c.stack.layer;
    const size_t d = o.d_model;
    IntegerForecaster m;
    m.model_ = &model;
    PlanReader r(model.integer_plan(), model.integer_plan_words());
    r.check(r.word() == kIntegerPlanMagic);
    r.check(r.word() == kIntegerPlanVersion);
    m.z_scale_bits_ = static_cast<uint32_t>(r.word());
    float z_scale = 0.0f;
    std::memcpy(&z_scale, &m.z_scale_bits_, sizeof z_scale);
    r.check(z_scale > 0.0f && std::isfinite(z_scale));
    const int32_t positions = r.word();
    r.check(positions >= 0 && static_cast<size_t>(positions) <= kMaxSequenceLength);
    m.positions_ = r.ok() ? static_cast<size_t>(positions) : 0;
    const bool any_positions = c.positions.encoder != format::PositionalEncoding::none ||
                               c.positions.decoder != format::PositionalEncoding::none;
    r.check(any_positions == (m.positions_ != 0));
    m.src_embed_ = r.at();
    r.linear(r.weight(f, Role::src_embed_weight, format::kNoLayer, d, c.n_features), c.n_features, d, -128, 127);
    r.add();
    m.tgt_embed_ = r.at();
    r.linear(r.weight(f, Role::tgt_embed_weight, format::kNoLayer, d, c.decoder_features), c.decoder_features, d, -128,
             127);
    r.add();
    m.position_table_ = r.at();
    r.bytes(m.positions_ * d);
    m.encoder_ = r.at();
    for (size_t l = 0; l < c.stack.encoder_layers; ++l) read_encoder_layer(r, f, o, static_cast<uint16_t>(l));
    if (c.stack.encoder_final_norm) {
        r.add();
        r.norm(d);
    }
    m.decoder_ = r.at();
    for (size_t l = 0; l < c.stack.decoder_layers; ++l) read_decoder_layer(r, f, o, static_cast<uint16_t>(l));
    if (c.stack.decoder_final_norm) {
        r.add();
        r.norm(d);
    }
    m.generator_ = r.at();
    r.linear(r.weight(f, Role::generator_weight, format::kNoLayer, c.n_outputs, d), d, c.n_outputs, INT16_MIN,
             INT16_MAX);
    if (!r.ok() || !r.at_end())
        return Status::error(StatusCode::bad_model, "the integer plan does not match the model (word ")
            .add(r.at())
            .add(" of ")
            .add(model.integer_plan_words())
            .add("): convert it again with --integer-only");
    *out = m;
    return Status::ok();
}

void IntegerForecastLayout::allocate(MemoryPlan& plan, const ForecasterConfig& c, size_t max_window,
                                     size_t max_horizon) {
    const size_t d = c.stack.layer.d_model;
    const size_t n = c.n_features;
    const size_t layers = c.stack.decoder_layers;
    const size_t cross_rows =
        c.stacks.memory_mask == format::MemoryMask::tril && max_horizon < max_window ? max_horizon : max_window;
    const LayerShapeQ shape = shape_of(c);
    src_z = plan.alloc<int16_t>("integer: model-space window", uint64_t{max_window} * n, Phase::encode, Phase::encode);
    const size_t m = c.decoder_features;
    tgt_z = plan.alloc_session<int16_t>("integer: decoder inputs and predictions", uint64_t{max_horizon + 1} * m);
    if (c.known_inputs != 0) {  // the predictions beside the decoder rows, and the steps' known inputs
        predictions = plan.alloc_session<int16_t>("integer: predictions", uint64_t{max_horizon} * c.n_outputs);
        known_z = plan.alloc_session<int16_t>("integer: known inputs", uint64_t{max_horizon} * m);
    }
    reference = plan.alloc_session<float>("integer: last observed row", n);
    memory = plan.alloc<int8_t>("integer: encoder rows", uint64_t{max_window} * d, Phase::encode, Phase::prepare);
    dec_x = plan.alloc<int8_t>("integer decoder tile: rows", uint64_t{kRowTileQ} * d, Phase::decode, Phase::decode);
    encoder_scratch.allocate(plan, shape, max_window, max_window, Phase::encode, Phase::encode);
    decoder_scratch.allocate(plan, shape, 0, cross_rows > max_horizon ? cross_rows : max_horizon, Phase::prepare,
                             Phase::decode);
    self_cache = plan.alloc_records<KvCacheQ>("integer: self-attention caches", layers);
    cross_cache = plan.alloc_records<KvCacheQ>("integer: cross-attention caches", layers);
    int8_t* self_k = plan.alloc<int8_t>("integer: self-attention keys", uint64_t{layers} * max_horizon * d,
                                        Phase::decode, Phase::decode);
    int8_t* self_v = plan.alloc<int8_t>("integer: self-attention values", uint64_t{layers} * max_horizon * d,
                                        Phase::decode, Phase::decode);
    int8_t* cross_k = plan.alloc<int8_t>("integer: cross-attention keys", uint64_t{layers} * cross_rows * d,
                                         Phase::prepare, Phase::decode);
    int8_t* cross_v = plan.alloc<int8_t>("integer: cross-attention values", uint64_t{layers} * cross_rows * d,
                                         Phase::prepare, Phase::decode);
    if (self_cache == nullptr) return;  // planning only
    for (size_t l = 0; l < layers; ++l) {
        self_cache[l] = KvCacheQ{self_k + l * max_horizon * d, self_v + l * max_horizon * d, max_horizon};
        cross_cache[l] = KvCacheQ{cross_k + l * cross_rows * d, cross_v + l * cross_rows * d, cross_rows};
    }
}

size_t IntegerForecaster::arena_bytes(size_t max_window, size_t max_horizon) const {
    return session_arena_bytes<IntegerForecastLayout>(
        config(), 1, max_window, max_horizon);  // one worker: the integer mode runs on the calling thread
}

Status IntegerForecastSession::init(const IntegerForecaster& model, const IntegerKernels& kernels, void* arena,
                                    size_t arena_bytes, size_t max_window, size_t max_horizon) {
    const ForecasterConfig& c = model.config();
    const size_t positions = model.positions_;
    if (positions != 0 && (max_window > positions || max_horizon > positions))
        return Status::error(StatusCode::invalid_argument, "window and horizon must be at most the model's ")
            .add(positions)
            .add(" positions");
    IntegerForecastLayout s;
    AX_RETURN_IF_ERROR(place_session(c, 1, arena, arena_bytes, &s, max_window, max_horizon));
    model_ = &model;
    k_ = &kernels;
    max_window_ = max_window;
    max_horizon_ = max_horizon;
    layout_ = s;
    return Status::ok();
}

// Model-space rows through the input Linear (int16 in) and, with positions, plus the sinusoidal table.
void IntegerForecastSession::embed(size_t section, const int16_t* z, size_t rows, size_t first, int8_t* x) const {
    const IntegerForecaster& m = *model_;
    const ForecasterConfig& c = m.config();
    const size_t d = c.stack.layer.d_model;
    PlanReader r = run_reader(m, section, &section_hints_[section == m.src_embed_ ? kSrcEmbedHint : kTgtEmbedHint]);
    const Role role = section == m.src_embed_ ? Role::src_embed_weight : Role::tgt_embed_weight;
    const size_t in = section == m.src_embed_ ? c.n_features : c.decoder_features;
    const LinearQ l = r.linear(r.weight(m.model().file(), role, format::kNoLayer, d, in), in, d, -128, 127);
    const AddQ add = r.add();
    k_->linear_q16_to_q8(z, rows, l.in, l.weight, l.bias, l.m, l.out, l.zero, l.lo, l.hi, x);
    const format::PositionalEncoding kind = section == m.src_embed_ ? c.positions.encoder : c.positions.decoder;
    if (kind == format::PositionalEncoding::none) return;
    PlanReader t = run_reader(m, m.position_table_, nullptr);
    const int8_t* table = t.bytes(m.positions_ * d);
    for (size_t i = 0; i < rows; ++i) k_->add_q8_to_q8(x + i * d, add.a, table + (first + i) * d, add.b, d, x + i * d);
}

void IntegerForecastSession::encode(const int16_t* z, size_t rows) {
    const IntegerForecaster& m = *model_;
    const ForecasterConfig& c = m.config();
    const ModelFile& f = m.model().file();
    const LayerOptions& o = c.stack.layer;
    const LayerShapeQ shape = shape_of(c);
    embed(m.src_embed_, z, rows, 0, layout_.memory);
    PlanReader r = run_reader(m, m.encoder_, &section_hints_[kEncoderHint]);
    for (size_t l = 0; l < c.stack.encoder_layers; ++l) {
        const EncoderLayerQ w = read_encoder_layer(r, f, o, static_cast<uint16_t>(l));
        encoder_layer_q(*k_, shape, w, layout_.memory, rows, c.stack.encoder_causal, layout_.encoder_scratch);
    }
    if (c.stack.encoder_final_norm) {
        const AddQ add = r.add();
        const LayerNormQ norm = r.norm(o.d_model);
        final_norm_q(*k_, add, norm, layout_.memory, rows, o.d_model, layout_.encoder_scratch);
    }
    PlanReader dr = run_reader(m, m.decoder_, &section_hints_[kDecoderHint]);
    for (size_t l = 0; l < c.stack.decoder_layers; ++l) {
        const DecoderLayerQ w = read_decoder_layer(dr, f, o, static_cast<uint16_t>(l));
        decoder_layer_q_prepare(*k_, shape, w, layout_.memory, rows, layout_.cross_cache[l]);
    }
    mem_rows_ = rows;
}

void IntegerForecastSession::decode(const int16_t* tgt, size_t rows, size_t first, int16_t* out) {
    const IntegerForecaster& m = *model_;
    const ForecasterConfig& c = m.config();
    const ModelFile& f = m.model().file();
    const LayerOptions& o = c.stack.layer;
    const LayerShapeQ shape = shape_of(c);
    const size_t d = o.d_model;
    const size_t in = c.decoder_features;
    const size_t n = c.n_outputs;
    const bool tril = c.stacks.memory_mask == format::MemoryMask::tril;
    for (size_t r = 0; r < rows; r += kRowTileQ) {
        const size_t count = rows - r < kRowTileQ ? rows - r : kRowTileQ;
        embed(m.tgt_embed_, tgt + r * in, count, first + r, layout_.dec_x);
        PlanReader pr = run_reader(m, m.decoder_, &section_hints_[kDecoderHint]);
        for (size_t l = 0; l < c.stack.decoder_layers; ++l) {
            const DecoderLayerQ w = read_decoder_layer(pr, f, o, static_cast<uint16_t>(l));
            const KvCacheQ& cross = layout_.cross_cache[l];
            const size_t mem = mem_rows_ < cross.capacity ? mem_rows_ : cross.capacity;
            decoder_layer_q(*k_, shape, w, layout_.dec_x, count, first + r, layout_.self_cache[l], cross, mem, tril,
                            layout_.decoder_scratch);
        }
        if (c.stack.decoder_final_norm) {
            const AddQ add = pr.add();
            const LayerNormQ norm = pr.norm(d);
            final_norm_q(*k_, add, norm, layout_.dec_x, count, d, layout_.decoder_scratch);
        }
        PlanReader g = run_reader(m, m.generator_, &section_hints_[kGeneratorHint]);
        const LinearQ gen =
            g.linear(g.weight(f, Role::generator_weight, format::kNoLayer, n, d), d, n, INT16_MIN, INT16_MAX);
        k_->linear_q8_to_q16(layout_.dec_x, count, d, gen.weight, gen.bias, gen.m, n, gen.zero, gen.lo, gen.hi,
                             out + r * n);
    }
}

Status IntegerForecastSession::forecast_q(const int16_t* z, size_t rows, size_t horizon, int16_t* out,
                                          const int16_t* known) {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    AX_RETURN_IF_ERROR(check_session_length(rows, max_window_, 0, "window of ", " rows"));
    AX_RETURN_IF_ERROR(check_session_length(horizon, max_horizon_, 0, "horizon ", ""));
    if (z == nullptr || out == nullptr) return Status::error(StatusCode::invalid_argument, "a buffer is null");
    const ForecasterConfig& c = model_->config();
    const Forecaster& f = model_->model();
    const size_t n = c.n_features, m = c.decoder_features, o = c.n_outputs;
    if (c.known_inputs != 0 && known == nullptr && horizon > 1)
        return Status::error(StatusCode::invalid_argument, "the decoder reads inputs known ahead: give their rows");
    // The decoder starts from the last observed row's decoder columns; the row is copied before encoding.
    for (size_t j = 0; j < m; ++j) layout_.tgt_z[j] = z[(rows - 1) * n + f.decoder_column(j)];
    encode(z, rows);
    if (c.known_inputs == 0) {  // the prediction is the next decoder row as it is (m == o, same columns)
        for (size_t t = 0; t < horizon; ++t) decode(layout_.tgt_z + t * m, 1, t, layout_.tgt_z + (t + 1) * m);
        std::memcpy(out, layout_.tgt_z + m, horizon * m * sizeof(int16_t));
        return Status::ok();
    }
    // Each next decoder row: the predicted columns from the prediction, the others from the step's known inputs.
    for (size_t t = 0; t < horizon; ++t) {
        decode(layout_.tgt_z + t * m, 1, t, out + t * o);
        if (t + 1 == horizon) break;
        int16_t* next = layout_.tgt_z + (t + 1) * m;
        for (size_t j = 0; j < m; ++j) {
            const size_t column = f.decoder_column(j);
            next[j] = known[t * m + j];
            for (size_t i = 0; i < o; ++i)
                if (f.output_column(i) == column) next[j] = out[t * o + i];
        }
    }
    return Status::ok();
}

Status IntegerForecastSession::run_q(const int16_t* src, size_t src_rows, const int16_t* tgt, size_t tgt_rows,
                                     int16_t* out) {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    AX_RETURN_IF_ERROR(check_session_length(src_rows, max_window_, 0, "window of ", " rows"));
    AX_RETURN_IF_ERROR(check_session_length(tgt_rows, max_horizon_, 0, "decoder length ", ""));
    encode(src, src_rows);
    decode(tgt, tgt_rows, 0, out);
    return Status::ok();
}

// The input column of row position j: every column for input rows, the decoder's or the outputs' otherwise.
size_t IntegerForecastSession::column_of(Columns columns, size_t j) const {
    const Forecaster& f = model_->model();
    return columns == Columns::inputs ? j : columns == Columns::decoder ? f.decoder_column(j) : f.output_column(j);
}

size_t IntegerForecastSession::width_of(Columns columns) const {
    const ForecasterConfig& c = model_->config();
    return columns == Columns::inputs ? c.n_features : columns == Columns::decoder ? c.decoder_features : c.n_outputs;
}

// x (raw units, or model space) -> int16 at the plan's z scale: the only float steps, at the input. Each value
// takes the normalization of its input column.
int16_t IntegerForecastSession::to_z(float v, size_t column, bool normalize) const {
    const ForecasterConfig& c = model_->config();
    const Forecaster& f = model_->model();
    float z_scale = 0.0f;
    std::memcpy(&z_scale, &model_->z_scale_bits_, sizeof z_scale);
    const float* offset = c.normalizer.kind == format::Normalization::global ? f.input_mean() : layout_.reference;
    if (normalize) v = (v - offset[column]) / f.input_scale()[column];
    const float q = std::nearbyint(v / z_scale);
    return static_cast<int16_t>(q > 32767.0f ? 32767.0f : q < -32767.0f ? -32767.0f : q);
}

void IntegerForecastSession::to_model(const float* x, size_t rows, Columns columns, bool normalize, int16_t* z) const {
    const size_t n = width_of(columns);
    for (size_t i = 0; i < n; ++i) {
        const size_t column = column_of(columns, i);
        for (size_t r = 0; r < rows; ++r) z[r * n + i] = to_z(x[r * n + i], column, normalize);
    }
}

void IntegerForecastSession::from_model(const int16_t* z, size_t rows, bool normalize, float* y) const {
    const ForecasterConfig& c = model_->config();
    const Forecaster& f = model_->model();
    float z_scale = 0.0f;
    std::memcpy(&z_scale, &model_->z_scale_bits_, sizeof z_scale);
    const size_t n = c.n_outputs;
    const float* offset = c.normalizer.kind == format::Normalization::global ? f.input_mean() : layout_.reference;
    for (size_t i = 0; i < n; ++i) {
        const size_t column = f.output_column(i);
        for (size_t r = 0; r < rows; ++r) {
            float v = static_cast<float>(z[r * n + i]) * z_scale;
            if (normalize) v = v * f.input_scale()[column] + offset[column];
            y[r * n + i] = v;
        }
    }
}

Status IntegerForecastSession::forecast(const float* history, size_t rows, size_t horizon, float* out,
                                        const float* future, size_t future_rows) {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    AX_RETURN_IF_ERROR(check_session_length(rows, max_window_, 0, "window of ", " rows"));
    AX_RETURN_IF_ERROR(check_session_length(horizon, max_horizon_, 0, "horizon ", ""));
    const ForecasterConfig& c = model_->config();
    const Forecaster& f = model_->model();
    const size_t n = c.n_features, m = c.decoder_features;
    AX_RETURN_IF_ERROR(check_finite_input(history, rows * n, "history"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    AX_RETURN_IF_ERROR(f.check_future(future, future_rows, horizon));
    const size_t needed = f.future_rows(horizon);
    const bool normalize = c.normalizer.kind != format::Normalization::none;
    std::memcpy(layout_.reference, history + (rows - 1) * n, n * sizeof(float));
    to_model(history, rows, Columns::inputs, normalize, layout_.src_z);
    // The steps' known inputs as decoder rows in model space (the predicted columns are filled in later).
    for (size_t t = 0; t < needed; ++t)
        for (size_t j = 0; j < m; ++j) {
            if (!f.known_decoder_column(j)) {
                layout_.known_z[t * m + j] = 0;
                continue;
            }
            const size_t column = f.decoder_column(j);
            const float v = future[t * n + column];
            if (!std::isfinite(v))
                return Status::error(StatusCode::bad_input, "future row ")
                    .add(t)
                    .add(" holds NaN or Inf in the known input column ")
                    .add(column);
            layout_.known_z[t * m + j] = to_z(v, column, normalize);
        }
    // Without known inputs tgt_z's later rows are free until decoding: the predictions go there first, then out.
    int16_t* predictions = c.known_inputs != 0 ? layout_.predictions : layout_.tgt_z + m;
    AX_RETURN_IF_ERROR(forecast_q(layout_.src_z, rows, horizon, predictions, needed ? layout_.known_z : nullptr));
    from_model(predictions, horizon, normalize, out);
    return Status::ok();
}

Status IntegerForecastSession::run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows,
                                   InputSpace space, float* out) {
    if (model_ == nullptr) return Status::error(StatusCode::invalid_argument, "session not initialised");
    AX_RETURN_IF_ERROR(check_session_length(src_rows, max_window_, 0, "window of ", " rows"));
    AX_RETURN_IF_ERROR(check_session_length(tgt_rows, max_horizon_, 0, "decoder length ", ""));
    const ForecasterConfig& c = model_->config();
    const size_t n = c.n_features;
    AX_RETURN_IF_ERROR(check_finite_input(src, src_rows * n, "source input"));
    AX_RETURN_IF_ERROR(check_finite_input(tgt, tgt_rows * c.decoder_features, "target input"));
    if (out == nullptr) return Status::error(StatusCode::invalid_argument, "output buffer is null");
    const bool normalize = space == InputSpace::raw && c.normalizer.kind != format::Normalization::none;
    std::memcpy(layout_.reference, src + (src_rows - 1) * n, n * sizeof(float));
    to_model(src, src_rows, Columns::inputs, normalize, layout_.src_z);
    // The decoder inputs go to tgt_z's first rows, the outputs after them: tgt_rows <= max_horizon.
    int16_t* tgt_z = layout_.tgt_z;
    to_model(tgt, tgt_rows, Columns::decoder, normalize, tgt_z);
    encode(layout_.src_z, src_rows);
    // Row t's output (n_outputs <= decoder_features wide) overwrites decoder input t only after the tile holding
    // row t has read it.
    decode(tgt_z, tgt_rows, 0, tgt_z);
    from_model(tgt_z, tgt_rows, normalize, out);
    return Status::ok();
}

}  // namespace ax
