// Encoder and decoder layers split over threads (runtime/transformer_layer.cpp): the encoder's heads side by
// side, and with int8 products each worker's own range of rows through the encoder's output projection and
// feed-forward sublayers, or through the whole decoder layer. Shapes the fixtures do not have (pre-norm GELU
// and post-norm ReLU, feed-forward widths a multiple of 64 or not, int8 weights, where the rows splits apply;
// float32 weights, where they do not; value heads wider and narrower than the keys, LayerOptions::value_dim): the
// outputs are the single thread's bits for 2, 3 and 4 workers, tasks in any order.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "ports/ports.h"
#include "runtime/memory_plan.h"
#include "runtime/transformer_layer.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/host/thread_pool.h"

namespace {

using namespace ax;

void reverse_hook(void*, int n_tasks, ParallelTask task, void* arg) {
    for (int i = n_tasks; i-- > 0;) task(arg, i);
}

// Values that depend only on their index and a seed.
std::vector<float> values(size_t n, float seed, float scale) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = scale * std::sin(0.731f * static_cast<float>(i) + seed);
    return v;
}

struct Matrix {
    std::vector<float> w, bias, scales;
    std::vector<int8_t> q;
    Linear layer(size_t in, size_t out, bool int8) const {
        Linear l;
        l.in = in;
        l.out = out;
        l.bias = bias.data();
        if (int8) {
            l.dtype = format::DType::i8;
            l.weight = q.data();
            l.scales = scales.data();
        } else {
            l.weight = w.data();
        }
        return l;
    }
};

// W [out, in] and its symmetric per-row int8 form.
Matrix matrix(size_t in, size_t out, float seed) {
    Matrix m;
    m.w = values(in * out, seed, 0.3f);
    m.bias = values(out, seed + 1.0f, 0.1f);
    m.q.resize(in * out);
    m.scales.resize(out);
    for (size_t o = 0; o < out; ++o) {
        float top = 0.0f;
        for (size_t i = 0; i < in; ++i) {
            const float a = std::fabs(m.w[o * in + i]);
            if (a > top) top = a;  // not std::fmax: GCC 12 for aarch64 stops on that reduction
        }
        m.scales[o] = top / 127.0f;
        for (size_t i = 0; i < in; ++i)
            m.q[o * in + i] = static_cast<int8_t>(std::lround(m.w[o * in + i] / m.scales[o]));
    }
    return m;
}

// The layer's output for x, planned for `workers` and run through `hook` (none: one thread).
std::vector<float> run_layer(const Kernels& k, const LayerOptions& o, const EncoderLayerWeights& w,
                             const std::vector<float>& x, size_t rows, size_t workers, const ParallelFor* hook) {
    MemoryPlan planning(workers);
    LayerScratch unplaced;
    unplaced.allocate(planning, o, rows, rows, o.d_model, Phase::encode, Phase::encode);
    REQUIRE(planning.solve());
    tools::AlignedBuffer arena(planning.total_bytes());
    MemoryPlan placing(planning, arena.data(), planning.total_bytes());
    LayerScratch s;
    s.allocate(placing, o, rows, rows, o.d_model, Phase::encode, Phase::encode);
    REQUIRE_FALSE(placing.failed());
    if (hook != nullptr) {
        s.split.parallel = *hook;
        s.split.parallel.workers = workers;
        s.split.parallel.min_task_macs = 1;
    }
    std::vector<float> y = x;
    encoder_layer_forward(k, o, w, y.data(), rows, s, nullptr, true);
    return y;
}

struct DecoderCase {
    LayerOptions o;
    DecoderLayerWeights w;
    size_t rows, mem_rows;
    bool memory_causal;
    CacheType cache;
    std::vector<float> x, memory;
};

