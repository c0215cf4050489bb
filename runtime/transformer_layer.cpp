#include "runtime/transformer_layer.h"

#include <atomic>
#include <new>

#include "runtime/attention.h"
#include "runtime/activation.h"
#include "runtime/rows_split.h"

namespace ax {

namespace {

size_t max_of(size_t a, size_t b) { return a > b ? a : b; }
size_t min_of(size_t a, size_t b) { return a < b ? a : b; }

// The most int8 weights (bytes) of a layer's products for which workers each take their own rows through all
// of them (an encoder layer's output projection and feed-forward; a decoder layer's every product): each worker
// reads all of them, so only where they fit a core's L2 several times over (d_model 256 with 1024 feed-forward:
// 1.4-1.5x on two threads; at d_model 512 with 2048, 2.4 MB, the split by columns was faster).
constexpr uint64_t kRowsSplitMaxWeights = uint64_t{1} << 20;

// Rows of a layer's own norm, optionally after the residual add: ranges of rows for the workers.
struct NormJob {
    const Kernels* k;
    const LayerOptions* o;
    const LayerNormWeights* norm;
    float* x;
    const float* add;  // x += add first, or null
    const float* in;   // the norm's input (x, or another buffer when add is null)
    float* y;          // the norm's output, or null: no norm
};

void norm_range(void* arg, size_t first, size_t count) {
    const NormJob& j = *static_cast<const NormJob*>(arg);
    const size_t d = j.o->d_model;
    if (j.add != nullptr) j.k->add_f32(j.x + first * d, j.add + first * d, count * d);
    if (j.y != nullptr) layer_own_norm(*j.k, *j.o, *j.norm, j.in + first * d, count, j.y + first * d);
}

// The input of a sublayer for rows x[0, n): x itself (post-norm) or its LayerNorm in s.h (pre-norm).
const float* sublayer_input(const Kernels& k, const LayerOptions& o, const LayerNormWeights& norm, const float* x,
                            size_t n, LayerScratch& s) {
    if (!o.norm_first) return x;
    NormJob job{&k, &o, &norm, nullptr, nullptr, x, s.h};
    parallel_ranges(&s.split.parallel, n, 1, 2 * o.d_model, norm_range, &job);
    return s.h;
}

// The residual step once a sublayer's output for rows x[0, n) is in s.tmp. Post-norm: x = norm(x + f(x));
// pre-norm: x = x + f(norm(x)). Each range of rows is added and normalized by one task.
void add_residual(const Kernels& k, const LayerOptions& o, const LayerNormWeights& norm, float* x, size_t n,
                  LayerScratch& s) {
    NormJob job{&k, &o, &norm, x, s.tmp, x, o.norm_first ? nullptr : x};
    parallel_ranges(&s.split.parallel, n, 1, 2 * o.d_model, norm_range, &job);
}

struct ActivateJob {
    const Kernels* k;
    format::Activation a;
    float* x;
    size_t width = 0;  // with q: values per row
    QuantScratch q{};  // quantize the activated rows here too, or not (q.q null)
};

// Rows [first, first + count): activated, then quantized while they are in this core's cache.
void activate_quantize_range(void* arg, size_t first, size_t count) {
    const ActivateJob& j = *static_cast<const ActivateJob*>(arg);
    activate(*j.k, j.a, j.x + first * j.width, count * j.width);
    j.k->quantize_rows_i8(j.x + first * j.width, count, j.width, j.q.q + first * j.width, j.q.scales + first);
}

// x[0, n) through one feed-forward sublayer with its residual step: s.tmp = linear2(act(linear1(in))).
void feed_forward_tile(const Kernels& k, const LayerOptions& o, const Linear& ff1, const Linear& ff2,
                       const LayerNormWeights& norm, float* x, size_t n, LayerScratch& s) {
    const float* in = sublayer_input(k, o, norm, x, n, s);
    const size_t ff = o.dim_feedforward;
    // An int8 second product reads the activated rows quantized: both in one pass over the rows. Else the
    // first product's tasks activate their own columns.
    if (format::dtype_takes_int8_rows(ff2.dtype) && n <= s.quant.rows) {
        linear_forward(k, ff1, in, n, s.ff, s.quant, &s.split);
        ActivateJob job{&k, o.activation, s.ff, ff, s.quant};
        parallel_ranges(&s.split.parallel, n, 1, ff, activate_quantize_range, &job);
        linear_forward_i8(k, ff2, s.quant.q, s.quant.scales, n, s.tmp, &s.split);
    } else {
        linear_forward(k, ff1, in, n, s.ff, s.quant, &s.split, &o.activation);
        linear_forward(k, ff2, s.ff, n, s.tmp, s.quant, &s.split);
    }
    add_residual(k, o, norm, x, n, s);
}

// A sublayer's input rows, as floats or (an int8 layer's, when several products read them) already quantized.
struct RowsIn {
    const float* x = nullptr;
    const int8_t* q = nullptr;  // with scales: quantize_rows_i8's output for x
    const float* scales = nullptr;
};

// Rows in[0, n) quantized once into s.quant for the int8 products that all read them (n <= s.tile, width d):
// a row's quantization depends on that row only, so no bit changes. Float layers keep the float rows.
RowsIn shared_input(const Kernels& k, const Linear& l, const float* x, size_t n, size_t d, LayerScratch& s) {
    RowsIn in;
    in.x = x;
    if (!format::dtype_takes_int8_rows(l.dtype)) return in;
    quantize_rows_split(k, x, n, d, s.quant.q, s.quant.scales, &s.split.parallel);
    in.q = s.quant.q;
    in.scales = s.quant.scales;
    return in;
}

void project(const Kernels& k, const Linear& l, const RowsIn& in, size_t n, float* y, const QuantScratch& quant,
             const LinearSplit* split) {
    if (in.q != nullptr)
        linear_forward_i8(k, l, in.q, in.scales, n, y, split);
    else
        linear_forward(k, l, in.x, n, y, quant, split);
}

void project(const Kernels& k, const Linear& l, const RowsIn& in, size_t n, float* y, LayerScratch& s) {
    project(k, l, in, n, y, s.quant, &s.split);
}

// Keys or values of rows [0, n) (layer `p`'s output rows [first, first + d)) into cache rows of d values [at, at + n):
// straight into a float cache, or through s.tmp (free until the sublayer's output projection) and per-row
// quantization into an int8 one.
void project_into_cache(const Kernels& k, const Linear& p, size_t first, size_t d, const RowsIn& in, size_t n,
                        void* cache, float* scales, CacheType type, size_t at, LayerScratch& s) {
    if (type == CacheType::f32) {
        project(k, p.slice(first, d), in, n, static_cast<float*>(cache) + at * d, s);
        return;
    }
    project(k, p.slice(first, d), in, n, s.tmp, s);
    quantize_rows_split(k, s.tmp, n, d, static_cast<int8_t*>(cache) + at * d, scales + at, &s.split.parallel);
}

// Queries [n_q, d] against a cache of keys [n_kv, d] and values [n_kv, o.value_width()].
AttentionInput cache_attention(const LayerOptions& o, const float* q, const KvCache& c, size_t n_q, size_t n_kv,
                               size_t first, bool causal, const uint8_t* valid) {
    const size_t d = o.d_model;
    AttentionInput a{q,   d,    {nullptr}, {nullptr}, d,    o.value_head_dim(), o.value_width(),
                     n_q, n_kv, first,     causal,    valid};
    if (c.type == CacheType::i8) {
        a.k_i8 = c.key_i8();
        a.v_i8 = c.value_i8();
        a.k_scale = c.key_scale;
        a.v_scale = c.value_scale;
    } else {
        a.k = c.key_f32();
        a.v = c.value_f32();
    }
    return a;
}

// Decoder rows [first, first + n) of x (n <= s.tile): the self-attention's queries into s.q, its keys and values
// into the cache.
void decoder_self_projections(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w, float* x, size_t n,
                              size_t first, KvCache& self_cache, LayerScratch& s) {
    const size_t d = o.d_model;
    const Linear& p = w.self_attn.in_proj;
    const RowsIn in = shared_input(k, p, sublayer_input(k, o, w.norm1, x, n, s), n, d, s);
    project(k, p.slice(0, d), in, n, s.q, s);
    project_into_cache(k, p, d, d, in, n, self_cache.key, self_cache.key_scale, self_cache.type, first, s);
    project_into_cache(k, p, 2 * d, p.out - 2 * d, in, n, self_cache.value, self_cache.value_scale, self_cache.type,
                       first, s);
}

// The rest of the layer for those rows once the queries are in s.q and the keys and values of every row up to
// self_keys in the cache: self-attention (over self_keys keys, causal), cross-attention, feed-forward.
void decoder_attend_onwards(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w, float* x, size_t n,
                            size_t first, size_t self_keys, const KvCache& self_cache, const KvCache& cross,
                            size_t mem_rows, bool memory_causal, LayerScratch& s, const uint8_t* self_valid,
                            const uint8_t* memory_valid, bool self_causal) {
    const size_t d = o.d_model;
    const size_t head_dim = o.head_dim();
    {
        const AttentionInput a = cache_attention(o, s.q, self_cache, n, self_keys, first, self_causal, self_valid);
        attend(k, a, o.nhead, head_dim, s.scores, s.att, 0, &s.split.parallel);
        linear_forward(k, w.self_attn.out_proj, s.att, n, s.tmp, s.quant, &s.split);
        add_residual(k, o, w.norm1, x, n, s);
    }
    {
        const float* in = sublayer_input(k, o, w.norm2, x, n, s);
        linear_forward(k, w.cross_attn.in_proj.slice(0, d), in, n, s.q, s.quant, &s.split);
        const AttentionInput a = cache_attention(o, s.q, cross, n, mem_rows, first, memory_causal, memory_valid);
        attend(k, a, o.nhead, head_dim, s.scores, s.att, 0, &s.split.parallel);
        linear_forward(k, w.cross_attn.out_proj, s.att, n, s.tmp, s.quant, &s.split);
        add_residual(k, o, w.norm2, x, n, s);
    }
    feed_forward_tile(k, o, w.ff1, w.ff2, w.norm3, x, n, s);
}

// Decoder rows [first, first + n) of x (n <= s.tile): the whole layer, sublayer by sublayer.
void decoder_tile_forward(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w, float* x, size_t n,
                          size_t first, KvCache& self_cache, const KvCache& cross, size_t mem_rows, bool memory_causal,
                          LayerScratch& s, const uint8_t* self_valid, const uint8_t* memory_valid, bool self_causal) {
    decoder_self_projections(k, o, w, x, n, first, self_cache, s);
    decoder_attend_onwards(k, o, w, x, n, first, first + n, self_cache, cross, mem_rows, memory_causal, s, self_valid,
                           memory_valid, self_causal);
}

// A decoder tile's rows over the workers, each worker its own range through the whole layer: the arguments of
// decoder_layer_forward.
struct DecoderRows {
    const Kernels* k;
    const LayerOptions* o;
    const DecoderLayerWeights* w;
    float* x;  // the tile's first row
    size_t n, first;
    KvCache* self_cache;
    const KvCache* cross;
    size_t mem_rows;
    bool memory_causal;
    const LayerScratch* s;
    const uint8_t* self_valid;
    const uint8_t* memory_valid;
    size_t tasks;
    bool self_causal;
};

// Task t's rows of the tile: [r0, r1).
void decoder_rows_range(const DecoderRows& j, size_t t, size_t* r0, size_t* r1) {
    *r0 = t * j.n / j.tasks;
    *r1 = (t + 1) * j.n / j.tasks;
}

// First hand-off: every worker's queries, keys and values (the later rows' self-attention reads the earlier
// rows' keys and values).
void decoder_rows_project_task(void* arg, int index) {
    const DecoderRows& j = *static_cast<const DecoderRows*>(arg);
    size_t r0 = 0, r1 = 0;
    decoder_rows_range(j, static_cast<size_t>(index), &r0, &r1);
    LayerScratch& s = j.s->decoder_rows(static_cast<size_t>(index), r0, r1 - r0);
    decoder_self_projections(*j.k, *j.o, *j.w, j.x + r0 * j.o->d_model, r1 - r0, j.first + r0, *j.self_cache, s);
}

// Second: the rest of the layer, over the keys of every row of the tile (each row sees its own and earlier
// ones): the same key count as one thread's call, so the attention kernel takes the same path.
void decoder_rows_rest_task(void* arg, int index) {
    const DecoderRows& j = *static_cast<const DecoderRows*>(arg);
    size_t r0 = 0, r1 = 0;
    decoder_rows_range(j, static_cast<size_t>(index), &r0, &r1);
    LayerScratch& s = j.s->decoder_rows(static_cast<size_t>(index), r0, r1 - r0);
    decoder_attend_onwards(*j.k, *j.o, *j.w, j.x + r0 * j.o->d_model, r1 - r0, j.first + r0, j.first + j.n,
                           *j.self_cache, *j.cross, j.mem_rows, j.memory_causal, s, j.self_valid, j.memory_valid,
                           j.self_causal);
}

// Workers that take a decoder tile of n rows by rows, or 1: threaded, every product int8 (whose rows do not
// depend on the rows beside them: runtime/kernels.h), each worker at least kAttentionRowGroup rows
// (the attention kernel takes every range whenever it takes the whole: runtime/kernels.h), weights small enough
// that every worker reading all of them costs less than the hand-offs it saves (kRowsSplitMaxWeights: at
// d_model 512 with 2048, 3.5 MB a layer, the split by columns was faster), and enough work.
size_t decoder_rows_tasks(const LayerOptions& o, const DecoderLayerWeights& w, size_t n, const LayerScratch& s) {
    if (!s.split.parallel.threaded() || s.workers < 2) return 1;
    const Linear* products[] = {
        &w.self_attn.in_proj, &w.self_attn.out_proj, &w.cross_attn.in_proj, &w.cross_attn.out_proj, &w.ff1, &w.ff2};
    for (const Linear* l : products)
        if (!format::dtype_takes_int8_rows(l->dtype)) return 1;
    const size_t tasks = min_of(s.workers, n / kAttentionRowGroup);
    if (tasks < 2) return 1;
    const uint64_t d = o.d_model;
    // A step's weights: the self-attention's in_proj (2d + values rows) and out_proj (values columns), the
    // cross-attention's query rows (d) and out_proj (values columns), the feed-forward pair.
    const uint64_t weights = d * (3 * d + 3 * uint64_t{o.value_width()} + 2 * uint64_t{o.dim_feedforward});
    if (weights > kRowsSplitMaxWeights) return 1;
    const uint64_t macs = uint64_t{n} * weights;
    const uint64_t min_task =
        s.split.parallel.min_task_macs > 0 ? s.split.parallel.min_task_macs : 8 * LinearSplit::kMinTaskMacs;
    return macs / tasks >= min_task ? tasks : 1;
}

}  // namespace

void LayerScratch::allocate(MemoryPlan& plan, const LayerOptions& o, size_t encoder_rows, size_t max_keys,
                            size_t max_in, Phase first, Phase last, size_t min_tile) {
    const size_t d = o.d_model;
    const bool enc = encoder_rows > 0;
    // An encoder never has more rows than encoder_rows to tile.
    const size_t tile =
        max_of(enc && encoder_rows < row_tile(o) ? max_of(encoder_rows, kRowTile) : row_tile(o), min_tile);
    this->tile = static_cast<uint32_t>(tile);
    h = o.norm_first
            ? plan.alloc<float>(enc ? "encoder tile: normed rows" : "decoder tile: normed rows", tile * d, first, last)
            : nullptr;
    q = plan.alloc<float>(enc ? "encoder tile: queries" : "decoder tile: queries", tile * d, first, last);
    const size_t values = o.value_width();
    // The decoder's values pass through tmp on their way into an int8 cache: rows of max(d, values) there.
    const uint64_t tmp_floats = uint64_t{tile} * (enc ? d : max_of(d, values));
    const uint64_t ff_floats = uint64_t{tile} * o.dim_feedforward;
    if (enc && o.int8_encoder_attention) {
        // The encoder's int8 rows of all heads share the bytes of the sublayer-output and feed-forward tiles:
        // the head loop reads them and uses neither tile, the output projection and feed-forward run after it.
        // One buffer, the sublayer tile first (rounded to whole 64-byte lines so that the feed-forward tile
        // starts on one), which grows only where the rows do not fit.
        const uint64_t tmp_span = (tmp_floats + 15) / 16 * 16;
        const uint64_t xq_floats = (uint64_t{encoder_rows} * d + sizeof(float) - 1) / sizeof(float);
        const uint64_t rows_floats = xq_floats + encoder_rows;
        float* both =
            plan.alloc<float>("encoder tile: sublayer out, feed-forward; int8 rows, all heads",
                              tmp_span + ff_floats > rows_floats ? tmp_span + ff_floats : rows_floats, first, last);
        tmp = both;
        ff = both != nullptr ? both + tmp_span : nullptr;
        x_q = reinterpret_cast<int8_t*>(both);
        x_q_scales = both != nullptr ? both + xq_floats : nullptr;
    } else {
        tmp = plan.alloc<float>(enc ? "encoder tile: sublayer out" : "decoder tile: sublayer out", tmp_floats, first,
                                last);
        ff = plan.alloc<float>(enc ? "encoder tile: feed-forward" : "decoder tile: feed-forward", ff_floats, first,
                               last);
        x_q = nullptr;
        x_q_scales = nullptr;
    }
    if (enc) {
        att = plan.alloc<float>("encoder attention output", uint64_t{encoder_rows} * values, first, last);
        head_k = plan.alloc<float>("encoder keys, one head", uint64_t{encoder_rows} * o.head_dim(), first, last);
        head_v =
            plan.alloc<float>("encoder values, one head", uint64_t{encoder_rows} * o.value_head_dim(), first, last);
        scores = plan.alloc<float>("encoder scores, one row", encoder_rows, first, last);
        res_scores = o.residual_attention
                         ? plan.alloc<float>("encoder residual scores, every head",
                                             uint64_t{o.nhead} * encoder_rows * encoder_rows, first, last)
                         : nullptr;
    } else {
        att = plan.alloc<float>("decoder tile: attention out", tile * values, first, last);
        head_k = head_v = nullptr;
        scores =
            plan.alloc<float>(plan.workers() > 1 ? "decoder scores, one row per worker" : "decoder scores, one row",
                              uint64_t{plan.workers()} * max_keys, first, last);
        res_scores = nullptr;
    }
    this->max_keys = static_cast<uint32_t>(max_keys);
    worker_views = !enc && plan.workers() > 1
                       ? plan.alloc_records<LayerScratch>("decoder: per-worker views of the tile", plan.workers())
                       : nullptr;
    this->encoder_rows = static_cast<uint32_t>(encoder_rows);
    d_model = static_cast<uint32_t>(d);
    head_dim = static_cast<uint32_t>(o.head_dim());
    value_dim = static_cast<uint32_t>(o.value_head_dim());
    workers = static_cast<uint32_t>(plan.workers());
    dim_ff = static_cast<uint32_t>(o.dim_feedforward);
    const size_t per_worker = max_of(head_floats(), rows_floats());
    worker_heads = enc && workers > 1 ? plan.alloc<float>("encoder: per-worker heads, then rows",
                                                          uint64_t{workers} * per_worker, first, last)
                                      : nullptr;
    quant.q = plan.alloc<int8_t>(enc ? "encoder tile: int8 inputs" : "decoder tile: int8 inputs",
                                 tile * max_of(widest_row(), max_in), first, last);
    quant.scales =
        plan.alloc<float>(enc ? "encoder tile: input scales" : "decoder tile: input scales", tile, first, last);
    quant.rows = tile;
    split.allocate(plan);
}

size_t LayerScratch::values() const { return head_dim == 0 ? 0 : size_t{d_model} / head_dim * value_dim; }

size_t LayerScratch::widest_row() const { return max_of(max_of(d_model, dim_ff), values()); }

// Per worker: h and q [tile, d], keys [encoder_rows, head_dim] and values [encoder_rows, value_dim], scores
// [encoder_rows], input scales [tile], then the int8 inputs [tile, d] in the floats after.
size_t LayerScratch::head_floats() const {
    const size_t d = d_model;
    return 2 * tile * d + size_t{encoder_rows} * (head_dim + value_dim) + encoder_rows + tile + (tile * d + 3) / 4;
}

bool LayerScratch::rows_split_shape() const {
    return uint64_t{d_model} * (values() + 2 * uint64_t{dim_ff}) <= kRowsSplitMaxWeights;
}

size_t LayerScratch::worker_rows() const {
    const size_t share = (size_t{encoder_rows} + workers - 1) / workers;
    return share < tile ? share : tile;
}

// Per worker: h and tmp [rows, d], ff [rows, dim_ff], input scales [rows], then the int8 inputs
// [rows, widest_row()] in the floats after.
size_t LayerScratch::rows_floats() const {
    if (!rows_split_shape()) return 0;
    const size_t n = worker_rows(), d = d_model, ff = dim_ff;
    return 2 * n * d + n * ff + n + (n * widest_row() + 3) / 4;
}

LayerScratch LayerScratch::rows_scratch(size_t worker) const {
    LayerScratch w = *this;
    const size_t n = worker_rows(), d = d_model;
    float* base = worker_heads + worker * max_of(head_floats(), rows_floats());
    w.h = base;
    w.tmp = w.h + n * d;
    w.ff = w.tmp + n * d;
    w.quant.scales = w.ff + n * dim_ff;
    w.quant.q = reinterpret_cast<int8_t*>(w.quant.scales + n);
    w.quant.rows = n;
    w.tile = n;
    w.split.parallel = ParallelFor{};
    return w;
}

LayerScratch& LayerScratch::decoder_rows(size_t worker, size_t first, size_t n) const {
    LayerScratch& w = *new (&worker_views[worker]) LayerScratch(*this);  // placement into the arena
    const size_t d = d_model, width = widest_row(), v = values();
    w.h = h != nullptr ? h + first * d : nullptr;
    w.q = q + first * d;
    w.tmp = tmp + first * max_of(d, v);
    w.att = att + first * v;
    w.ff = ff + first * dim_ff;
    w.scores = scores + worker * max_keys;
    w.quant.q = quant.q + first * width;
    w.quant.scales = quant.scales + first;
    w.quant.rows = n;
    w.tile = n;
    w.split.parallel = ParallelFor{};
    return w;
}

LayerScratch::Head LayerScratch::head(size_t worker) const {
    if (worker_heads == nullptr) return Head{h, q, head_k, head_v, scores, quant};
    float* base = worker_heads + worker * max_of(head_floats(), rows_floats());
    Head w{};
    w.h = base;
    w.q = w.h + tile * d_model;
    w.k = w.q + tile * d_model;
    w.v = w.k + size_t{encoder_rows} * head_dim;
    w.scores = w.v + size_t{encoder_rows} * value_dim;
    w.quant.scales = w.scores + encoder_rows;
    w.quant.q = reinterpret_cast<int8_t*>(w.quant.scales + tile);
    w.quant.rows = tile;
    return w;
}

size_t row_tile(const LayerOptions& o) {
    return o.d_model * o.dim_feedforward >= kWideTileWeights ? kWideRowTile : kRowTile;
}

size_t KvCache::row_bytes(CacheType type, size_t d, size_t values) {
    // Keys and values; int8 rows carry one float scale each.
    return type == CacheType::i8 ? d + values + 2 * sizeof(float) : (d + values) * sizeof(float);
}

void layer_own_norm(const Kernels& k, const LayerOptions& o, const LayerNormWeights& w, const float* x, size_t rows,
                    float* y) {
    if (!o.batch_norm) {
        layer_norm_rows(k, w, x, rows, o.d_model, o.eps, y);
        return;
    }
    const size_t d = o.d_model;
    for (size_t r = 0; r < rows; ++r)
        for (size_t j = 0; j < d; ++j) y[r * d + j] = x[r * d + j] * w.gamma[j] + w.beta[j];
}

void layer_norm_rows(const Kernels& k, const LayerNormWeights& w, const float* x, size_t rows, size_t d, float eps,
                     float* y) {
    for (size_t r = 0; r < rows; ++r) k.layer_norm_f32(x + r * d, d, w.gamma, w.beta, eps, y + r * d);
}

namespace {

// The encoder's self-attention, one head at a time: the arguments of encoder_layer_forward's head loop.
struct EncoderHeads {
    const Kernels* k;
    const LayerOptions* o;
    const Linear* p;  // in_proj
    const LayerNormWeights* norm;
    const float* x;
    size_t rows;
    const int8_t* xq;  // every row quantized once, or null
    const float* xscales;
    LayerScratch* s;
    const uint8_t* key_valid;
    bool causal;
    std::atomic<uint32_t> next{0};  // the next head no task has taken
};

// Head h into its columns of s.att, on buffers b: its keys and values for every row, then its queries a tile
// at a time, each query row's scores over all keys. split: the products' and attention's workers, or null.
void encoder_head(const EncoderHeads& j, size_t h, const LayerScratch::Head& b, const LinearSplit* split) {
    const Kernels& k = *j.k;
    const LayerOptions& o = *j.o;
    const LayerScratch& s = *j.s;
    const size_t d = o.d_model;
    const size_t head_dim = d / o.nhead;
    const size_t rows = j.rows;
    // Rows [r, r + n) of the projection's input: quantized once, x itself (post-norm) or a tile normalized
    // into b.h (pre-norm).
    const auto input = [&](size_t r, size_t n) {
        RowsIn in;
        if (j.xq != nullptr) {
            in.q = j.xq + r * d;
            in.scales = j.xscales + r;
        } else if (o.norm_first) {
            layer_own_norm(k, o, *j.norm, j.x + r * d, n, b.h);
            in.x = b.h;
        } else {
            in.x = j.x + r * d;
        }
        return in;
    };
    // Rows that need no normalizing here are read whole: every row in one product for keys and values (a small
    // head's projection is mostly call and packing overhead per tile), nhead tiles for queries.
    const bool whole = j.xq != nullptr || !o.norm_first;
    const size_t col = h * head_dim;
    const size_t kv_tile = whole ? rows : s.tile;
    for (size_t r = 0; r < rows; r += kv_tile) {
        const size_t n = min_of(kv_tile, rows - r);
        const RowsIn in = input(r, n);
        project(k, j.p->slice(d + col, head_dim), in, n, b.k + r * head_dim, b.quant, split);
        project(k, j.p->slice(2 * d + h * s.value_dim, s.value_dim), in, n, b.v + r * s.value_dim, b.quant, split);
    }
    // Queries: b.q holds a tile of rows of every head, so nhead tiles of this head's, and attention takes as
    // many rows per call.
    const size_t q_tile = whole ? s.tile * o.nhead : s.tile;
    for (size_t r = 0; r < rows; r += q_tile) {
        const size_t n = min_of(q_tile, rows - r);
        project(k, j.p->slice(col, head_dim), input(r, n), n, b.q, b.quant, split);
        // The heads' values: s.value_dim columns each, in rows of nhead x s.value_dim.
        AttentionInput a{b.q,         head_dim, {b.k}, {b.v}, head_dim, s.value_dim,
                         s.value_dim, n,        rows,  r,     j.causal, j.key_valid};
        if (s.res_scores != nullptr) a.residual_scores = s.res_scores + (h * rows + r) * rows;
        attend(k, a, 1, head_dim, b.scores, s.att + (r * o.nhead + h) * s.value_dim, o.nhead * s.value_dim,
               split != nullptr ? &split->parallel : nullptr);
    }
}

// Task t of the threaded head loop: on worker t's buffers, nothing split further, the next head no task has
// taken until none is left. Heads go to whichever worker is free (each head the same calls on the same rows
// whoever takes it): a worker on a slower or busier core takes fewer, where a fixed share of heads waited for it.
void encoder_heads_task(void* arg, int index) {
    EncoderHeads& j = *static_cast<EncoderHeads*>(arg);
    const LayerScratch::Head b = j.s->head(static_cast<size_t>(index));
    for (size_t h = j.next++; h < j.o->nhead; h = j.next++) encoder_head(j, h, b, nullptr);
}

// The encoder's sublayers after attention, for rows [r0, r1) of x: the arguments of encoder_layer_forward.
struct EncoderRows {
    const Kernels* k;
    const LayerOptions* o;
    const EncoderLayerWeights* w;
    float* x;
    size_t rows;
    const LayerScratch* s;
    size_t tasks;
};

// Rows [r0, r1), a tile of s.tile rows at a time: output projection, residual, feed-forward.
void encoder_rows_range(const EncoderRows& j, size_t r0, size_t r1, LayerScratch& s) {
    const Kernels& k = *j.k;
    const LayerOptions& o = *j.o;
    const EncoderLayerWeights& w = *j.w;
    const size_t d = o.d_model;
    for (size_t r = r0; r < r1; r += s.tile) {
        const size_t n = min_of(s.tile, r1 - r);
        linear_forward(k, w.self_attn.out_proj, j.s->att + r * o.value_width(), n, s.tmp, s.quant, &s.split);
        add_residual(k, o, w.norm1, j.x + r * d, n, s);
        feed_forward_tile(k, o, w.ff1, w.ff2, w.norm2, j.x + r * d, n, s);
    }
}

// Task t of the threaded rows: its share of the rows on worker t's buffers, nothing split further. A fixed
// share, not ranges claimed one at a time: each range's products pack their weights again (shorter ranges on
// two threads, d_model 256 with 1024 feed-forward: 10-20% slower for two ranges a worker, more for three).
void encoder_rows_task(void* arg, int index) {
    const EncoderRows& j = *static_cast<const EncoderRows*>(arg);
    const size_t t = static_cast<size_t>(index);
    LayerScratch s = j.s->rows_scratch(t);
    encoder_rows_range(j, t * j.rows / j.tasks, (t + 1) * j.rows / j.tasks, s);
}

}  // namespace

void encoder_layer_forward(const Kernels& k, const LayerOptions& o, const EncoderLayerWeights& w, float* x, size_t rows,
                           LayerScratch& s, const uint8_t* key_valid, bool causal) {
    const size_t d = o.d_model;
    const Linear& p = w.self_attn.in_proj;
    // An int8 projection reads every row quantized once for the 3 x nhead products of the head loop, not once
    // per product (a row's quantization depends on that row only: no bit changes); pre-norm rows are
    // normalized once too. Into s.x_q when the plan holds it; else post-norm rows that fit s.quant go there
    // (s.quant is not otherwise used until the loop ends), and other rows are quantized per product.
    const int8_t* xq = nullptr;
    const float* xscales = nullptr;
    if (format::dtype_takes_int8_rows(p.dtype) && s.x_q != nullptr) {
        if (o.norm_first) {
            for (size_t r = 0; r < rows; r += s.tile) {
                const size_t n = min_of(s.tile, rows - r);
                quantize_rows_split(k, sublayer_input(k, o, w.norm1, x + r * d, n, s), n, d, s.x_q + r * d,
                                    s.x_q_scales + r, &s.split.parallel);
            }
        } else {
            quantize_rows_split(k, x, rows, d, s.x_q, s.x_q_scales, &s.split.parallel);
        }
        xq = s.x_q;
        xscales = s.x_q_scales;
    } else if (format::dtype_takes_int8_rows(p.dtype) && !o.norm_first && rows <= s.quant.rows) {
        quantize_rows_split(k, x, rows, d, s.quant.q, s.quant.scales, &s.split.parallel);
        xq = s.quant.q;
        xscales = s.quant.scales;
    }
    EncoderHeads job{&k, &o, &p, &w.norm1, x, rows, xq, xscales, &s, key_valid, causal};
    // Threaded: whole heads side by side, each worker on its own copies of the loop's buffers (the same calls
    // on the same rows as one thread makes, so the same bits). Else one head after another, each product and
    // attention split over the workers where it pays.
    // A head's work, at least four times a product task's least (each head's buffers cross between the
    // cores: the heads of a small model, d_model 64, ran slower split than on one thread).
    // Per head: its queries and keys (head_dim columns) and values (value_head_dim) of every row, the scores and
    // the weighted values.
    const uint64_t head_dim = o.head_dim(), vd = o.value_head_dim();
    const uint64_t head_macs = uint64_t{rows} * ((2 * head_dim + vd) * d + uint64_t{rows} * (head_dim + vd));
    const uint64_t min_head =
        s.split.parallel.min_task_macs > 0 ? s.split.parallel.min_task_macs : 4 * LinearSplit::kMinTaskMacs;
    const bool split_heads = s.worker_heads != nullptr && s.split.parallel.threaded() && o.nhead > 1 &&
                             (xq != nullptr || !format::dtype_takes_int8_rows(p.dtype)) && head_macs >= min_head;
    if (split_heads) {
        parallel_run(s.split.parallel, min_of(s.workers, o.nhead), encoder_heads_task, &job);
    } else {
        for (size_t h = 0; h < o.nhead; ++h) encoder_head(job, h, s.head(0), &s.split);
    }
    // Output projection and residual, then the feed-forward sublayer. Threaded, with int8 products (whose
    // rows do not depend on the rows beside them, nor an activation's values on the values beside them:
    // runtime/kernels.h; weights small enough, rows_split_shape) each worker takes a range of rows through all
    // of it on its own buffers, one hand-off instead of one per step, and the rows stay in that worker's cache. Else a
    // tile of rows at a time, each step split over the workers where it pays.
    const uint64_t rows_macs = uint64_t{rows} * d * (o.value_width() + 2 * o.dim_feedforward);
    const size_t row_tasks = min_of(s.workers, rows);
    const bool split_rows = s.worker_heads != nullptr && s.split.parallel.threaded() && row_tasks > 1 &&
                            format::dtype_takes_int8_rows(w.self_attn.out_proj.dtype) &&
                            format::dtype_takes_int8_rows(w.ff1.dtype) && format::dtype_takes_int8_rows(w.ff2.dtype) &&
                            s.rows_split_shape() && rows_macs / row_tasks >= 2 * min_head;
    EncoderRows rows_job{&k, &o, &w, x, rows, &s, row_tasks};
    if (split_rows)
        parallel_run(s.split.parallel, row_tasks, encoder_rows_task, &rows_job);
    else
        encoder_rows_range(rows_job, 0, rows, s);
}

void decoder_layer_prepare_memory(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w,
                                  const float* memory, size_t mem_rows, KvCache& cross, LayerScratch& s) {
    const size_t d = o.d_model;
    const size_t rows = min_of(mem_rows, cross.capacity);
    for (size_t r = 0; r < rows; r += s.tile) {
        const size_t n = min_of(s.tile, rows - r);
        const Linear& p = w.cross_attn.in_proj;
        const RowsIn in = shared_input(k, p, memory + r * d, n, d, s);
        project_into_cache(k, p, d, d, in, n, cross.key, cross.key_scale, cross.type, r, s);
        project_into_cache(k, p, 2 * d, p.out - 2 * d, in, n, cross.value, cross.value_scale, cross.type, r, s);
    }
}

namespace {

// Whether every layer's cross-attention keys and values can come from one input: float caches of one
// capacity, projections of one dtype (the memory rows quantized once serve every int8 layer).
bool memory_shared_by_layers(const DecoderLayerWeights* w, const KvCache* cross, size_t layers) {
    for (size_t i = 0; i < layers; ++i)
        if (cross[i].type != CacheType::f32 || cross[i].capacity != cross[0].capacity ||
            w[i].cross_attn.in_proj.dtype != w[0].cross_attn.in_proj.dtype)
            return false;
    return true;
}

}  // namespace

void decoder_layers_prepare_memory(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights* w,
                                   KvCache* cross, size_t layers, const float* memory, size_t mem_rows,
                                   LayerScratch& s) {
    if (layers == 0) return;
    if (!memory_shared_by_layers(w, cross, layers)) {
        for (size_t i = 0; i < layers; ++i) decoder_layer_prepare_memory(k, o, w[i], memory, mem_rows, cross[i], s);
        return;
    }
    const size_t d = o.d_model;
    const size_t rows = min_of(mem_rows, cross[0].capacity);
    constexpr size_t kLayersPerHandOff = 2;  // bounds the stack (a microcontroller's too); more take more hand-offs
    for (size_t r = 0; r < rows; r += s.tile) {
        const size_t n = min_of(s.tile, rows - r);
        const RowsIn in = shared_input(k, w[0].cross_attn.in_proj, memory + r * d, n, d, s);
        for (size_t first = 0; first < layers; first += kLayersPerHandOff) {
            SplitProduct products[2 * kLayersPerHandOff];
            size_t count = 0;
            for (size_t i = first; i < layers && i < first + kLayersPerHandOff; ++i) {
                const Linear& p = w[i].cross_attn.in_proj;
                products[count++] = SplitProduct{p.slice(d, d), cross[i].key_f32() + r * d, d};
                // Values: the rows after the queries' and keys'.
                products[count] = SplitProduct{p.slice(2 * d, p.out - 2 * d), nullptr, 0};
                products[count].y_stride = products[count].layer.out;
                products[count].y = cross[i].value_f32() + r * products[count].y_stride;
                ++count;
            }
            if (linear_split_forward_all(k, products, count, in.x, in.q, in.scales, n, s.split)) continue;
            for (size_t i = 0; i < count; ++i) project(k, products[i].layer, in, n, products[i].y, s);
        }
    }
}

void decoder_layer_forward(const Kernels& k, const LayerOptions& o, const DecoderLayerWeights& w, float* x, size_t rows,
                           size_t first_position, KvCache& self_cache, const KvCache& cross, size_t mem_rows,
                           bool memory_causal, LayerScratch& s, const uint8_t* self_valid, const uint8_t* memory_valid,
                           bool self_causal) {
    for (size_t r = 0; r < rows; r += s.tile) {
        const size_t n = min_of(s.tile, rows - r);
        const size_t tasks = decoder_rows_tasks(o, w, n, s);
        if (tasks > 1) {
            // Each worker its own rows through the whole layer: two hand-offs instead of one per step, and
            // the rows stay in that worker's cache.
            DecoderRows job{&k,           &o,     &w,         x + r * o.d_model, n,  first_position + r,
                            &self_cache,  &cross, mem_rows,   memory_causal,     &s, self_valid,
                            memory_valid, tasks,  self_causal};
            parallel_run(s.split.parallel, tasks, decoder_rows_project_task, &job);
            parallel_run(s.split.parallel, tasks, decoder_rows_rest_task, &job);
        } else {
            decoder_tile_forward(k, o, w, x + r * o.d_model, n, first_position + r, self_cache, cross, mem_rows,
                                 memory_causal, s, self_valid, memory_valid, self_causal);
        }
    }
}

}  // namespace ax
