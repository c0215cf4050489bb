// bench: median latency of a teacher-forced forward pass and of the family's multi-step path (an H-step
// forecast, greedy translation, a reconstruction), for every family. A benchmark, never a
// test: figures depend on the machine and its load, so compare ratios measured in one run.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>
#include <thread>

#include "tools/host/core_times.h"
#include "tools/host/median.h"
#include "tools/host/split_breakdown.h"
#include "tools/cli/chronos_bolt_cli.h"
#include "tools/cli/commands.h"
#include "tools/cli/session_lengths.h"
#include "tools/family/family_descriptor.h"
#include "tools/host/kernel_bench.h"
#include "tools/host/thread_pool.h"

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
    return tools::median(times);
}

// ---- --stages: where the time of a forward pass goes, kernel by kernel ----
// A kernel table whose every entry times the chosen port's kernel (steady_clock around each call) and adds
// it to a per-kernel (and, for the matrix products, per-shape) account. What no kernel covers (copies,
// embeddings, masks, the runtime's own loops) is the forward's time minus the kernels'. The clock reads
// cost some 20-50 ns per call, which inflates the small per-head attention calls: read shares, not sums.
// Each account is the smallest of its per-pass totals over the timed passes (a matrix product's, the sum
// of its shapes' smallest), and the forward's time the smallest thread CPU time of a pass, so that the
// time the scheduler gives other processes on a busy machine does not count.
struct StageAccount {
    double ns = 0;
    size_t calls = 0;
    double ops = 0;  // multiply-adds x 2 for the matrix products
};

struct StageProfile {
    const Kernels* base = nullptr;
    // With --threads, only the calls the calling thread makes are accounted (the maps are not shared with
    // the pool's workers); the forward's time is that thread's CPU time too.
    std::thread::id owner;
    std::map<std::string, StageAccount> by_kernel;
    std::map<std::tuple<std::string, size_t, size_t, size_t>, StageAccount> by_shape;
    // The smallest per-pass account so far (ns of a pass; calls and ops are the same every pass).
    std::map<std::string, StageAccount> best_kernel;
    std::map<std::tuple<std::string, size_t, size_t, size_t>, StageAccount> best_shape;
    void end_pass() {
        auto keep = [](auto& best, auto& pass) {
            for (auto& [key, a] : pass) {
                auto it = best.find(key);
                if (it == best.end() || a.ns < it->second.ns) best[key] = a;
            }
            pass.clear();
        };
        keep(best_kernel, by_kernel);
        keep(best_shape, by_shape);
    }
};
StageProfile g_profile;

using StageClock = std::chrono::steady_clock;

struct StageTimer {
    const char* kernel;
    StageClock::time_point t0 = StageClock::now();
    explicit StageTimer(const char* k) : kernel(k) {}
    ~StageTimer() {
        StageAccount& a = g_profile.by_kernel[kernel];
        a.ns += std::chrono::duration<double, std::nano>(StageClock::now() - t0).count();
        ++a.calls;
    }
};

void add_shape(const char* kernel, size_t rows, size_t in, size_t out, StageClock::time_point t0) {
    const double ns = std::chrono::duration<double, std::nano>(StageClock::now() - t0).count();
    for (StageAccount* a : {&g_profile.by_kernel[kernel], &g_profile.by_shape[{kernel, rows, in, out}]}) {
        a->ns += ns;
        ++a->calls;
        a->ops += 2.0 * static_cast<double>(rows) * static_cast<double>(in) * static_cast<double>(out);
    }
}

// Where a matrix product's rows, in and out are among its arguments (runtime/kernels.h): those kernels are
// accounted per shape as well. Every other kernel: {} (by kernel only).
struct ShapeArgs {
    bool matrix = false;
    size_t rows = 0, in = 0, out = 0;
};
template <auto entry>
constexpr ShapeArgs kShapeArgs{};
template <>
constexpr ShapeArgs kShapeArgs<&Kernels::linear_f32>{true, 1, 2, 5};
template <>
constexpr ShapeArgs kShapeArgs<&Kernels::linear_f16>{true, 1, 2, 5};
template <>
constexpr ShapeArgs kShapeArgs<&Kernels::linear_i8>{true, 2, 3, 7};
template <>
constexpr ShapeArgs kShapeArgs<&Kernels::linear_i4>{true, 2, 3, 7};

