// The host's parallel-for (runtime/parallel.h): a small pool of threads that runs a session's tasks. The
// calling thread takes part: every thread claims the next task of the call until none is left, so a worker
// the OS has not scheduled yet costs nothing (the others take its share) and the caller only ever waits for
// tasks already running. Idle workers poll briefly (the tasks of one forward pass come microseconds apart)
// and then sleep. A worker that finds itself on the caller's core (Linux: the scheduler may wake it there, and on
// a virtual machine leave it there for milliseconds while another core idles, each thread then taking turns
// at one core) moves itself off it.
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
#include "tools/host/split_profile.h"

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
    // Times every call and task into `profile` from now on (nullptr: no more). Not while a call runs.
    void set_profile(SplitProfile* profile) { profile_.store(profile); }

private:
    void work(uint64_t call, bool caller);  // caller: the thread in run(), for the profile
    void worker_loop();

    // The current call. claim_ holds the call's number and its next unclaimed task, (call << 16) | task: a
    // worker late for a call cannot claim a task of the next one. The fields are atomics because such a
    // worker may read them while the next call writes them; its claim then fails and it uses none of them.
    uint64_t calls_ = 0;  // the caller's count
    std::atomic<uint64_t> claim_{0};
    std::atomic<uint64_t> published_{0};  // the number of the call workers should join
    std::atomic<ParallelTask> task_{nullptr};
    std::atomic<void*> arg_{nullptr};
    std::atomic<int> n_tasks_{0};
    std::atomic<int> finished_{0};
    std::atomic<int> sleepers_{0};
    std::atomic<int> caller_cpu_{-1};  // the core the caller published the current call from, where known
    std::atomic<bool> stop_{false};
    std::atomic<SplitProfile*> profile_{nullptr};
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
