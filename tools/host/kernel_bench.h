// `auspex bench --kernels`: the speed of every kernel port this build and CPU can run.
#pragma once
#include <cstddef>
#include <string>

namespace ax::tools {

// Times linear_f32 / linear_f16 (GFLOP/s) and linear_i8 / linear_i4 (GOP/s), 2 * rows * in * out operations each,
// on layer shapes of the forecasters (batched rows and single-row GEMV), plus quantize, dot, softmax,
// layer_norm and gelu throughput, for every available port: the median of repeated runs after a warm-up.
// On x86 with AVX2 it also measures the single-core AVX2 FMA peak (independent FMAs in registers) and
// the clock, and reports each float product as a fraction of that peak. Returns a readable table, or
// JSON when `json`. A benchmark, not a test: it never judges the numbers.
std::string run_kernel_bench(bool json);

// How many times one thread's floating-point work `threads` threads get done at once on this machine as it is
// now: an FMA loop in registers on one thread, then on `threads` at once (the slowest counting). Below
// `threads` where cores are shared with other processes or are SMT siblings: the most a session's threads can
// gain. 1 for one thread; 0 where not measured (no AVX2 or NEON).
double thread_fma_ceiling(unsigned threads);

// The same for reading memory: `bytes` (a model's weights) read over and over by one thread, then by `threads`
// threads at once, each its own share, as a pass split over them reads the weights. Where the bytes do not
// fit the caches the threads share the memory's bandwidth, and a pass that streams its weights gains no more
// than this. 1 for one thread.
double thread_read_ceiling(unsigned threads, size_t bytes);

// Nanoseconds for one step split over `threads` threads of the host's pool (tools/host/thread_pool.h) with
// nothing to do: a task handed to each thread and every one seen to end, the median of 5 rounds of up to 1000
// steps with the workers polling. The least every split step of a pass pays: from a few hundred nanoseconds
// between cores that share a cache to microseconds across sockets or between virtual CPUs on other cores
// of their host, where a step of a few microseconds gains nothing from threads. 0 for fewer than 2.
double thread_split_step_ns(unsigned threads);

}  // namespace ax::tools
