// Where a threaded pass's time goes: its split steps (the hook's calls) timed, and the time of their tasks
// summed over the threads. bench --threads compares a pass on the pool with the same split steps run in turn
// on one thread (serial_hook), which separates the work the split adds (every worker reading all of a
// layer's weights, products of fewer rows), the threads slowing each other (shared caches, data written on
// one core and read on another), and the time threads wait (the slower task of a step, the hand-offs).
#pragma once
#include <atomic>
#include <cstdint>

#include "runtime/parallel.h"

namespace ax::tools {

struct SplitProfile {
    std::atomic<uint64_t> steps{0};           // calls of the hook
    std::atomic<uint64_t> step_ns{0};         // their wall time, from the call to its return
    std::atomic<uint64_t> task_ns{0};         // their tasks' time, summed over the threads
    std::atomic<uint64_t> caller_task_ns{0};  // the part of it on the calling thread (the rest: the pool's workers)

    void reset() {
        steps.store(0);
        step_ns.store(0);
        task_ns.store(0);
        caller_task_ns.store(0);
    }
};

// Nanoseconds on a steady clock, for the recorders.
uint64_t profile_now_ns();

// A hook of `workers` workers (the session plans for that many) that runs every task in turn on the calling
// thread, timing the calls into `profile`.
ParallelFor serial_hook(size_t workers, SplitProfile* profile);

}  // namespace ax::tools
