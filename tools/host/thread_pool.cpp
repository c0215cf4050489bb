#include "tools/host/thread_pool.h"

#include <chrono>

#if defined(__linux__)
#include <sched.h>
#endif

namespace ax::tools {

namespace {

constexpr uint64_t kTaskBits = 16;
constexpr uint64_t kTaskMask = (uint64_t{1} << kTaskBits) - 1;
// How long an idle worker polls before it sleeps: longer than the gaps between the products of a forward
// pass, short enough not to hold a core when the application is doing something else.
constexpr auto kSpin = std::chrono::microseconds(100);
// How long a spinning thread keeps its core before it starts giving it up now and then (for a thread it may be
// waiting for, on a machine with more runnable threads than cores): longer than the gaps between the products
// of a pass. A yield at once lets any other runnable process (a build, a logger) take the core for a whole
// time slice, milliseconds, in the middle of a pass.
constexpr auto kSpinBeforeYield = std::chrono::microseconds(20);

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    asm volatile("yield");
#endif
}

// The core this thread runs on, or -1 where unknown.
int current_cpu() {
#if defined(__linux__)
    return sched_getcpu();
#else
    return -1;
#endif
}

// Moves this thread off core `cpu` when it is there and may run elsewhere: its affinity without that core
// (the kernel migrates it before the call returns), then its own affinity again, so that the scheduler stays
// free to place it. A worker waiting on the caller's core takes turns with the caller, which then runs every
// task of a call, slower than on its own, while another core idles.
void leave_cpu(int cpu) {
#if defined(__linux__)
    if (cpu < 0 || cpu >= CPU_SETSIZE || sched_getcpu() != cpu) return;
    cpu_set_t own;
    if (sched_getaffinity(0, sizeof own, &own) != 0 || !CPU_ISSET(cpu, &own) || CPU_COUNT(&own) < 2) return;
    cpu_set_t others = own;
    CPU_CLR(cpu, &others);
    if (sched_setaffinity(0, sizeof others, &others) == 0) sched_setaffinity(0, sizeof own, &own);
#else
    (void)cpu;
#endif
}

void run_hook(void* ctx, int n_tasks, ParallelTask task, void* arg) {
    static_cast<ThreadPool*>(ctx)->run(n_tasks, task, arg);
}

}  // namespace

ThreadPool::ThreadPool(size_t threads) {
    for (size_t w = 1; w < threads; ++w) workers_.emplace_back([this] { worker_loop(); });
}

ThreadPool::~ThreadPool() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_.store(true);
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
}

ParallelFor ThreadPool::hook() {
    ParallelFor p;
    p.run = threads() > 1 ? run_hook : nullptr;
    p.ctx = this;
    p.workers = threads();
    return p;
}

void ThreadPool::work(uint64_t call, bool caller) {
    const ParallelTask task = task_.load();
    void* const arg = arg_.load();
    const uint64_t n = static_cast<uint64_t>(n_tasks_.load());
    for (;;) {
        uint64_t word = claim_.load();
        do {
            if (word >> kTaskBits != call || (word & kTaskMask) >= n) return;  // another call, or none left
        } while (!claim_.compare_exchange_weak(word, word + 1));
        if (SplitProfile* const profile = profile_.load(std::memory_order_relaxed)) {
            const uint64_t t0 = profile_now_ns();
            task(arg, static_cast<int>(word & kTaskMask));
            const uint64_t ns = profile_now_ns() - t0;
            profile->task_ns.fetch_add(ns);
            if (caller) profile->caller_task_ns.fetch_add(ns);
        } else {
            task(arg, static_cast<int>(word & kTaskMask));
        }
        finished_.fetch_add(1);
    }
}

void ThreadPool::run(int n_tasks, ParallelTask task, void* arg) {
    if (n_tasks <= 0) return;
    if (workers_.empty() || n_tasks == 1 || static_cast<uint64_t>(n_tasks) > kTaskMask) {
        for (int i = 0; i < n_tasks; ++i) task(arg, i);
        return;
    }
    SplitProfile* const profile = profile_.load(std::memory_order_relaxed);
    const uint64_t started = profile != nullptr ? profile_now_ns() : 0;
    const uint64_t call = ++calls_;
    claim_.store(call << kTaskBits);  // first: closes the previous call to late workers
    task_.store(task);
    arg_.store(arg);
    n_tasks_.store(n_tasks);
    finished_.store(0);
    caller_cpu_.store(current_cpu());
    published_.store(call);
    if (sleepers_.load() > 0) {
        { std::lock_guard<std::mutex> lock(mutex_); }
        wake_.notify_all();
    }
    work(call, true);
    // Only tasks another thread is running are left: wait for them, after a while giving the core up now and
    // then in case that thread is waiting for it.
    std::chrono::steady_clock::time_point yield_after{};
    for (unsigned i = 1; finished_.load() < n_tasks; ++i) {
        cpu_relax();
        if (i % 64 == 0) {
            const auto now = std::chrono::steady_clock::now();
            if (i == 64) yield_after = now + kSpinBeforeYield;
            if (now > yield_after) std::this_thread::yield();
        }
    }
    if (profile != nullptr) {
        profile->steps.fetch_add(1);
        profile->step_ns.fetch_add(profile_now_ns() - started);
    }
}

void ThreadPool::worker_loop() {
    uint64_t seen = 0;
    for (;;) {
        if (published_.load() == seen) {
            const auto start = std::chrono::steady_clock::now();
            const auto yield_after = start + kSpinBeforeYield, until = start + kSpin;
            for (unsigned i = 1; published_.load() == seen; ++i) {
                if (stop_.load()) return;
                cpu_relax();
                if (i % 64 != 0) continue;
                const auto now = std::chrono::steady_clock::now();
                // After a while give the core up now and then: on a machine with more runnable threads than
                // cores, the thread this one waits for may be queued behind it.
                if (now > yield_after) std::this_thread::yield();
                if (i % 256 == 0 && now > until) {
                    std::unique_lock<std::mutex> lock(mutex_);
                    sleepers_.fetch_add(1);
                    wake_.wait(lock, [&] { return stop_.load() || published_.load() != seen; });
                    sleepers_.fetch_sub(1);
                }
            }
        }
        if (stop_.load()) return;
        seen = published_.load();
        if (current_cpu() == caller_cpu_.load()) leave_cpu(caller_cpu_.load());
        work(seen, false);
    }
}

namespace {

std::unique_ptr<ThreadPool>& host_pool() {
    static std::unique_ptr<ThreadPool> pool;
    return pool;
}

}  // namespace

void set_host_threads(size_t threads) {
    if (threads <= 1) {
        host_pool().reset();
        return;
    }
    if (host_pool() && host_pool()->threads() == threads) return;
    host_pool() = std::make_unique<ThreadPool>(threads);
}

size_t host_threads() { return host_pool() ? host_pool()->threads() : 1; }

namespace {

std::unique_ptr<ParallelFor>& host_hook() {
    static std::unique_ptr<ParallelFor> hook;
    return hook;
}

}  // namespace

void set_host_hook(const ParallelFor* hook) { host_hook() = hook ? std::make_unique<ParallelFor>(*hook) : nullptr; }

ParallelFor host_parallel() {
    if (host_hook()) return *host_hook();
    return host_pool() ? host_pool()->hook() : ParallelFor{};
}

}  // namespace ax::tools