// The timed stand-in for one table entry: the chosen port's kernel between two clock reads, its time added to
// the entry's account under its name in runtime/kernels.h.
template <auto entry, typename Kernel>
struct TimedEntry;
template <auto entry, typename R, typename... A>
struct TimedEntry<entry, R(A...)> {
    static R call(A... a) {
        if (std::this_thread::get_id() != g_profile.owner) return (g_profile.base->*entry)(a...);
        constexpr ShapeArgs shape = kShapeArgs<entry>;
        if constexpr (shape.matrix) {
            const auto t0 = StageClock::now();
            (g_profile.base->*entry)(a...);
            const auto args = std::make_tuple(a...);
            add_shape(kernel_name<entry>(), std::get<shape.rows>(args), std::get<shape.in>(args),
                      std::get<shape.out>(args), t0);
        } else {
            StageTimer t(kernel_name<entry>());
            return (g_profile.base->*entry)(a...);
        }
    }
};

// The chosen port's table with every entry it sets timed (a null optional entry stays null).
Kernels timed_kernels(const Kernels& base) {
    g_profile.base = &base;
    g_profile.owner = std::this_thread::get_id();
    Kernels k = base;
#define AX_TIMED_ENTRY(id) \
    if (base.id != nullptr) k.id = TimedEntry<&Kernels::id, kernel::id>::call;
    AX_KERNELS(AX_TIMED_ENTRY)
#undef AX_TIMED_ENTRY
    return k;
}

// The smallest per-pass accounts of `runs` timed forward passes, against the fastest timed pass.
void print_stages(double forward_ms, size_t runs) {
    double kernels_ns = 0;
    for (auto& [name, a] : g_profile.best_kernel) {
        double shapes_ns = 0;
        for (const auto& [key, sa] : g_profile.best_shape)
            if (std::get<0>(key) == name) shapes_ns += sa.ns;
        if (shapes_ns > 0) a.ns = shapes_ns;
        kernels_ns += a.ns;
    }
    const double per = 1.0;
    std::printf(
        "  stages of one forward pass (smallest of %zu timed passes each; %% of the smallest thread CPU time\n"
        "  of a pass, %.3f ms):\n",
        runs, forward_ms);
    std::printf("    %-22s %7s %10s %7s %9s\n", "kernel", "calls", "ms", "%", "GFLOP/s");
    std::vector<std::pair<std::string, StageAccount>> sorted(g_profile.best_kernel.begin(),
                                                             g_profile.best_kernel.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.ns > b.second.ns; });
    for (const auto& [name, a] : sorted) {
        const double ms = a.ns * per * 1e-6;
        std::printf("    %-22s %7.0f %10.3f %7.1f", name.c_str(), static_cast<double>(a.calls) * per, ms,
                    100.0 * ms / forward_ms);
        if (a.ops > 0) std::printf(" %9.1f", a.ops / a.ns);
        std::printf("\n");
        for (const auto& [key, s] : g_profile.best_shape) {
            if (std::get<0>(key) != name) continue;
            const double sms = s.ns * per * 1e-6;
            std::printf("      %5zu x %5zu x %5zu %7.0f %10.3f %7.1f %9.1f\n", std::get<1>(key), std::get<2>(key),
                        std::get<3>(key), static_cast<double>(s.calls) * per, sms, 100.0 * sms / forward_ms,
                        s.ops / s.ns);
        }
    }
    const double rest = forward_ms - kernels_ns * per * 1e-6;
    std::printf("    %-22s %7s %10.3f %7.1f\n", "(outside the kernels)", "", rest, 100.0 * rest / forward_ms);
}

using tools::Workload;

Workload make_workload(const tools::LoadedModel& m, const SessionLengths& l, const Kernels& k) {
    return tools::family_descriptor(m.family).bench(m, l, k);
}

