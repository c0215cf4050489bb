// Sessions split over threads (runtime/parallel.h): for every family's fixtures, float32 and int8, the outputs
// with 2, 3 and 4 workers of the host pool, and with hooks that run the tasks in reverse order or all on the
// calling thread, are the bits of the single-thread session on every port; the arena each plan asks for is
// exact (one byte less is refused, and the session never writes past it). The split threshold is 1
// multiply-add here, so the fixtures' small products are split too.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <utility>
#include <vector>

#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#include "api/auspex.h"
#include "tests/family_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/host/family_sessions.h"
#include "tools/host/host_session.h"
#include "tools/host/thread_pool.h"
#include "tools/onnx_import/onnx_convert.h"

namespace {

using namespace ax;

// Every task, last first, on the calling thread; counts the calls that split something.
size_t g_split_calls = 0;
void reverse_hook(void*, int n_tasks, ParallelTask task, void* arg) {
    if (n_tasks > 1) ++g_split_calls;
    for (int i = n_tasks; i-- > 0;) task(arg, i);
}
// Every task in order on the calling thread.
void inline_hook(void*, int n_tasks, ParallelTask task, void* arg) {
    for (int i = 0; i < n_tasks; ++i) task(arg, i);
}

// Inputs that depend only on their index: the same on every run.
std::vector<float> values(size_t n, float phase) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.37f * static_cast<float>(i) + phase) * 1.5f;
    return v;
}
std::vector<int32_t> tokens(size_t n, size_t vocab, size_t seed) {
    std::vector<int32_t> t(n);
    for (size_t i = 0; i < n; ++i) t[i] = static_cast<int32_t>((i * 7 + seed * 3 + 1) % vocab);
    return t;
}

