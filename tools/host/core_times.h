// One-thread passes held on each core in turn. On a machine whose cores run at different speeds (big and
// little cores, a shared virtual machine whose virtual cores the host slows by turns), a one-thread time is
// the time on whichever core the thread landed, and a speed-up over it says as much about that core as about
// the threads: bench --threads also gives the one-thread pass on each core and the speed-ups over the fastest.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

namespace ax::tools {

struct CoreTime {
    int core = -1;
    double ms = 0;  // the median of the timed passes on that core
};

// The cores the calling thread may run on (Linux; elsewhere none: the pass cannot be held on a core).
std::vector<int> allowed_cores();

// `pass` timed `runs` times on each of `cores` (at most kMaxCores of them), the calling thread held on one core
// at a time, the cores in turn within each round (so that a change in the machine reaches them alike), each
// timed pass after an untimed one on the same core. The thread's affinity is restored after every pass. Empty
// when the thread cannot be held on a core.
constexpr size_t kMaxCores = 16;
std::vector<CoreTime> time_on_each_core(const std::function<void()>& pass, const std::vector<int>& cores, size_t runs);

}  // namespace ax::tools
