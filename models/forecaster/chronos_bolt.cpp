#include "models/forecaster/chronos_bolt.h"

#include <cmath>
#include <cstring>

#include "runtime/instance_norm.h"
#include "runtime/patch_rows.h"

namespace ax {
namespace {

// Chronos-Bolt's InstanceNorm eps: a constant context's scale.
constexpr float kScaleEps = 1e-5f;

size_t max_of(size_t a, size_t b) { return a > b ? a : b; }

// The flag bytes of n encoder rows, in whole floats.
size_t flag_floats(size_t n) { return (n + sizeof(float) - 1) / sizeof(float); }

struct ForwardBuffers {
    float* normed;   // [context_length]
    float* rows;     // [patches, 2 * patch_size]
    float* x;        // [encoder_rows, d_model]
    float* hidden;   // [kT5TileRows, d_ff]: the MLPs' hidden rows, a tile at a time
    float* tmp;      // [max(kT5TileRows * d_model, quantiles * prediction_length)]
    float* y;        // [d_model]
    uint8_t* valid;  // [encoder_rows]
    float* t5;       // t5_scratch_floats
};

ForwardBuffers carve(const ChronosBoltShape& s, float* work) {
    const size_t p = s.patches(), n = s.encoder_rows(), d = s.stack.d_model;
    ForwardBuffers b;
    float* at = work;
    const auto take = [&](size_t floats) {
        float* r = at;
        at += floats;
        return r;
    };
    b.normed = take(s.context_length);
    b.rows = take(p * 2 * s.patch_size);
    b.x = take(n * d);
    b.hidden = take(kT5TileRows * s.stack.d_ff);
    b.tmp = take(max_of(kT5TileRows * d, s.quantiles * s.prediction_length));
    b.y = take(d);
    b.valid = reinterpret_cast<uint8_t*>(take(flag_floats(n)));
    b.t5 = take(t5_scratch_floats(s.stack, n, n, 2 * s.patch_size));
    return b;
}

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

}  // namespace

size_t chronos_bolt_forward_floats(const ChronosBoltShape& s) {
    const size_t p = s.patches(), n = s.encoder_rows(), d = s.stack.d_model;
    return s.context_length + p * 2 * s.patch_size + n * d + kT5TileRows * s.stack.d_ff +
           max_of(kT5TileRows * d, s.quantiles * s.prediction_length) + d + flag_floats(n) +
           t5_scratch_floats(s.stack, n, n, 2 * s.patch_size);
}

size_t chronos_bolt_forecast_floats(const ChronosBoltShape& s, size_t horizon) {
    const size_t q = s.quantiles, h = s.prediction_length;
    // The last block's quantile rows; past one block also each quantile's context, the paths of the next block
    // and one sorted column.
    size_t n = chronos_bolt_forward_floats(s) + q * h;
    if (horizon > h) n += q * s.context_length + q * q * h + q * q;
    return n;
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

void chronos_bolt_forward(const Kernels& k, const ChronosBoltWeights& w, const float* context, size_t length,
                          float* out, float* work) {
    const ChronosBoltShape& s = w.shape;
    if (length > s.context_length) {
        context += length - s.context_length;
        length = s.context_length;
    }
    const size_t d = s.stack.d_model;
    ForwardBuffers b = carve(s, work);
    const InstanceScale scale = instance_scale(context, length, kScaleEps);
    instance_normalize(context, length, scale, b.normed);
    const size_t p = patch_count(length, s.patch_size);
    patch_rows(b.normed, length, s.patch_size, b.rows, b.valid);
    // One scratch for the whole call, laid out for the most rows: its int8 rows serve the MLPs too.
    T5Scratch t5 = t5_scratch(s.stack, s.encoder_rows(), s.encoder_rows(), b.t5, 2 * s.patch_size);
    for (size_t r = 0; r < p; r += kT5TileRows)
        residual_mlp_forward(k, w.input, b.rows + r * 2 * s.patch_size, p - r < kT5TileRows ? p - r : kT5TileRows,
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

void chronos_bolt_forecast(const Kernels& k, const ChronosBoltWeights& w, const float* context, size_t length,
                           size_t horizon, float* out, float* work) {
    const ChronosBoltShape& s = w.shape;
    const size_t q = s.quantiles, h = s.prediction_length, cap = s.context_length;
    if (length > cap) {
        context += length - cap;
        length = cap;
    }
    float* last = work + chronos_bolt_forward_floats(s);  // [q, h]: the last block's quantile rows
    float* contexts = last + q * h;                       // [q, cap]
    float* paths = contexts + q * cap;                    // [q * q, h]
    float* column = paths + q * q * h;                    // [q * q]
    chronos_bolt_forward(k, w, context, length, last, work);
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
        for (size_t r = 0; r < q; ++r) chronos_bolt_forward(k, w, contexts + r * cap, have, paths + r * q * h, work);
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