// Every output of a family's sessions for one model, concatenated (sessions come from the host's hook).
std::vector<float> outputs(const tools::LoadedModel& m, const Kernels& k) {
    std::vector<float> out;
    auto add = [&out](const std::vector<float>& v) { out.insert(out.end(), v.begin(), v.end()); };
    switch (m.family) {
        case format::Family::forecaster: {
            const ForecasterConfig& c = m.as<Forecaster>().config();
            const size_t window = c.window != 0 ? c.window : 16;
            const size_t horizon = c.one_pass() ? c.horizon : 5;
            const std::vector<float> history = values(window * c.n_features, 0.1f);
            // A step-by-step forecast feeds the outputs back: only where they are what the decoder reads.
            if (c.one_pass() || c.encoder_only() || c.decoder_features == c.n_outputs) {
                tools::HostSession fc(m, k, window, horizon);
                add(fc.forecast(history.data(), window, horizon));
            }
            if (!c.encoder_only()) {
                const size_t tgt_rows = horizon + c.decoding.label_len;
                const std::vector<float> tgt = values(tgt_rows * c.n_features, 0.7f);
                tools::HostSession run(m, k, window, c.run_horizon(tgt_rows));
                add(run.run(history.data(), window, tgt.data(), tgt_rows, InputSpace::model));
            }
            break;
        }
        case format::Family::seq2seq: {
            const Seq2SeqConfig& c = m.as<Seq2Seq>().config();
            const std::vector<int32_t> src = tokens(9, c.src_vocab, 1), tgt = tokens(7, c.tgt_vocab, 2);
            tools::HostSeq2Seq s(m, k, src.size(), 8);
            add(s.run(src, tgt));
            for (int32_t id : s.translate(src, 1, 2, 8)) out.push_back(static_cast<float>(id));
            break;
        }
        case format::Family::classifier: {
            const ClassifierConfig& c = m.as<Classifier>().config();
            tools::HostClassifier s(m, k, 9);
            add(s.classify(tokens(9, c.vocab, 3)));
            add(s.classify(tokens(4, c.vocab, 4)));
            break;
        }
        case format::Family::tvae: {
            const TvaeConfig& c = m.as<Tvae>().config();
            const size_t len = 12;
            tools::HostTvae s(m, k, len);
            add(s.run(values(len * c.n_features, 0.3f), len));
            add(s.generate(values(c.latent_size, 0.9f), len));
            break;
        }
    }
    return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// A fixture's model.pt with its config.json, or (onnx_quirks/) its model.onnx.
std::vector<uint8_t> convert_fixture(const std::string& dir, format::DType dtype, format::CacheType kv) {
    if (dir.rfind("onnx_quirks/", 0) != 0) return test::convert_case(test::fixture_path(dir), dtype, kv);
    tools::ConvertOptions o;
    o.checkpoint_path = test::fixture_path(dir + "/model.onnx");
    o.config_path = test::fixture_path(dir + "/config.json");
    o.dtype = dtype;
    o.kv_cache = kv;
    return onnx_import::convert_onnx(o);
}

void check_every_way(const std::string& dir, format::DType dtype, format::CacheType kv) {
    std::vector<uint8_t> bytes;
    try {
        bytes = convert_fixture(dir, dtype, kv);
    } catch (const tools::ToolError&) {  // an int8 cache for a model without a decoder
        bytes = convert_fixture(dir, dtype, format::CacheType::f32);
    }
    const auto m = tools::open_model_bytes(bytes, dir);
    for (const Kernels* k : test::available_ports()) {
        tools::set_host_hook(nullptr);
        tools::set_host_threads(1);
        const std::vector<float> single = outputs(*m, *k);
        REQUIRE(!single.empty());
        for (size_t threads : {2, 3, 4}) {
            tools::ThreadPool pool(threads);
            ParallelFor p = pool.hook();
            p.min_task_macs = 1;
            tools::set_host_hook(&p);
            INFO(dir << " " << k->name << " " << threads << " threads");
            CHECK(same_bits(outputs(*m, *k), single));
        }
        const std::pair<const char*, ParallelForFn> hooks[] = {{"reverse", reverse_hook},
                                                               {"calling thread", inline_hook}};
        for (const auto& hook : hooks) {
            const char* name = hook.first;
            const ParallelForFn fn = hook.second;
            ParallelFor p;
            p.run = fn;
            p.workers = 3;
            p.min_task_macs = 1;
            tools::set_host_hook(&p);
            INFO(dir << " " << k->name << " " << name);
            g_split_calls = 0;
            CHECK(same_bits(outputs(*m, *k), single));
            if (fn == reverse_hook) CHECK(g_split_calls > 0);  // the fixture's products were split
        }
        tools::set_host_hook(nullptr);
    }
}

const char* const kFixtures[] = {
    "forecaster/odd_sizes",
    "forecaster/post_relu_tril",
    "forecaster/pre_gelu_none_final",
    "forecaster/multi_out",
    "forecaster/seed_stray_layers",
    "forecaster/window48",
    "forecaster_covariates/tutorial",
    "forecaster_onepass/informer_zeros",
    "forecaster_onepass/patchtst_revin",
    "forecaster_onepass/mean_mlp",
    "forecaster_onepass/transam",
    "seq2seq/tutorial",
    "seq2seq/learned_pre_gelu",
    "classifier/cls_first_norm",
    "classifier/decoder_start",
    "tvae/post_relu_pe",
    "tvae/pre_gelu_norms",
    // Value heads as wide as d_model (value_dim): encoder-only, and an encoder-decoder whose caches hold them.
    "onnx_quirks/per_head_wide",
    "onnx_quirks/per_head_wide_decoder",
};

}  // namespace

TEST_CASE("threads: every family's outputs are the same bits for 1 to 4 workers and any task order, float32") {
    for (const char* dir : kFixtures) check_every_way(dir, format::DType::f32, format::CacheType::f32);
}

TEST_CASE("threads: every family's outputs are the same bits for 1 to 4 workers and any task order, int8") {
    for (const char* dir : kFixtures) check_every_way(dir, format::DType::i8, format::CacheType::i8);
}

TEST_CASE("threads: int8 weights with float caches give the same bits for 1 to 4 workers and any task order") {
    // The cross-attention keys and values of every layer from one quantization of the memory, in one split step.
    for (const char* dir : kFixtures) check_every_way(dir, format::DType::i8, format::CacheType::f32);
}

