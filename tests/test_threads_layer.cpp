// An encoder layer split over threads (runtime/transformer_layer.cpp): the heads side by side, and with int8
// products each worker's own range of rows through the output projection and feed-forward sublayers. Shapes
// the fixtures do not have (pre-norm GELU and post-norm ReLU with a feed-forward width a multiple of 64, where
// the rows split applies; float32 weights, where it does not): the outputs are the single thread's bits for
// 2, 3 and 4 workers, tasks in any order.
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

}  // namespace

TEST_CASE("threads: an encoder layer gives the single thread's bits for 2 to 4 workers, its rows split by worker") {
    const size_t rows = 37, d = 64, ff = 128;
    const Matrix in_proj = matrix(d, 3 * d, 0.1f), out_proj = matrix(d, d, 0.2f), ff1 = matrix(d, ff, 0.3f),
                 ff2 = matrix(ff, d, 0.4f);
    const std::vector<float> gamma1 = values(d, 0.5f, 0.2f), beta1 = values(d, 0.6f, 0.1f),
                             gamma2 = values(d, 0.7f, 0.2f), beta2 = values(d, 0.8f, 0.1f);
    const std::vector<float> x = values(rows * d, 0.9f, 1.5f);
    for (const bool int8 : {true, false})
        for (const bool norm_first : {true, false}) {
            LayerOptions o;
            o.d_model = d;
            o.nhead = 4;
            o.dim_feedforward = ff;
            o.norm_first = norm_first;
            o.activation = norm_first ? format::Activation::gelu : format::Activation::relu;
            o.eps = 1e-5f;
            EncoderLayerWeights w;
            w.self_attn.in_proj = in_proj.layer(d, 3 * d, int8);
            w.self_attn.out_proj = out_proj.layer(d, d, int8);
            w.ff1 = ff1.layer(d, ff, int8);
            w.ff2 = ff2.layer(ff, d, int8);
            w.norm1 = {gamma1.data(), beta1.data()};
            w.norm2 = {gamma2.data(), beta2.data()};
            for (const Kernels* k : test::available_ports()) {
                const std::vector<float> single = run_layer(*k, o, w, x, rows, 1, nullptr);
                for (size_t workers : {2, 3, 4}) {
                    INFO(k->name << (int8 ? " int8" : " f32") << (norm_first ? " pre-norm GELU" : " post-norm ReLU")
                                 << ", " << workers << " workers");
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
