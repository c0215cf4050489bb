// bench --threads's account of a threaded pass (tools/host/split_breakdown.h): its counts are exact and its
// times add up, on passes of known split steps.
#include <doctest/doctest.h>

#include <atomic>
#include <string>

#include "tools/host/split_breakdown.h"
#include "tools/host/split_profile.h"
#include "tools/host/thread_pool.h"

namespace {

std::atomic<unsigned> g_sink{0};

// Some work a task does: a few microseconds of a dependent chain.
void busy_task(void*, int index) {
    unsigned v = static_cast<unsigned>(index) + 1;
    for (int i = 0; i < 20000; ++i) v = v * 1664525u + 1013904223u;
    g_sink.fetch_add(v);
}

// A pass of three split steps of `tasks` tasks through `p`, with some work outside them.
void pass(const ax::ParallelFor& p, int tasks) {
    for (int step = 0; step < 3; ++step) {
        p.run(p.ctx, tasks, busy_task, nullptr);
        busy_task(nullptr, step);
    }
}

}  // namespace

TEST_CASE("split profile: a pass's split steps are counted and its times add up, on a pool and in turn") {
    ax::tools::ThreadPool pool(2);
    const ax::ParallelFor pooled = pool.hook();
    ax::tools::SplitProfile in_turn_profile;
    const ax::ParallelFor in_turn = ax::tools::serial_hook(2, &in_turn_profile);
    CHECK(in_turn.workers == 2);
    const ax::tools::SplitBreakdown b = ax::tools::measure_split_breakdown(
        [&] { pass(pooled, 2); }, pool, [&] { pass(in_turn, 2); }, in_turn_profile, 5, 2, 1.0);
    CHECK(b.threads == 2);
    CHECK(b.one_ms == 1.0);
    CHECK(b.steps == 3);
    // Each step's tasks ran inside it, on at most two threads; the rest of a pass is outside the steps.
    CHECK(b.steps_ms > 0);
    CHECK(b.steps_ms <= b.pass_ms);
    CHECK(b.busy > 0);
    CHECK(b.busy <= 1.0);
    // The calling thread ran tasks of every step (it claims as the workers do); the busy shares average out.
    CHECK(b.caller_busy > 0);
    CHECK(b.caller_busy <= 1.0);
    CHECK(b.others_busy >= 0);
    CHECK(b.others_busy <= 1.0);
    // In turn, every task ran on the calling thread.
    CHECK(in_turn_profile.task_ns.load() > 0);
    CHECK(in_turn_profile.caller_task_ns.load() == in_turn_profile.task_ns.load());
    CHECK(b.outside_ms > 0);
    CHECK(b.in_turn_steps_ms > 0);
    CHECK(b.in_turn_steps_ms <= b.in_turn_ms);
    // The pool records while a profile is set and stops when it is cleared.
    ax::tools::SplitProfile direct;
    pool.set_profile(&direct);
    pass(pooled, 2);
    CHECK(direct.steps.load() == 3);
    CHECK(direct.task_ns.load() > 0);
    CHECK(direct.task_ns.load() <= 2 * direct.step_ns.load());
    CHECK(direct.caller_task_ns.load() > 0);
    CHECK(direct.caller_task_ns.load() <= direct.task_ns.load());
    CHECK(direct.caller_task_ns.load() <= direct.step_ns.load());
    pool.set_profile(nullptr);
    pass(pooled, 2);
    CHECK(direct.steps.load() == 3);
    const std::string json = ax::tools::split_breakdown_json(b);
    for (const char* key :
         {"\"split_steps\": 3", "\"in_turn_ms\"", "\"tasks_ms\"", "\"busy\"", "\"caller_busy\"", "\"others_busy\""})
        CHECK_MESSAGE(json.find(key) != std::string::npos, key << " in " << json);
}
