#include "tools/host/split_breakdown.h"

#include "tools/host/median.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace ax::tools {

namespace {

struct Sample {
    std::vector<double> pass_ms, steps, steps_ms, tasks_ms, outside_ms, busy, caller_busy, others_busy;
};

// One untimed pass and one timed, recorded into `profile` (reset first).
void sample(const std::function<void()>& pass, SplitProfile& profile, size_t threads, Sample& s) {
    pass();
    profile.reset();
    const auto t0 = std::chrono::steady_clock::now();
    pass();
    s.pass_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    s.steps.push_back(static_cast<double>(profile.steps.load()));
    s.steps_ms.push_back(static_cast<double>(profile.step_ns.load()) * 1e-6);
    s.tasks_ms.push_back(static_cast<double>(profile.task_ns.load()) * 1e-6);
    s.outside_ms.push_back(std::max(0.0, s.pass_ms.back() - s.steps_ms.back()));
    const double steps_ms = s.steps_ms.back();
    const double caller_ms = static_cast<double>(profile.caller_task_ns.load()) * 1e-6;
    s.busy.push_back(steps_ms > 0 ? s.tasks_ms.back() / (static_cast<double>(threads) * steps_ms) : 0.0);
    s.caller_busy.push_back(steps_ms > 0 ? caller_ms / steps_ms : 0.0);
    s.others_busy.push_back(steps_ms > 0 && threads > 1
                                ? (s.tasks_ms.back() - caller_ms) / (static_cast<double>(threads - 1) * steps_ms)
                                : 0.0);
}

}  // namespace

SplitBreakdown measure_split_breakdown(const std::function<void()>& pooled, ThreadPool& pool,
                                       const std::function<void()>& in_turn, SplitProfile& in_turn_profile, size_t runs,
                                       size_t threads, double one_ms) {
    SplitProfile pool_profile;
    pool.set_profile(&pool_profile);
    Sample p, t;
    for (size_t i = 0; i < runs; ++i) {
        sample(pooled, pool_profile, threads, p);
        sample(in_turn, in_turn_profile, 1, t);
    }
    pool.set_profile(nullptr);
    SplitBreakdown b;
    b.threads = threads;
    b.one_ms = one_ms;
    b.in_turn_ms = median(t.pass_ms);
    b.in_turn_steps_ms = median(t.steps_ms);
    b.pass_ms = median(p.pass_ms);
    b.steps = median(p.steps);
    b.steps_ms = median(p.steps_ms);
    b.tasks_ms = median(p.tasks_ms);
    b.outside_ms = median(p.outside_ms);
    b.busy = median(p.busy);
    b.caller_busy = median(p.caller_busy);
    b.others_busy = median(p.others_busy);
    return b;
}

void print_split_breakdown(const SplitBreakdown& b, const std::string& forward_label) {
    if (b.steps == 0 || b.one_ms <= 0 || b.in_turn_steps_ms <= 0 || b.steps_ms <= 0) {
        std::printf("  the %s splits no step over %zu threads\n", forward_label.c_str(), b.threads);
        return;
    }
    std::printf("  where the %s goes on %zu threads (more runs, medians):\n", forward_label.c_str(), b.threads);
    std::printf(
        "    its split steps run in turn on one thread: %.3f ms, %.2fx the one-thread pass (work the split adds:\n"
        "      every worker reading all of a layer's weights, products of fewer rows)\n",
        b.in_turn_ms, b.in_turn_ms / b.one_ms);
    std::printf("    on %zu threads: %.3f ms, %.0f split steps taking %.3f ms and %.3f ms outside them\n", b.threads,
                b.pass_ms, b.steps, b.steps_ms, b.outside_ms);
    std::printf(
        "    the steps' tasks: %.3f ms summed over the threads, %.2fx the same steps in turn on one thread\n"
        "      (%.3f ms: the threads slowing each other, data written on one core and read on another)\n",
        b.tasks_ms, b.tasks_ms / b.in_turn_steps_ms, b.in_turn_steps_ms);
    std::printf(
        "    the threads busy %.0f%% of the steps' time (the rest: waiting for a step's slower task, hand-offs):\n"
        "      the calling thread %.0f%%, the %s %.0f%% (the less busy waited for the other: a faster core,\n"
        "      smaller tasks, or it reached the steps late)\n",
        100.0 * b.busy, 100.0 * b.caller_busy, b.threads > 2 ? "other threads on average" : "other thread",
        100.0 * b.others_busy);
}

std::string split_breakdown_json(const SplitBreakdown& b) {
    char text[640];
    std::snprintf(text, sizeof text,
                  "{\"threads\": %zu, \"one_thread_ms\": %.6f, \"in_turn_ms\": %.6f, \"in_turn_steps_ms\": %.6f, "
                  "\"forward_ms\": %.6f, \"split_steps\": %.0f, \"steps_ms\": %.6f, \"tasks_ms\": %.6f, "
                  "\"outside_ms\": %.6f, \"busy\": %.4f, \"caller_busy\": %.4f, \"others_busy\": %.4f}",
                  b.threads, b.one_ms, b.in_turn_ms, b.in_turn_steps_ms, b.pass_ms, b.steps, b.steps_ms, b.tasks_ms,
                  b.outside_ms, b.busy, b.caller_busy, b.others_busy);
    return text;
}

}  // namespace ax::tools
