#include "models/forecaster/chronos_bolt.h"

#include <cmath>
#include <cstdint>
#include <cstring>

#include "runtime/instance_norm.h"
#include "runtime/patch_rows.h"

namespace ax {
namespace {

// Chronos-Bolt's InstanceNorm eps: a constant context's scale.
constexpr float kScaleEps = 1e-5f;

size_t max_of(size_t a, size_t b) { return a > b ? a : b; }

void sort_floats(float* v, size_t n) {  // insertion sort: 81 values per step
    for (size_t i = 1; i < n; ++i) {
        const float x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1] > x) {
            v[j] = v[j - 1];
            --j;
        }
        v[j] = x;
    }
}

// The flat entry points' memory: each buffer after the last, 16-byte aligned, nothing shared (base nullptr:
// counting only).
class FlatCarver {
public:
    explicit FlatCarver(uint8_t* base) : base_(base) {}
    template <typename T>
    T* alloc(const char*, uint64_t count, Phase, Phase) {
        used_ = (used_ + 15) / 16 * 16;
        T* at = base_ != nullptr ? reinterpret_cast<T*>(base_ + used_) : nullptr;
        used_ += count * sizeof(T);
        return at;
    }
    template <typename T>
    T* alloc_session(const char* name, uint64_t count) {
        return alloc<T>(name, count, Phase::encode, Phase::decode);
    }
    uint64_t bytes() const { return used_; }

private:
    uint8_t* base_;
    uint64_t used_ = 0;
};

}  // namespace

template <class Plan>
void ChronosBoltBuffers::allocate(Plan& plan, const ChronosBoltShape& s, size_t max_context, bool extension) {
    context = max_context;
    const size_t p = patch_count(context, s.patch_size);
    rows = p + (s.reg_token ? 1 : 0);
    const size_t d = s.stack.d_model, q = s.quantiles, h = s.prediction_length;
    // Each model call encodes (the context to encoder rows), then decodes (one row to quantiles): a call's
    // normalized context and patches are dead once its rows are embedded.
    normed = plan.template alloc<float>("normalizer: normalized context", context, Phase::encode, Phase::encode);
    patches = plan.template alloc<float>("input: patches and masks", uint64_t{p} * 2 * s.patch_size, Phase::encode,
                                         Phase::encode);
    valid = plan.template alloc<uint8_t>("input: observed patches", rows, Phase::encode, Phase::decode);
    x = plan.template alloc<float>("encoder rows / memory", uint64_t{rows} * d, Phase::encode, Phase::decode);
    hidden = plan.template alloc<float>("residual MLPs: hidden rows", uint64_t{kT5TileRows} * s.stack.d_ff,
                                        Phase::encode, Phase::decode);
    tmp = plan.template alloc<float>("residual MLPs: residual rows", max_of(kT5TileRows * d, q * h), Phase::encode,
                                     Phase::decode);
    y = plan.template alloc<float>("decoder row", d, Phase::decode, Phase::decode);
    t5 = plan.template alloc<float>("t5 layers: scratch", t5_scratch_floats(s.stack, rows, rows, 2 * s.patch_size),
                                    Phase::encode, Phase::decode);
    last = plan.template alloc_session<float>("quantile rows", uint64_t{q} * h);
    if (!extension) return;
    contexts = plan.template alloc_session<float>("quantile paths: contexts", uint64_t{q} * s.context_length);
    paths = plan.template alloc_session<float>("quantile paths: next call", uint64_t{q} * q * h);
    column = plan.template alloc_session<float>("quantile paths: one step sorted", uint64_t{q} * q);
}

template void ChronosBoltBuffers::allocate(MemoryPlan&, const ChronosBoltShape&, size_t, bool);

size_t chronos_bolt_forecast_floats(const ChronosBoltShape& s, size_t horizon) {
    FlatCarver count(nullptr);
    ChronosBoltBuffers b;
    b.allocate(count, s, s.context_length, horizon > s.prediction_length);
    constexpr uint64_t kAlign = 16 / sizeof(float);  // room to align the caller's floats to 16 bytes
    const uint64_t floats = (count.bytes() + sizeof(float) - 1) / sizeof(float) + kAlign;
    return floats > SIZE_MAX ? 0 : static_cast<size_t>(floats);
}

void chronos_bolt_forecast(const Kernels& k, const ChronosBoltWeights& w, const float* context, size_t length,
                           size_t horizon, float* out, float* work) {
    const ChronosBoltShape& s = w.shape;
    const uintptr_t at = reinterpret_cast<uintptr_t>(work);
    FlatCarver carve(reinterpret_cast<uint8_t*>(work) + ((16 - at % 16) % 16));
    ChronosBoltBuffers b;
    b.allocate(carve, s, s.context_length, horizon > s.prediction_length);
    chronos_bolt_forecast(k, w, b, context, length, horizon, out);
}

