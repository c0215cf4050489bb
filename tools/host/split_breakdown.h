// bench --threads: where the threaded forward pass's time goes (tools/host/split_profile.h).
#pragma once
#include <cstddef>
#include <functional>
#include <string>

#include "tools/host/split_profile.h"
#include "tools/host/thread_pool.h"

namespace ax::tools {

// Medians over the runs, per forward pass.
struct SplitBreakdown {
    size_t threads = 0;
    double one_ms = 0;            // the one-thread pass (the table's)
    double in_turn_ms = 0;        // the pass with its split steps run in turn on one thread
    double in_turn_steps_ms = 0;  // those steps' time in it
    double pass_ms = 0;           // the pass on the pool
    double steps = 0;             // split steps a pass
    double steps_ms = 0;          // their wall time on the pool
    double tasks_ms = 0;          // their tasks' time summed over the threads
    double outside_ms = 0;        // the pass outside its split steps (the median of each run's)
    double busy = 0;              // tasks_ms over threads x steps_ms (the median of each run's)
    double caller_busy = 0;       // the calling thread's tasks over steps_ms (the median of each run's)
    double others_busy = 0;       // the other threads' tasks over (threads - 1) x steps_ms (the same)
};

// `runs` passes of each, interleaved, each timed pass after an untimed one: `pooled` on `pool`, and `in_turn` on a
// session whose hook (serial_hook) records into `in_turn_profile`.
SplitBreakdown measure_split_breakdown(const std::function<void()>& pooled, ThreadPool& pool,
                                       const std::function<void()>& in_turn, SplitProfile& in_turn_profile, size_t runs,
                                       size_t threads, double one_ms);

void print_split_breakdown(const SplitBreakdown& b, const std::string& forward_label);
std::string split_breakdown_json(const SplitBreakdown& b);

}  // namespace ax::tools
