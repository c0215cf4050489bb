// Work split over the application's threads without the runtime owning any: a session takes an optional
// parallel-for hook (a plain function pointer and context, so a C application, an RTOS or a thread pool can
// provide it) and hands it tasks. Without one, or for work too small to pay for a hand-off, the tasks run in
// turn on the calling thread. Each output value is computed by exactly one task, in the order a single thread
// computes it, so results are the same bits for every number of workers.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

// Runs task(arg, i) once for every i in [0, n_tasks), in any order and on any threads, and returns when
// every call has returned. Task i may use per-worker scratch slot i: a session never asks for more tasks
// at once than the workers it was planned for. A task splits no work again (the calls it makes run with no
// hook), which also bounds its stack (tools/stack).
using ParallelTask = void (*)(void* arg, int index);
using ParallelForFn = void (*)(void* ctx, int n_tasks, ParallelTask task, void* arg);

struct ParallelFor {
    ParallelForFn run = nullptr;  // null: every task on the calling thread
    void* ctx = nullptr;
    size_t workers = 1;  // tasks at most per call; the session's plan holds scratch for this many
    // The least work (multiply-adds) worth a task of its own; 0: the runtime's default, which keeps small
    // products on the calling thread (a hand-off costs microseconds). Tests set 1 to split everything.
    uint64_t min_task_macs = 0;

    bool threaded() const { return run != nullptr && workers > 1; }
};

// task(arg, i) for i in [0, n_tasks): through the hook when there is one and more than one task.
void parallel_run(const ParallelFor& p, size_t n_tasks, ParallelTask task, void* arg);

}  // namespace ax