// --threads 1,2,...: the forward pass with each thread count, runs interleaved (1, 2, 1, 2, ...) so that a
// change in the machine's load reaches every count alike; the medians and their ratios to the first count.
// Each timed run follows an untimed one of the same count: timed as in a stream of passes, the pool's workers
// polling and the session's buffers in cache (right after another count's run its workers would be asleep
// and its buffers evicted: 5-10% of a d_model 256 forward). The thread FMA ceiling (thread_fma_ceiling) and the
// read ceiling over the model's bytes (thread_read_ceiling) are measured before and after: what the machine gave
// threads in this sitting, for arithmetic and for streaming the weights.
int bench_thread_counts(const tools::LoadedModel& model, const SessionLengths& lengths, const Kernels& k, size_t runs,
                        const std::vector<size_t>& counts, bool json) {
    std::vector<std::unique_ptr<tools::ThreadPool>> pools;
    std::vector<Workload> work;
    for (size_t n : counts) {
        pools.push_back(std::make_unique<tools::ThreadPool>(n));
        const ParallelFor hook = pools.back()->hook();
        tools::set_host_hook(&hook);
        work.push_back(make_workload(model, lengths, k));
        tools::set_host_hook(nullptr);
    }
    // The forward pass and (where the family has one) the step-by-step pass, each run for every count in
    // turn: [pass][count] medians.
    const bool steps = static_cast<bool>(work[0].steps);
    const unsigned most = static_cast<unsigned>(*std::max_element(counts.begin(), counts.end()));
    const double ceiling_before = tools::thread_fma_ceiling(most);
    const double read_before = tools::thread_read_ceiling(most, model.bytes.size());
    const double split_step_ns = tools::thread_split_step_ns(most);
    std::vector<double> median[2] = {std::vector<double>(counts.size()), std::vector<double>(counts.size())};
    for (int pass = 0; pass < (steps ? 2 : 1); ++pass) {
        const auto run = [&](size_t c) { pass == 0 ? work[c].forward() : work[c].steps(); };
        std::vector<std::vector<double>> times(counts.size());
        for (size_t c = 0; c < counts.size(); ++c) run(c);  // warm-up
        for (size_t i = 0; i < runs; ++i)
            for (size_t c = 0; c < counts.size(); ++c) {
                run(c);
                const auto t0 = std::chrono::steady_clock::now();
                run(c);
                times[c].push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
            }
        for (size_t c = 0; c < counts.size(); ++c) median[pass][c] = tools::median(times[c]);
    }
    // Where the forward pass on the most threads goes, against one thread (when the counts hold 1).
    tools::SplitBreakdown breakdown;
    const size_t one = static_cast<size_t>(std::find(counts.begin(), counts.end(), size_t{1}) - counts.begin());
    const size_t at_most = static_cast<size_t>(std::find(counts.begin(), counts.end(), size_t{most}) - counts.begin());
    const bool explain = most > 1 && one < counts.size();
    if (explain) {
        tools::SplitProfile in_turn_profile;
        const ParallelFor in_turn = tools::serial_hook(most, &in_turn_profile);
        tools::set_host_hook(&in_turn);
        const Workload in_turn_work = make_workload(model, lengths, k);
        tools::set_host_hook(nullptr);
        breakdown = tools::measure_split_breakdown(work[at_most].forward, *pools[at_most], in_turn_work.forward,
                                                   in_turn_profile, runs, most, median[0][one]);
    }
    // The one-thread forward pass held on each core in turn, and the speed-ups over the fastest core's.
    std::vector<tools::CoreTime> by_core;
    double fastest_core_ms = 0;
    if (one < counts.size() && most > 1) {
        const std::vector<int> cores = tools::allowed_cores();
        if (cores.size() > 1) by_core = tools::time_on_each_core(work[one].forward, cores, runs);
        for (const tools::CoreTime& t : by_core)
            if (t.ms > 0 && (fastest_core_ms == 0 || t.ms < fastest_core_ms)) fastest_core_ms = t.ms;
    }
    const double ceiling_after = tools::thread_fma_ceiling(most);
    const double read_after = tools::thread_read_ceiling(most, model.bytes.size());
    if (json) {
        std::string rows;
        for (size_t c = 0; c < counts.size(); ++c) {
            rows += (c ? ", " : "") + std::string("{\"threads\": ") + std::to_string(counts[c]) +
                    ", \"forward_ms\": " + std::to_string(median[0][c]) +
                    ", \"speedup\": " + std::to_string(median[0][0] / median[0][c]);
            if (steps)
                rows += ", \"" + work[c].steps_json + "\": " + std::to_string(median[1][c]) + ", \"" +
                        work[c].steps_json.substr(0, work[c].steps_json.size() - 3) +
                        "_speedup\": " + std::to_string(median[1][0] / median[1][c]);
            if (fastest_core_ms > 0)
                rows += ", \"speedup_vs_fastest_core\": " + std::to_string(fastest_core_ms / median[0][c]);
            rows += ", \"arena_bytes\": " + std::to_string(work[c].arena) + "}";
        }
        std::string cores_json;
        for (const tools::CoreTime& t : by_core)
            cores_json += (cores_json.empty() ? "" : ", ") + std::string("{\"core\": ") + std::to_string(t.core) +
                          ", \"forward_ms\": " + std::to_string(t.ms) + "}";
        std::printf(
            "{\"model\": \"%s\", \"port\": \"%s\", \"runs\": %zu, \"by_threads\": [%s], \"fma_ceiling_threads\": %u, "
            "\"fma_ceiling_before\": %.3f, \"fma_ceiling_after\": %.3f, \"read_ceiling_bytes\": %zu, "
            "\"read_ceiling_before\": %.3f, \"read_ceiling_after\": %.3f, \"empty_split_step_ns\": %.1f, "
            "\"one_thread_by_core\": [%s], \"split_profile\": %s}\n",
            model.path.c_str(), k.name, runs, rows.c_str(), most, ceiling_before, ceiling_after, model.bytes.size(),
            read_before, read_after, split_step_ns, cores_json.c_str(),
            explain ? tools::split_breakdown_json(breakdown).c_str() : "null");
        return 0;
    }
    std::printf("model %s, port %s, %s, median of %zu runs per thread count, interleaved\n", model.path.c_str(), k.name,
                lengths.text.c_str(), runs);
    for (int pass = 0; pass < (steps ? 2 : 1); ++pass)
        for (size_t c = 0; c < counts.size(); ++c)
            std::printf("  %s, %zu thread%s: %9.3f ms  (%.2fx the first; arena bytes %zu)\n",
                        (pass == 0 ? work[c].forward_label : work[c].steps_label).c_str(), counts[c],
                        counts[c] == 1 ? " " : "s", median[pass][c], median[pass][0] / median[pass][c], work[c].arena);
    if (fastest_core_ms > 0) {
        const auto format = [](const char* f, double v) {
            char text[32];
            std::snprintf(text, sizeof text, f, v);
            return std::string(text);
        };
        std::string cores_text, speedups;
        for (const tools::CoreTime& t : by_core)
            cores_text += (cores_text.empty() ? "" : ", ") + std::string("core ") + std::to_string(t.core) + " " +
                          format("%.3f ms", t.ms);
        for (size_t c = 0; c < counts.size(); ++c)
            if (counts[c] > 1)
                speedups += (speedups.empty() ? "" : ", ") + std::to_string(counts[c]) + " threads " +
                            format("%.2fx", fastest_core_ms / median[0][c]);
        std::printf(
            "  the one-thread forward held on each core in turn: %s;\n"
            "  over the fastest core's: %s (a one-thread time is the time on the core it ran on)\n",
            cores_text.c_str(), speedups.c_str());
    }
    if (explain) tools::print_split_breakdown(breakdown, work[at_most].forward_label);
    if (ceiling_before > 0)
        std::printf(
            "  FMA loop on %u threads at once: %.2fx one thread before these runs, %.2fx after (the most\n"
            "  threads could gain on this machine in this sitting)\n",
            most, ceiling_before, ceiling_after);
    std::printf(
        "  reading the model's %.1f MB over and over, split over %u threads: %.2fx one thread before these runs,\n"
        "  %.2fx after (a pass bound by streaming its weights gains no more)\n",
        static_cast<double>(model.bytes.size()) / (1 << 20), most, read_before, read_after);
    if (split_step_ns > 0)
        std::printf(
            "  a step split over %u threads with nothing to do: %.2f us (what every split step of a pass pays\n"
            "  to hand out its tasks and see them end)\n",
            most, split_step_ns / 1000);
    return 0;
}