TEST_CASE("threads: the arena for N workers is exact, and one worker's is the single-thread figure") {
    const std::vector<uint8_t> bytes = test::convert_case(test::fixture_path("forecaster/odd_sizes"));
    const auto m = tools::open_model_bytes(bytes, "odd_sizes");
    const Forecaster& model = m->as<Forecaster>();
    const ForecasterConfig& c = model.config();
    const size_t window = c.window != 0 ? c.window : 16, horizon = 5;
    const size_t one = model.arena_bytes(window, horizon);
    CHECK(model.arena_bytes(window, horizon, 1) == one);
    MemoryPlan plan;
    REQUIRE(plan_forecaster_arena(c, window, horizon, &plan));
    CHECK(plan.total_bytes() == one);  // what inspect prints
    const std::vector<float> history = values(window * c.n_features, 0.2f);
    std::vector<float> want(horizon * c.n_outputs);
    {
        tools::AlignedBuffer arena(one + 64);  // 64-byte aligned: a vector's bytes are 8-aligned on 32-bit ARM
        ForecastSession s;
        REQUIRE(s.init(model, best_kernels(), arena.data(), one, window, horizon).is_ok());
        REQUIRE(s.forecast(history.data(), window, horizon, want.data()).is_ok());
    }
    for (size_t workers : {2, 3, 4}) {
        const size_t bytes_n = model.arena_bytes(window, horizon, workers);
        INFO(workers << " workers: " << bytes_n << " bytes");
        CHECK(bytes_n > one);  // per-worker scratch for the split products
        ParallelFor p;
        p.run = reverse_hook;
        p.workers = workers;
        p.min_task_macs = 1;
        alignas(64) static uint8_t arena[1 << 20];
        REQUIRE(bytes_n + 256 <= sizeof arena);
        ForecastSession s;
        CHECK(s.init(model, best_kernels(), arena, bytes_n - 1, window, horizon, p).code() ==
              StatusCode::arena_too_small);
        std::memset(arena, 0xA5, sizeof arena);
        REQUIRE(s.init(model, best_kernels(), arena, bytes_n, window, horizon, p).is_ok());
        std::vector<float> got(horizon * c.n_outputs);
        REQUIRE(s.forecast(history.data(), window, horizon, got.data()).is_ok());
        CHECK(same_bits(got, want));
        CHECK(g_split_calls > 0);
        bool untouched = true;
        for (size_t i = bytes_n; i < bytes_n + 256; ++i) untouched = untouched && arena[i] == 0xA5;
        CHECK(untouched);  // nothing past the planned arena
    }
}

TEST_CASE("threads: the C API's parallel-for gives the single-thread bits in an exact arena") {
    const std::vector<uint8_t> bytes = test::convert_case(test::fixture_path("forecaster/post_relu_tril"));
    const tools::AlignedBuffer model(bytes);  // 64-byte aligned, as a model's tensor data must be
    static auspex_forecaster fc;
    REQUIRE(auspex_open(&fc, model.data(), bytes.size(), 1) == AUSPEX_OK);
    const size_t window = auspex_window(&fc) != 0 ? auspex_window(&fc) : 16, horizon = 6;
    const size_t n = auspex_n_features(&fc);
    const std::vector<float> history = values(window * n, 0.4f);
    std::vector<float> want(horizon * auspex_n_outputs(&fc)), got(want.size());
    const size_t one = auspex_arena_bytes(&fc, window, horizon);
    CHECK(auspex_arena_bytes_parallel(&fc, window, horizon, 1) == one);
    CHECK(auspex_arena_bytes_parallel(&fc, window, horizon, 0) == 0);
    tools::AlignedBuffer arena(auspex_arena_bytes_parallel(&fc, window, horizon, 4) + 8);  // 64-byte aligned
    REQUIRE(auspex_session_init(&fc, arena.data(), one, window, horizon) == AUSPEX_OK);
    REQUIRE(auspex_forecast(&fc, history.data(), window, horizon, want.data()) == AUSPEX_OK);
    tools::ThreadPool pool(4);
    const ParallelFor p = pool.hook();
    const size_t four = auspex_arena_bytes_parallel(&fc, window, horizon, 4);
    CHECK(auspex_session_init_parallel(&fc, arena.data(), four - 1, window, horizon, p.run, p.ctx, 4) ==
          AUSPEX_ARENA_TOO_SMALL);
    CHECK(auspex_session_init_parallel(&fc, arena.data(), four, window, horizon, p.run, p.ctx, 0) ==
          AUSPEX_INVALID_ARGUMENT);
    REQUIRE(auspex_session_init_parallel(&fc, arena.data(), four, window, horizon, p.run, p.ctx, 4) == AUSPEX_OK);
    REQUIRE(auspex_forecast(&fc, history.data(), window, horizon, got.data()) == AUSPEX_OK);
    CHECK(same_bits(got, want));
}
