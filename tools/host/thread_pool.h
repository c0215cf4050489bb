// The host's parallel-for (runtime/parallel.h): a small pool of threads that runs a session's tasks. The
// calling thread takes part as worker 0; worker w runs tasks w, w + threads, ... of each call. Idle workers
// spin briefly (the tasks of one forward pass come microseconds apart) and then sleep.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/parallel.h"

namespace ax::tools {

class ThreadPool {
public:
    explicit ThreadPool(size_t threads);  // threads >= 1, the calling thread included
    ~ThreadPool();
    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    size_t threads() const { return workers_.size() + 1; }
    // The hook a session takes: runs tasks on this pool, at most threads() per call.
    ParallelFor hook();
    // task(arg, i) for every i in [0, n_tasks); returns when all have returned. One caller at a time.
    void run(int n_tasks, ParallelTask task, void* arg);

private:
    struct alignas(64) Slot {
        std::atomic<uint64_t> done{0};  // the last call this worker finished its tasks of
    };
    void work(size_t w, uint64_t call);
    void worker_loop(size_t w);

    // The current call: its number and task count in one word, so that a worker that has no task in it never
    // reads the other fields (which the next call may be writing).
    std::atomic<uint64_t> call_{0};  // (call number << 16) | n_tasks
    ParallelTask task_ = nullptr;
    void* arg_ = nullptr;
    int n_tasks_ = 0;
    std::unique_ptr<Slot[]> slots_;
    std::atomic<int> sleepers_{0};
    std::atomic<bool> stop_{false};
    std::mutex mutex_;
    std::condition_variable wake_;
    std::vector<std::thread> workers_;
};

// The host sessions' threads (the CLI's --threads): 1, the default, runs every session on the calling thread;
// more starts a pool shared by the sessions opened afterwards.
void set_host_threads(size_t threads);
size_t host_threads();
// A hook of the caller's own in place of the pool for the sessions opened afterwards (nullptr: the pool
// again): tests run sessions with hooks that order or place tasks differently.
void set_host_hook(const ParallelFor* hook);
// The hook host sessions take: set_host_hook's, else the pool's, else none for one thread.
ParallelFor host_parallel();

}  // namespace ax::tools