// --threads: one count, or a list "1,2,4" to compare.
std::vector<size_t> thread_counts(const Args& args) {
    std::vector<size_t> counts;
    const std::string text = args.get("threads");
    size_t at = 0;
    while (at <= text.size() && !text.empty()) {
        const size_t comma = std::min(text.find(',', at), text.size());
        const std::string item = text.substr(at, comma - at);
        char* end = nullptr;
        const unsigned long n = std::strtoul(item.c_str(), &end, 10);
        if (item.empty() || *end != '\0' || n < 1 || n > 256)
            throw UsageError{"--threads takes a thread count (1..256) or a list of them (1,2,4), not \"" + text + "\""};
        counts.push_back(n);
        at = comma + 1;
    }
    return counts;
}

// The lengths as JSON fields, by the names the family gives them ("window", "src_len", "max_len").
std::string json_lengths(const tools::FamilyDescriptor& d, const SessionLengths& l) {
    const size_t values[2] = {l.first, l.second};
    std::string text;
    for (size_t i = 0; i < d.length_count(); ++i)
        text += (i ? ", \"" : "\"") + std::string(d.lengths[i].json) + "\": " + std::to_string(values[i]);
    return text;
}

}  // namespace

int cmd_bench(const Argv& argv) {
    std::set<std::string> options = length_options();
    options.insert({"runs", "port", "threads"});
    const Args args(argv, options, {"json", "kernels", "stages"});
    if (args.has("kernels")) {
        std::fputs(tools::run_kernel_bench(args.has("json")).c_str(), stdout);
        return 0;
    }
    args.expect_positionals(1, "one model (.axm), or --kernels");
    if (is_chronos_bolt_model(args.positionals()[0])) return bench_chronos_bolt(args);
    const auto model = tools::open_model(args.positionals()[0]);
    const SessionLengths lengths = session_lengths(*model, args);
    const size_t runs = args.get_size("runs", 20, 1, 100000);
    const Kernels& k = choose_kernels(args);
    const std::vector<size_t> counts = thread_counts(args);
    if (counts.size() > 1) return bench_thread_counts(*model, lengths, k, runs, counts, args.has("json"));
    choose_threads(args);
    const Workload w = make_workload(*model, lengths, k);
    const double forward = median_ms(runs, w.forward);
    const double steps = w.steps ? median_ms(runs, w.steps) : -1.0;
    const unsigned long long model_bytes = model->file.file_size();
    if (args.has("json")) {
        std::string extra;
        // The forecaster's lines name no family: they are older than the other families.
        if (model->family != format::Family::forecaster)
            extra = "\"family\": \"" + std::string(tools::family_name(model->family)) + "\", ";
        std::string steps_json;
        if (!w.steps_json.empty()) {
            char figure[64];
            std::snprintf(figure, sizeof figure, "%.4f", steps);  // -1.0000 when the model has no such path
            steps_json = ", \"" + w.steps_json + "\": " + figure;
        }
        std::printf(
            "{\"model\": \"%s\", %s\"port\": \"%s\", %s, \"runs\": %zu, \"forward_ms\": %.4f%s, "
            "\"model_bytes\": %llu, \"arena_bytes\": %zu}\n",
            model->path.c_str(), extra.c_str(), k.name,
            json_lengths(tools::family_descriptor(model->family), lengths).c_str(), runs, forward, steps_json.c_str(),
            model_bytes, w.arena);
    } else {
        std::printf("model %s, port %s, %s, median of %zu runs\n", model->path.c_str(), k.name, lengths.text.c_str(),
                    runs);
        const size_t width = std::max(w.forward_label.size(), w.steps_label.size()) + 1;
        std::printf("  %-*s %9.3f ms\n", static_cast<int>(width), (w.forward_label + ":").c_str(), forward);
        if (w.steps) std::printf("  %-*s %9.3f ms\n", static_cast<int>(width), (w.steps_label + ":").c_str(), steps);
        std::printf("  model bytes: %llu, arena bytes: %zu\n", model_bytes, w.arena);
    }
    if (args.has("stages") && !args.has("json")) {
        const Kernels timed = timed_kernels(k);
        const Workload profiled = make_workload(*model, lengths, timed);
        profiled.forward();  // warm-up, not counted
        g_profile.by_kernel.clear();
        g_profile.by_shape.clear();
        double fastest_ms = 1e300;
        auto cpu_ms = [] {
            timespec ts{};
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
            return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
        };
        for (size_t i = 0; i < runs; ++i) {
            const double t0 = cpu_ms();
            profiled.forward();
            const double ms = cpu_ms() - t0;
            fastest_ms = std::min(fastest_ms, ms);
            g_profile.end_pass();
        }
        print_stages(fastest_ms, runs);
    }
    return 0;
}

}  // namespace ax::cli