// The decoder layer's output for c.x after the cross-attention cache is filled from c.memory, planned for
// `workers` and run through `hook` (none: one thread).
std::vector<float> run_decoder(const Kernels& k, const DecoderCase& c, size_t workers, const ParallelFor* hook) {
    const size_t d = c.o.d_model;
    MemoryPlan planning(workers);
    LayerScratch unplaced;
    unplaced.allocate(planning, c.o, 0, c.mem_rows > c.rows ? c.mem_rows : c.rows, d, Phase::prepare, Phase::decode);
    REQUIRE(planning.solve());
    tools::AlignedBuffer arena(planning.total_bytes());
    MemoryPlan placing(planning, arena.data(), planning.total_bytes());
    LayerScratch s;
    s.allocate(placing, c.o, 0, c.mem_rows > c.rows ? c.mem_rows : c.rows, d, Phase::prepare, Phase::decode);
    REQUIRE_FALSE(placing.failed());
    if (hook != nullptr) {
        s.split.parallel = *hook;
        s.split.parallel.workers = workers;
        s.split.parallel.min_task_macs = 1;
    }
    const size_t elem = c.cache == CacheType::i8 ? 1 : sizeof(float);
    const size_t row = d + c.o.value_width();  // a key, then a value
    tools::AlignedBuffer rows_bytes((c.rows + c.mem_rows) * row * elem);
    std::vector<float> scales(2 * (c.rows + c.mem_rows));
    // Rows [first, first + capacity) of the buffers: their keys, then their values.
    const auto cache = [&](size_t first, size_t capacity) {
        KvCache kv;
        kv.capacity = capacity;
        kv.type = c.cache;
        kv.key = rows_bytes.data() + first * row * elem;
        kv.value = rows_bytes.data() + (first * row + capacity * d) * elem;
        if (c.cache == CacheType::i8) {
            kv.key_scale = scales.data() + 2 * first;
            kv.value_scale = scales.data() + 2 * first + capacity;
        }
        return kv;
    };
    KvCache self = cache(0, c.rows), cross = cache(c.rows, c.mem_rows);
    decoder_layer_prepare_memory(k, c.o, c.w, c.memory.data(), c.mem_rows, cross, s);
    std::vector<float> y = c.x;
    decoder_layer_forward(k, c.o, c.w, y.data(), c.rows, 0, self, cross, c.mem_rows, c.memory_causal, s);
    return y;
}

}  // namespace

TEST_CASE("threads: an encoder layer gives the single thread's bits for 2 to 4 workers, its rows split by worker") {
    const size_t rows = 37, d = 64;
    const std::vector<float> gamma1 = values(d, 0.5f, 0.2f), beta1 = values(d, 0.6f, 0.1f),
                             gamma2 = values(d, 0.7f, 0.2f), beta2 = values(d, 0.8f, 0.1f);
    const std::vector<float> x = values(rows * d, 0.9f, 1.5f);
    // Value heads of the keys' 16 columns, 24 (wider) and 11 (narrower, an odd width).
    for (const uint32_t value_dim : {0u, 24u, 11u})
        for (const bool int8 : {true, false})
            for (const bool norm_first : {true, false}) {
                const size_t v = value_dim != 0 ? 4 * value_dim : d;
                const Matrix in_proj = matrix(d, 2 * d + v, 0.1f), out_proj = matrix(v, d, 0.2f);
                // Feed-forward rows a whole number of vectors, or not (activations are per value: runtime/kernels.h).
                const size_t ff = norm_first ? 128 : 100;
                const Matrix ff1 = matrix(d, ff, 0.3f), ff2 = matrix(ff, d, 0.4f);
                LayerOptions o;
                o.d_model = d;
                o.nhead = 4;
                o.dim_feedforward = ff;
                o.norm_first = norm_first;
                o.activation = norm_first ? format::Activation::gelu : format::Activation::relu;
                o.eps = 1e-5f;
                o.value_dim = value_dim;
                EncoderLayerWeights w;
                w.self_attn.in_proj = in_proj.layer(d, 2 * d + v, int8);
                w.self_attn.out_proj = out_proj.layer(v, d, int8);
                w.ff1 = ff1.layer(d, ff, int8);
                w.ff2 = ff2.layer(ff, d, int8);
                w.norm1 = {gamma1.data(), beta1.data()};
                w.norm2 = {gamma2.data(), beta2.data()};
                for (const Kernels* k : test::available_ports()) {
                    const std::vector<float> single = run_layer(*k, o, w, x, rows, 1, nullptr);
                    for (size_t workers : {2, 3, 4}) {
                        INFO(k->name << (int8 ? " int8" : " f32") << (norm_first ? " pre-norm GELU" : " post-norm ReLU")
                                     << ", value_dim " << value_dim << ", " << workers << " workers");
                        tools::ThreadPool pool(workers);
                        const ParallelFor threads = pool.hook();
                        CHECK(std::memcmp(run_layer(*k, o, w, x, rows, workers, &threads).data(), single.data(),
                                          single.size() * sizeof(float)) == 0);
                        ParallelFor reverse;
                        reverse.run = reverse_hook;
                        CHECK(std::memcmp(run_layer(*k, o, w, x, rows, workers, &reverse).data(), single.data(),
                                          single.size() * sizeof(float)) == 0);
                    }
                }
            }
}

