#include "runtime/t5_layer.h"

#include <cstring>

#include "runtime/rms_norm.h"

namespace ax {

namespace {

size_t widest_input(const T5StackOptions& o, size_t max_in) {
    size_t w = o.d_model > o.d_ff ? o.d_model : o.d_ff;
    if (o.inner() > w) w = o.inner();
    return max_in > w ? max_in : w;
}

// The int8 rows of the quantization scratch, in whole floats.
size_t quant_floats(const T5StackOptions& o, size_t max_in) {
    return (kT5QuantRows * widest_input(o, max_in) + sizeof(float) - 1) / sizeof(float);
}

}  // namespace

size_t t5_scratch_floats(const T5StackOptions& o, size_t rows, size_t keys, size_t max_in) {
    const size_t inner = o.inner();
    const size_t span = relative_bias_span(0, rows, rows).span;
    return rows * o.d_model + rows * inner + 2 * keys * inner + rows * inner + kT5TileRows * (o.d_ff + o.d_model) +
           keys + o.nhead * span + kT5QuantRows + quant_floats(o, max_in) + (o.gated ? kT5TileRows * o.d_ff : 0);
}

T5Scratch t5_scratch(const T5StackOptions& o, size_t rows, size_t keys, float* floats, size_t max_in) {
    const size_t inner = o.inner();
    T5Scratch s;
    float* at = floats;
    const auto take = [&](size_t n) {
        float* p = at;
        at += n;
        return p;
    };
    s.h = take(rows * o.d_model);
    s.q = take(rows * inner);
    s.k = take(keys * inner);
    s.v = take(keys * inner);
    s.att = take(rows * inner);
    s.ff = take(kT5TileRows * o.d_ff);
    s.tile = take(kT5TileRows * o.d_model);
    s.scores = take(keys);
    s.bias = take(o.nhead * relative_bias_span(0, rows, rows).span);
    s.quant.scales = take(kT5QuantRows);
    s.quant.q = reinterpret_cast<int8_t*>(take(quant_floats(o, max_in)));
    s.quant.rows = kT5QuantRows;
    if (o.gated) s.gate = take(kT5TileRows * o.d_ff);
    return s;
}

void t5_attend(const Kernels& k, const float* q, const float* keys, const float* values, size_t n_q, size_t n_k,
               size_t nhead, size_t d_kv, const float* bias, RelativeBiasSpan span, size_t first_query, bool causal,
               const uint8_t* key_valid, float* scores, float* out) {
    const size_t inner = nhead * d_kv;
    for (size_t i = 0; i < n_q; ++i) {
        const size_t position = first_query + i;
        const size_t visible = causal ? (position + 1 < n_k ? position + 1 : n_k) : n_k;
        size_t valid = visible;
        if (key_valid != nullptr) {
            valid = 0;
            for (size_t j = 0; j < visible; ++j) valid += key_valid[j] ? 1 : 0;
        }
        for (size_t h = 0; h < nhead; ++h) {
            float* o = out + i * inner + h * d_kv;
            std::memset(o, 0, d_kv * sizeof(float));
            if (n_k == 0) continue;  // no key at all: a zero row
            if (valid == 0) {
                // Every score is float32's lowest after T5's mask: softmax spreads evenly over all keys.
                for (size_t j = 0; j < n_k; ++j) scores[j] = 1.0f / static_cast<float>(n_k);
                k.attention_values_f32(scores, values + h * d_kv, inner, n_k, d_kv, o);
                continue;
            }
            k.attention_scores_f32(q + i * inner + h * d_kv, keys + h * d_kv, inner, visible, d_kv, 1.0f, scores);
            if (bias != nullptr) {
                const float* b = bias + h * span.span + span.origin - position;
                for (size_t j = 0; j < visible; ++j) scores[j] += b[j];
            }
            if (valid == visible) {
                k.softmax_f32(scores, visible);
            } else {
                // Masked keys left out of the softmax (their exp is 0 after a finfo.min mask): valid scores packed
                // at the front, normalized, spread back with weight 0 on the masked keys.
                size_t n = 0;
                for (size_t j = 0; j < visible; ++j)
                    if (key_valid[j]) scores[n++] = scores[j];
                k.softmax_f32(scores, n);
                for (size_t j = visible; j-- > 0;) scores[j] = key_valid[j] ? scores[--n] : 0.0f;
            }
            k.attention_values_f32(scores, values + h * d_kv, inner, visible, d_kv, o);
        }
    }
}

namespace {

// x += o(attention(norm(x) or q_from, keys/values from kv_from)).
void attention_sublayer(const Kernels& k, const T5StackOptions& o, const T5AttentionWeights& w, const float* norm,
                        float* x, size_t rows, const float* kv_from, size_t n_k, const float* bias,
                        RelativeBiasSpan span, bool causal, const uint8_t* key_valid, T5Scratch& s) {
    rms_norm_rows(x, rows, o.d_model, norm, o.eps, s.h);
    linear_forward(k, w.q, s.h, rows, s.q, s.quant);
    const float* source = kv_from != nullptr ? kv_from : s.h;
    linear_forward(k, w.k, source, n_k, s.k, s.quant);
    linear_forward(k, w.v, source, n_k, s.v, s.quant);
    t5_attend(k, s.q, s.k, s.v, rows, n_k, o.nhead, o.d_kv, bias, span, 0, causal, key_valid, s.scores, s.att);
    linear_forward(k, w.o, s.att, rows, s.h, s.quant);
    k.add_f32(x, s.h, rows * o.d_model);
}

void feed_forward_sublayer(const Kernels& k, const T5StackOptions& o, const float* norm, const Linear& wi,
                           const Linear& wi_gate, const Linear& wo, float* x, size_t rows, T5Scratch& s) {
    rms_norm_rows(x, rows, o.d_model, norm, o.eps, s.h);
    // A tile of rows at a time: no [rows, d_ff] buffer (each row's result depends on that row alone).
    for (size_t r = 0; r < rows; r += kT5TileRows) {
        const size_t n = rows - r < kT5TileRows ? rows - r : kT5TileRows;
        linear_forward(k, wi, s.h + r * o.d_model, n, s.ff, s.quant, nullptr, &o.activation);
        if (o.gated) {
            linear_forward(k, wi_gate, s.h + r * o.d_model, n, s.gate, s.quant);
            for (size_t i = 0; i < n * o.d_ff; ++i) s.ff[i] *= s.gate[i];
        }
        linear_forward(k, wo, s.ff, n, s.tile, s.quant);
        k.add_f32(x + r * o.d_model, s.tile, n * o.d_model);
    }
}

}  // namespace

void t5_encoder_layer_forward(const Kernels& k, const T5StackOptions& o, const T5EncoderLayerWeights& w, float* x,
                              size_t rows, const uint8_t* valid, const float* bias, RelativeBiasSpan span,
                              T5Scratch& s) {
    attention_sublayer(k, o, w.self_attn, w.attention_norm, x, rows, nullptr, rows, bias, span, false, valid, s);
    feed_forward_sublayer(k, o, w.ff_norm, w.wi, w.wi_gate, w.wo, x, rows, s);
}

void t5_decoder_layer_forward(const Kernels& k, const T5StackOptions& o, const T5DecoderLayerWeights& w, float* y,
                              size_t rows, const float* bias, RelativeBiasSpan span, const float* memory,
                              size_t mem_rows, const uint8_t* memory_valid, T5Scratch& s) {
    attention_sublayer(k, o, w.self_attn, w.self_norm, y, rows, nullptr, rows, bias, span, true, nullptr, s);
    attention_sublayer(k, o, w.cross_attn, w.cross_norm, y, rows, memory, mem_rows, nullptr, {}, false, memory_valid,
                       s);
    feed_forward_sublayer(k, o, w.ff_norm, w.wi, w.wi_gate, w.wo, y, rows, s);
}

void t5_encode(const Kernels& k, const T5StackOptions& o, const T5EncoderLayerWeights* layers, size_t n_layers,
               const float* bias_table, const float* final_norm, float* x, size_t rows, const uint8_t* valid,
               T5Scratch& s) {
    const RelativeBiasSpan span = relative_bias_span(0, rows, rows);
    relative_bias_by_distance(bias_table, o.nhead, o.num_buckets, o.max_distance, true, 0, rows, rows, s.bias);
    for (size_t l = 0; l < n_layers; ++l) t5_encoder_layer_forward(k, o, layers[l], x, rows, valid, s.bias, span, s);
    rms_norm_rows(x, rows, o.d_model, final_norm, o.eps, x);
}

void t5_decode(const Kernels& k, const T5StackOptions& o, const T5DecoderLayerWeights* layers, size_t n_layers,
               const float* bias_table, const float* final_norm, float* y, size_t rows, const float* memory,
               size_t mem_rows, const uint8_t* memory_valid, T5Scratch& s) {
    const RelativeBiasSpan span = relative_bias_span(0, rows, rows);
    relative_bias_by_distance(bias_table, o.nhead, o.num_buckets, o.max_distance, false, 0, rows, rows, s.bias);
    for (size_t l = 0; l < n_layers; ++l)
        t5_decoder_layer_forward(k, o, layers[l], y, rows, s.bias, span, memory, mem_rows, memory_valid, s);
    rms_norm_rows(y, rows, o.d_model, final_norm, o.eps, y);
}

}  // namespace ax
