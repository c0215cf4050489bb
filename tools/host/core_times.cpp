#include "tools/host/core_times.h"

#include "tools/host/median.h"

#include <algorithm>
#include <chrono>

#if defined(__linux__)
#include <sched.h>
#endif

namespace ax::tools {

namespace {

#if defined(__linux__)
// Holds the calling thread on one core while it lives, then gives it its own affinity back.
class HeldOnCore {
public:
    explicit HeldOnCore(int core) {
        if (core < 0 || core >= CPU_SETSIZE || sched_getaffinity(0, sizeof own_, &own_) != 0) return;
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(core, &one);
        held_ = sched_setaffinity(0, sizeof one, &one) == 0;
    }
    ~HeldOnCore() {
        if (held_) sched_setaffinity(0, sizeof own_, &own_);
    }
    HeldOnCore(const HeldOnCore&) = delete;
    HeldOnCore& operator=(const HeldOnCore&) = delete;
    bool held() const { return held_; }

private:
    cpu_set_t own_{};
    bool held_ = false;
};
#endif

}  // namespace

std::vector<int> allowed_cores() {
    std::vector<int> cores;
#if defined(__linux__)
    cpu_set_t own;
    if (sched_getaffinity(0, sizeof own, &own) != 0) return cores;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &own)) cores.push_back(c);
#endif
    return cores;
}

std::vector<CoreTime> time_on_each_core(const std::function<void()>& pass, const std::vector<int>& cores, size_t runs) {
    std::vector<CoreTime> result;
#if defined(__linux__)
    const size_t n = std::min(cores.size(), kMaxCores);
    std::vector<std::vector<double>> times(n);
    for (size_t i = 0; i < runs; ++i)
        for (size_t c = 0; c < n; ++c) {
            HeldOnCore held(cores[c]);
            if (!held.held()) return {};
            pass();
            const auto t0 = std::chrono::steady_clock::now();
            pass();
            times[c].push_back(
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
    for (size_t c = 0; c < n; ++c) result.push_back(CoreTime{cores[c], median(times[c])});
#else
    (void)pass;
    (void)cores;
    (void)runs;
#endif
    return result;
}

}  // namespace ax::tools
