// bench --threads's one-thread pass held on each core in turn (tools/host/core_times.h): one time per core the
// thread may run on, each pass run on its core, and the thread's own affinity back afterwards.
#include <doctest/doctest.h>

#include <atomic>
#include <set>

#include "tools/host/core_times.h"

#if defined(__linux__)
#include <sched.h>
#endif

TEST_CASE("core times: a pass timed on each allowed core, on that core, the affinity restored") {
    const std::vector<int> cores = ax::tools::allowed_cores();
#if defined(__linux__)
    REQUIRE(!cores.empty());
    cpu_set_t before;
    REQUIRE(sched_getaffinity(0, sizeof before, &before) == 0);
    if (sched_setaffinity(0, sizeof before, &before) != 0) {
        MESSAGE("skipped: this environment does not let a thread set its own affinity");
        return;
    }
    std::set<int> seen;
    std::atomic<unsigned> sink{0};
    const auto pass = [&] {
        seen.insert(sched_getcpu());
        unsigned v = 1;
        for (int i = 0; i < 20000; ++i) v = v * 1664525u + 1013904223u;
        sink.fetch_add(v);
    };
    const std::vector<ax::tools::CoreTime> times = ax::tools::time_on_each_core(pass, cores, 3);
    const size_t expected = cores.size() < ax::tools::kMaxCores ? cores.size() : ax::tools::kMaxCores;
    REQUIRE(times.size() == expected);
    for (size_t i = 0; i < times.size(); ++i) {
        CHECK(times[i].core == cores[i]);
        CHECK(times[i].ms > 0);
        CHECK(seen.count(cores[i]) == 1);  // the pass ran on that core
    }
    CHECK(seen.size() == expected);  // and on no other
    cpu_set_t after;
    REQUIRE(sched_getaffinity(0, sizeof after, &after) == 0);
    CHECK(CPU_EQUAL(&before, &after));
#else
    CHECK(cores.empty());
    CHECK(ax::tools::time_on_each_core([] {}, cores, 3).empty());
#endif
}