TEST_CASE("threads: a decoder layer gives the single thread's bits for 2 to 4 workers, its rows split by worker") {
    // Wide enough for tiles of more rows than the decoder has (runtime/transformer_layer.h, row_tile).
    const size_t d = 128, ff = 2048;
    const Matrix ff1 = matrix(d, ff, 1.5f), ff2 = matrix(ff, d, 1.6f);
    const std::vector<float> gamma = values(d, 1.7f, 0.2f), beta = values(d, 1.8f, 0.1f);
    // Value heads of the keys' 32 columns, and 40 (wider: the caches' value rows and the tile's attention output
    // wider than d_model).
    for (const uint32_t value_dim : {0u, 40u})
        for (const bool int8 : {true, false})
            for (const bool norm_first : {true, false}) {
                const size_t v = value_dim != 0 ? 4 * value_dim : d;
                const Matrix self_in = matrix(d, 2 * d + v, 1.1f), self_out = matrix(v, d, 1.2f),
                             cross_in = matrix(d, 2 * d + v, 1.3f), cross_out = matrix(v, d, 1.4f);
                DecoderCase c;
                c.o.d_model = d;
                c.o.nhead = 4;
                c.o.dim_feedforward = ff;
                c.o.norm_first = norm_first;
                c.o.activation = norm_first ? format::Activation::gelu : format::Activation::relu;
                c.o.eps = 1e-5f;
                c.o.value_dim = value_dim;
                c.w.self_attn.in_proj = self_in.layer(d, 2 * d + v, int8);
                c.w.self_attn.out_proj = self_out.layer(v, d, int8);
                c.w.cross_attn.in_proj = cross_in.layer(d, 2 * d + v, int8);
                c.w.cross_attn.out_proj = cross_out.layer(v, d, int8);
                c.w.ff1 = ff1.layer(d, ff, int8);
                c.w.ff2 = ff2.layer(ff, d, int8);
                c.w.norm1 = c.w.norm2 = c.w.norm3 = {gamma.data(), beta.data()};
                // 24 rows as a forecaster's horizon; 37 so that the workers' ranges are uneven and start off the
                // attention kernel's groups of 8 rows. Memory longer than the target (the tril mask) or not.
                for (const size_t rows : {24, 37}) {
                    c.rows = rows;
                    c.mem_rows = rows + 6;
                    c.memory_causal = rows == 24;
                    c.cache = norm_first ? CacheType::i8 : CacheType::f32;
                    c.x = values(rows * d, 1.9f, 1.5f);
                    c.memory = values(c.mem_rows * d, 2.1f, 1.2f);
                    for (const Kernels* k : test::available_ports()) {
                        const std::vector<float> single = run_decoder(*k, c, 1, nullptr);
                        for (size_t workers : {2, 3, 4}) {
                            INFO(k->name << (int8 ? " int8" : " f32")
                                         << (norm_first ? " pre-norm GELU" : " post-norm ReLU") << ", value_dim "
                                         << value_dim << ", " << rows << " rows, " << workers << " workers");
                            tools::ThreadPool pool(workers);
                            const ParallelFor threads = pool.hook();
                            CHECK(std::memcmp(run_decoder(*k, c, workers, &threads).data(), single.data(),
                                              single.size() * sizeof(float)) == 0);
                            ParallelFor reverse;
                            reverse.run = reverse_hook;
                            CHECK(std::memcmp(run_decoder(*k, c, workers, &reverse).data(), single.data(),
                                              single.size() * sizeof(float)) == 0);
                        }
                    }
                }
            }
}