float sorted_quantile(const float* sorted, size_t n, float q) {
    const float rank = q * static_cast<float>(n - 1);
    const float lower = std::floor(rank);
    const size_t lo = static_cast<size_t>(lower);
    const size_t hi = lo + 1 < n && rank > lower ? lo + 1 : lo;
    const float weight = rank - lower;
    const float a = sorted[lo], b = sorted[hi];
    // torch.lerp's two forms, for its rounding.
    return weight < 0.5f ? a + weight * (b - a) : b - (b - a) * (1.0f - weight);
}

void chronos_bolt_forward(const Kernels& k, const ChronosBoltWeights& w, const ChronosBoltBuffers& b,
                          const float* context, size_t length, float* out) {
    const ChronosBoltShape& s = w.shape;
    const size_t cap = s.context_length < b.context ? s.context_length : b.context;
    if (length > cap) {
        context += length - cap;
        length = cap;
    }
    const size_t d = s.stack.d_model;
    const InstanceScale scale = instance_scale(context, length, kScaleEps);
    instance_normalize(context, length, scale, b.normed);
    const size_t p = patch_count(length, s.patch_size);
    patch_rows(b.normed, length, s.patch_size, b.patches, b.valid);
    // One scratch for the whole call, laid out for the most rows: its int8 rows serve the MLPs too.
    T5Scratch t5 = t5_scratch(s.stack, b.rows, b.rows, b.t5, 2 * s.patch_size);
    for (size_t r = 0; r < p; r += kT5TileRows)
        residual_mlp_forward(k, w.input, b.patches + r * 2 * s.patch_size, p - r < kT5TileRows ? p - r : kT5TileRows,
                             b.x + r * d, b.hidden, b.tmp, t5.quant);
    size_t n = p;
    if (s.reg_token) {
        std::memcpy(b.x + n * d, w.shared + s.reg_token_id * d, d * sizeof(float));
        b.valid[n++] = 1;
    }
    t5_encode(k, s.stack, w.encoder, s.encoder_layers, w.encoder_bias, w.encoder_norm, b.x, n, b.valid, t5);
    std::memcpy(b.y, w.shared + s.start_token * d, d * sizeof(float));
    t5_decode(k, s.stack, w.decoder, s.decoder_layers, w.decoder_bias, w.decoder_norm, b.y, 1, b.x, n, b.valid, t5);
    residual_mlp_forward(k, w.head, b.y, 1, out, b.hidden, b.tmp, t5.quant);
    instance_denormalize(out, s.quantiles * s.prediction_length, scale);
}

void chronos_bolt_forecast(const Kernels& k, const ChronosBoltWeights& w, const ChronosBoltBuffers& b,
                           const float* context, size_t length, size_t horizon, float* out) {
    const ChronosBoltShape& s = w.shape;
    const size_t q = s.quantiles, h = s.prediction_length, cap = s.context_length;
    if (length > cap) {
        context += length - cap;
        length = cap;
    }
    float* last = b.last;          // [q, h]: the last block's quantile rows
    float* contexts = b.contexts;  // [q, cap]
    float* paths = b.paths;        // [q * q, h]
    float* column = b.column;      // [q * q]
    chronos_bolt_forward(k, w, b, context, length, last);
    const size_t first = horizon < h ? horizon : h;
    for (size_t r = 0; r < q; ++r) std::memcpy(out + r * horizon, last + r * h, first * sizeof(float));
    if (horizon <= h) return;
    for (size_t r = 0; r < q; ++r) std::memcpy(contexts + r * cap, context, length * sizeof(float));
    size_t have = length, done = h;
    while (done < horizon) {
        // Each quantile row appended to its own context, cut to the last cap values.
        const size_t keep = have + h > cap ? cap - h : have;
        for (size_t r = 0; r < q; ++r) {
            float* c = contexts + r * cap;
            std::memmove(c, c + (have - keep), keep * sizeof(float));
            std::memcpy(c + keep, last + r * h, h * sizeof(float));
        }
        have = keep + h;
        for (size_t r = 0; r < q; ++r) chronos_bolt_forward(k, w, b, contexts + r * cap, have, paths + r * q * h);
        for (size_t t = 0; t < h; ++t) {
            for (size_t i = 0; i < q * q; ++i) column[i] = paths[i * h + t];
            sort_floats(column, q * q);
            for (size_t r = 0; r < q; ++r) last[r * h + t] = sorted_quantile(column, q * q, w.quantile_levels[r]);
        }
        const size_t steps = horizon - done < h ? horizon - done : h;
        for (size_t r = 0; r < q; ++r) std::memcpy(out + r * horizon + done, last + r * h, steps * sizeof(float));
        done += steps;
    }
}

}  // namespace ax
