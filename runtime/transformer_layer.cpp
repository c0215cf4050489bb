#include "runtime/transformer_layer.h"


#include "runtime/attention.h"

namespace ax {

namespace {

size_t max_of(size_t a, size_t b) { return a > b ? a : b; }

void activate(const Kernels& k, format::Activation a, float* x, size_t n) {
    if (a == format::Activation::gelu)
        k.gelu_f32(x, n);
    else
        k.relu_f32(x, n);
}

// tmp = linear2(act(linear1(h)))
void feed_forward(const Kernels& k, const LayerOptions& o, const Linear& ff1, const Linear& ff2, const float* h,
                  size_t rows, LayerScratch& s) {
    linear_forward(k, ff1, h, rows, s.ff, s.quant);
    activate(k, o.activation, s.ff, rows * o.dim_feedforward);
    linear_forward(k, ff2, s.ff, rows, s.tmp, s.quant);
}

// Residual step shared by every sublayer. Post-norm: x = norm(x + f(x)). Pre-norm: x = x + f(norm(x)).
// `sublayer` reads its input from `in` and leaves its output in s.tmp.
template <typename Sublayer>
void residual(const Kernels& k, const LayerOptions& o, const LayerNormWeights& norm, float* x, size_t rows,
              LayerScratch& s, Sublayer sublayer) {
    const size_t n = rows * o.d_model;
    if (o.norm_first) {
        layer_norm_rows(k, norm, x, rows, o.d_model, o.eps, s.h);
        sublayer(s.h);
        k.add_f32(x, s.tmp, n);
    } else {
        sublayer(x);
        k.add_f32(x, s.tmp, n);
        layer_norm_rows(k, norm, x, rows, o.d_model, o.eps, x);
    }
}

}  // namespace

void LayerScratch::allocate(Arena& arena, const LayerOptions& o, size_t max_rows, size_t max_keys, size_t max_in) {
    const size_t d = o.d_model;
    h = arena.alloc<float>(max_rows * d);
    qkv = arena.alloc<float>(max_rows * 3 * d);
    att = arena.alloc<float>(max_rows * d);
    tmp = arena.alloc<float>(max_rows * d);
    ff = arena.alloc<float>(max_rows * o.dim_feedforward);
    scores = arena.alloc<float>(max_keys);
    quant.q = arena.alloc<int8_t>(max_rows * max_of(max_of(d, o.dim_feedforward), max_in));
    quant.scales = arena.alloc<float>(max_rows);
}

void KvCache::allocate(Arena& arena, size_t capacity, size_t d) {
    key = arena.alloc<float>(capacity * d);
    value = arena.alloc<float>(capacity * d);
}

void layer_norm_rows(const Kernels& k, const LayerNormWeights& w, const float* x, size_t rows, size_t d, float eps,
                     float* y) {
    for (size_t r = 0; r < rows; ++r) k.layer_norm_f32(x + r * d, d, w.gamma, w.beta, eps, y + r * d);
}

void encoder_layer_forward(const Kernels& k, const LayerOptions& o, const EncoderLayerWeights& w, float* x,
                           size_t rows, LayerScratch& s, const uint8_t* key_valid) {
    const size_t d = o.d_model;
    const size_t head_dim = d / o.nhead;
    residual(k, o, w.norm1, x, rows, s, [&](const float* in) {
        linear_forward(k, w.self_attn.in_proj, in, rows, s.qkv, s.quant);
        const AttentionInput a{s.qkv, 3 * d, s.qkv + d, s.qkv + 2 * d, 3 * d, rows, rows, 0, false, key_valid};
        attend(k, a, o.nhead, head_dim, s.scores, s.att);
        linear_forward(k, w.self_attn.out_proj, s.att, rows, s.tmp, s.quant);
    });
    residual(k, o, w.norm2, x, rows, s,
             [&](const float* in) { feed_forward(k, o, w.ff1, w.ff2, in, rows, s); });
}

void decoder_layer_prepare_memory(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w,
                                  const float* memory, size_t mem_rows, KvCache& cross, LayerScratch& s) {
    const size_t d = o.d_model;
    linear_forward(k, w.cross_attn.in_proj.slice(d, d), memory, mem_rows, cross.key, s.quant);
    linear_forward(k, w.cross_attn.in_proj.slice(2 * d, d), memory, mem_rows, cross.value, s.quant);
}

void decoder_layer_forward(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w, float* x,
                           size_t rows, size_t first_position, KvCache& self_cache, const KvCache& cross,
                           size_t mem_rows, bool memory_causal, LayerScratch& s, const uint8_t* self_valid,
                           const uint8_t* memory_valid) {
    const size_t d = o.d_model;
    const size_t head_dim = d / o.nhead;
    residual(k, o, w.norm1, x, rows, s, [&](const float* in) {
        const Linear& p = w.self_attn.in_proj;
        linear_forward(k, p.slice(0, d), in, rows, s.qkv, s.quant);
        linear_forward(k, p.slice(d, d), in, rows, self_cache.key + first_position * d, s.quant);
        linear_forward(k, p.slice(2 * d, d), in, rows, self_cache.value + first_position * d, s.quant);
        const AttentionInput a{s.qkv, d, self_cache.key, self_cache.value, d, rows, first_position + rows,
                               first_position, true, self_valid};
        attend(k, a, o.nhead, head_dim, s.scores, s.att);
        linear_forward(k, w.self_attn.out_proj, s.att, rows, s.tmp, s.quant);
    });
    residual(k, o, w.norm2, x, rows, s, [&](const float* in) {
        linear_forward(k, w.cross_attn.in_proj.slice(0, d), in, rows, s.qkv, s.quant);
        const AttentionInput a{s.qkv, d, cross.key, cross.value, d, rows, mem_rows, first_position, memory_causal,
                               memory_valid};
        attend(k, a, o.nhead, head_dim, s.scores, s.att);
        linear_forward(k, w.cross_attn.out_proj, s.att, rows, s.tmp, s.quant);
    });
    residual(k, o, w.norm3, x, rows, s,
             [&](const float* in) { feed_forward(k, o, w.ff1, w.ff2, in, rows, s); });
}

}  // namespace ax
