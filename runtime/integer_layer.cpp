#include "runtime/integer_layer.h"

namespace ax {

namespace {

size_t min_of(size_t a, size_t b) { return a < b ? a : b; }

// Rows [0, n_q) of queries at positions first.. against n_kv cached keys and values (rows kv_stride apart),
// head by head: exact scores, the integer softmax, the weighted values into out (rows of d).
struct AttendQ {
    const int8_t* q;
    const int8_t* k;
    const int8_t* v;
    size_t n_q;
    size_t n_kv;
    size_t first;
    bool causal;
};

void attend_q(const IntegerKernels& kern, const LayerShapeQ& s, const AttentionQ& w, const AttendQ& a, int32_t* scores,
              int8_t* out) {
    const size_t d = s.d_model;
    const size_t hd = d / s.nhead;
    for (size_t r = 0; r < a.n_q; ++r) {
        const size_t keys = a.causal ? min_of(a.first + r + 1, a.n_kv) : a.n_kv;
        for (size_t h = 0; h < s.nhead; ++h) {
            kern.attention_scores_q8(a.q + r * d + h * hd, a.k + h * hd, d, keys, hd, scores);
            kern.softmax_q15(scores, keys, w.to_exp);
            kern.attention_values_q15(scores, a.v + h * hd, d, keys, hd, w.values, out + r * d + h * hd);
        }
    }
}

// x[0, n) = LayerNorm(x + sublayer output in s.sub).
void residual_norm(const IntegerKernels& k, const LayerShapeQ& s, const AddQ& add, const LayerNormQ& norm, int8_t* x,
                   size_t n, LayerScratchQ& scratch) {
    k.add_q8_to_q16(x, add.a, scratch.sub, add.b, n * s.d_model, scratch.sum);
    layer_norm_q(k, norm, scratch.sum, n, s.d_model, x);
}

void feed_forward_q(const IntegerKernels& k, const LayerShapeQ& s, const FeedForwardQ& f, const AddQ& add,
                    const LayerNormQ& norm, int8_t* x, size_t n, LayerScratchQ& scratch) {
    linear_q(k, f.ff1, x, n, scratch.ff);
    if (f.table != nullptr) k.lookup_q8(scratch.ff, n * s.dim_feedforward, f.table, scratch.ff);
    linear_q(k, f.ff2, scratch.ff, n, scratch.sub);
    residual_norm(k, s, add, norm, x, n, scratch);
}

void decoder_tile_q(const IntegerKernels& k, const LayerShapeQ& s, const DecoderLayerQ& w, int8_t* x, size_t n,
                    size_t first, KvCacheQ& self_cache, const KvCacheQ& cross, size_t mem_rows, bool memory_causal,
                    LayerScratchQ& scratch) {
    const size_t d = s.d_model;
    linear_q(k, w.self.q, x, n, scratch.q);
    linear_q(k, w.self.k, x, n, self_cache.key + first * d);
    linear_q(k, w.self.v, x, n, self_cache.value + first * d);
    attend_q(k, s, w.self, AttendQ{scratch.q, self_cache.key, self_cache.value, n, first + n, first, true},
             scratch.scores, scratch.att);
    linear_q(k, w.self.out, scratch.att, n, scratch.sub);
    residual_norm(k, s, w.add1, w.norm1, x, n, scratch);

    linear_q(k, w.cross.q, x, n, scratch.q);
    attend_q(k, s, w.cross, AttendQ{scratch.q, cross.key, cross.value, n, mem_rows, first, memory_causal},
             scratch.scores, scratch.att);
    linear_q(k, w.cross.out, scratch.att, n, scratch.sub);
    residual_norm(k, s, w.add2, w.norm2, x, n, scratch);

    feed_forward_q(k, s, w.ff, w.add3, w.norm3, x, n, scratch);
}

}  // namespace

void linear_q(const IntegerKernels& k, const LinearQ& l, const int8_t* x, size_t rows, int8_t* y) {
    k.linear_q8(x, rows, l.in, l.weight, l.bias, l.m, l.out, l.zero, l.lo, l.hi, y);
}

void layer_norm_q(const IntegerKernels& k, const LayerNormQ& n, const int16_t* x, size_t rows, size_t d, int8_t* y) {
    for (size_t r = 0; r < rows; ++r) k.layer_norm_q16_to_q8(x + r * d, d, n.gamma, n.beta, n.shift, n.eps, y + r * d);
}

void LayerScratchQ::allocate(MemoryPlan& plan, const LayerShapeQ& s, size_t encoder_rows, size_t max_keys, Phase first,
                             Phase last) {
    const size_t d = s.d_model;
    const bool enc = encoder_rows > 0;
    rows = enc ? encoder_rows : kRowTileQ;
    q = plan.alloc<int8_t>(enc ? "integer encoder: queries" : "integer decoder tile: queries", uint64_t{rows} * d,
                           first, last);
    k = enc ? plan.alloc<int8_t>("integer encoder: keys", uint64_t{rows} * d, first, last) : nullptr;
    v = enc ? plan.alloc<int8_t>("integer encoder: values", uint64_t{rows} * d, first, last) : nullptr;
    att = plan.alloc<int8_t>(enc ? "integer encoder: attention out" : "integer decoder tile: attention out",
                             uint64_t{rows} * d, first, last);
    const size_t tile = enc ? min_of(encoder_rows, kRowTileQ) : kRowTileQ;
    sub = plan.alloc<int8_t>(enc ? "integer encoder tile: sublayer out" : "integer decoder tile: sublayer out",
                             uint64_t{tile} * d, first, last);
    sum = plan.alloc<int16_t>(enc ? "integer encoder tile: residual sums" : "integer decoder tile: residual sums",
                              uint64_t{tile} * d, first, last);
    ff = plan.alloc<int8_t>(enc ? "integer encoder tile: feed-forward" : "integer decoder tile: feed-forward",
                            uint64_t{tile} * s.dim_feedforward, first, last);
    scores = plan.alloc<int32_t>(enc ? "integer encoder scores, one row" : "integer decoder scores, one row",
                                 enc ? encoder_rows : max_keys, first, last);
}

void encoder_layer_q(const IntegerKernels& k, const LayerShapeQ& s, const EncoderLayerQ& w, int8_t* x, size_t rows,
                     bool causal, LayerScratchQ& scratch) {
    const size_t d = s.d_model;
    linear_q(k, w.attn.q, x, rows, scratch.q);
    linear_q(k, w.attn.k, x, rows, scratch.k);
    linear_q(k, w.attn.v, x, rows, scratch.v);
    attend_q(k, s, w.attn, AttendQ{scratch.q, scratch.k, scratch.v, rows, rows, 0, causal}, scratch.scores,
             scratch.att);
    for (size_t r = 0; r < rows; r += kRowTileQ) {
        const size_t n = min_of(kRowTileQ, rows - r);
        linear_q(k, w.attn.out, scratch.att + r * d, n, scratch.sub);
        residual_norm(k, s, w.add1, w.norm1, x + r * d, n, scratch);
        feed_forward_q(k, s, w.ff, w.add2, w.norm2, x + r * d, n, scratch);
    }
}

void decoder_layer_q_prepare(const IntegerKernels& k, const LayerShapeQ& s, const DecoderLayerQ& w,
                             const int8_t* memory, size_t mem_rows, KvCacheQ& cross) {
    (void)s;
    const size_t rows = min_of(mem_rows, cross.capacity);
    linear_q(k, w.cross.k, memory, rows, cross.key);
    linear_q(k, w.cross.v, memory, rows, cross.value);
}

void decoder_layer_q(const IntegerKernels& k, const LayerShapeQ& s, const DecoderLayerQ& w, int8_t* x, size_t rows,
                     size_t first, KvCacheQ& self_cache, const KvCacheQ& cross, size_t mem_rows, bool memory_causal,
                     LayerScratchQ& scratch) {
    for (size_t r = 0; r < rows; r += kRowTileQ)
        decoder_tile_q(k, s, w, x + r * s.d_model, min_of(kRowTileQ, rows - r), first + r, self_cache, cross, mem_rows,
                       memory_causal, scratch);
}

}  // namespace ax
