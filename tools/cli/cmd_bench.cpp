// bench: median latency of a teacher-forced forward pass and of an H-step forecast. A benchmark, never a
// test: figures depend on the machine and its load, so compare ratios measured in one run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tools/cli/commands.h"
#include "tools/host/forecast_window.h"
#include "tools/host/host_session.h"
#include "tools/host/kernel_bench.h"

namespace ax::cli {

namespace {

template <typename F>
double median_ms(size_t runs, F&& body) {
    body();  // warm-up: caches, page faults of the arena
    std::vector<double> times;
    for (size_t i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        body();
        const auto t1 = std::chrono::steady_clock::now();
        times.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

}  // namespace

int cmd_bench(const Argv& argv) {
    const Args args(argv, {"window", "horizon", "runs", "port"}, {"json", "kernels"});
    if (args.has("kernels")) {
        std::fputs(tools::run_kernel_bench(args.has("json")).c_str(), stdout);
        return 0;
    }
    args.expect_positionals(1, "one model (.axm), or --kernels");
    const auto model = tools::load_model(args.positionals()[0]);
    const ForecasterConfig& c = model->forecaster.config();
    const size_t window = args.get_size("window", tools::default_window(c), 1, kMaxSequenceLength);
    const size_t horizon = args.get_size("horizon", tools::kDefaultHorizon, 1, kMaxSequenceLength);
    tools::check_window_fits(c, window, "--window " + std::to_string(window));
    tools::check_horizon_fits(c, horizon, "--horizon " + std::to_string(horizon));
    const size_t runs = args.get_size("runs", 20, 1, 100000);
    const Kernels& k = choose_kernels(args);
    tools::HostSession session(*model, k, window, horizon);

    // Smooth synthetic series: the timing does not depend on the values, only on their being finite.
    std::vector<float> src(window * c.n_features), tgt(horizon * c.n_features);
    for (size_t i = 0; i < src.size(); ++i) src[i] = std::sin(0.1f * static_cast<float>(i));
    for (size_t i = 0; i < tgt.size(); ++i) tgt[i] = std::cos(0.1f * static_cast<float>(i));
    const double forward = median_ms(runs, [&] { session.run(src.data(), window, tgt.data(), horizon, InputSpace::model); });
    double forecast = -1.0;
    if (c.n_outputs == c.n_features)
        forecast = median_ms(runs, [&] { session.forecast(src.data(), window, horizon); });
    const unsigned long long model_bytes = model->file.file_size();
    const size_t arena = session.arena_bytes();
    if (args.has("json")) {
        std::printf("{\"model\": \"%s\", \"port\": \"%s\", \"window\": %zu, \"horizon\": %zu, \"runs\": %zu, "
                    "\"forward_ms\": %.4f, \"forecast_ms\": %.4f, \"model_bytes\": %llu, \"arena_bytes\": %zu}\n",
                    model->path.c_str(), k.name, window, horizon, runs, forward, forecast, model_bytes, arena);
    } else {
        std::printf("model %s, port %s, window %zu, horizon %zu, median of %zu runs\n", model->path.c_str(), k.name,
                    window, horizon, runs);
        std::printf("  forward (teacher-forced, %zu decoder rows): %9.3f ms\n", horizon, forward);
        if (forecast >= 0) std::printf("  forecast (%zu steps, KV cache):          %9.3f ms\n", horizon, forecast);
        std::printf("  model bytes: %llu, arena bytes: %zu\n", model_bytes, arena);
    }
    return 0;
}

}  // namespace ax::cli
