#include "tools/host/split_profile.h"

#include <chrono>

namespace ax::tools {

uint64_t profile_now_ns() {
    return static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
            .count());
}

namespace {

void run_in_turn(void* ctx, int n_tasks, ParallelTask task, void* arg) {
    SplitProfile& p = *static_cast<SplitProfile*>(ctx);
    const uint64_t t0 = profile_now_ns();
    for (int i = 0; i < n_tasks; ++i) task(arg, i);
    const uint64_t ns = profile_now_ns() - t0;
    p.steps.fetch_add(1);
    p.step_ns.fetch_add(ns);
    p.task_ns.fetch_add(ns);
    p.caller_task_ns.fetch_add(ns);
}

}  // namespace

ParallelFor serial_hook(size_t workers, SplitProfile* profile) {
    ParallelFor p;
    p.run = run_in_turn;
    p.ctx = profile;
    p.workers = workers;
    return p;
}

}  // namespace ax::tools
