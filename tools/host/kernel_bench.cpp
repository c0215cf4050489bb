#include "tools/host/kernel_bench.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "ports/ports.h"
#include "runtime/half.h"
#include "tools/common/aligned_buffer.h"
#include "tools/host/median.h"
#include "tools/host/thread_pool.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define AX_BENCH_X86 1
#include <immintrin.h>
#elif defined(__ARM_NEON) && (defined(__GNUC__) || defined(__clang__))
#define AX_BENCH_NEON 1
#include <arm_neon.h>
#endif

namespace ax::tools {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// Median time of one call of f in nanoseconds: warm-up (at least 2 calls and 20 ms), then `samples`
// samples, each repeating f enough times to last about 1 ms. Short samples and the median keep the
// figure honest on a loaded machine: a sample the scheduler interrupts is an outlier, not the answer.
constexpr int kSamples = 15;

template <class F>
double median_ns(F&& f, int samples = kSamples) {
    const Clock::time_point t0 = Clock::now();
    int calls = 0;
    do {
        f();
        ++calls;
    } while (calls < 2 || seconds_since(t0) < 0.02);
    const double per_call = seconds_since(t0) / calls;
    const long reps = std::max(1L, static_cast<long>(std::ceil(1e-3 / per_call)));
    std::vector<double> times;
    for (int s = 0; s < samples; ++s) {
        const Clock::time_point t = Clock::now();
        for (long r = 0; r < reps; ++r) f();
        times.push_back(seconds_since(t) * 1e9 / static_cast<double>(reps));
    }
    return median(times);
}

// Deterministic data (xorshift64*), uniform in [-scale, scale).
struct Rng {
    uint64_t s = 0x2545F4914F6CDD1Dull;
    float uniform(float scale) {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        const uint64_t v = s * 0x2545F4914F6CDD1Dull;
        return (static_cast<float>(v >> 40) * (2.0f / 16777216.0f) - 1.0f) * scale;
    }
};

// Typed view of a 64-byte aligned heap buffer, as model tensors are aligned in a .axm file.
template <class T>
struct Array {
    AlignedBuffer buf;
    size_t n;
    explicit Array(size_t n_) : buf(n_ * sizeof(T)), n(n_) {}
    T* data() { return reinterpret_cast<T*>(buf.data()); }
    T& operator[](size_t i) { return data()[i]; }
};

Array<float> random_floats(Rng& rng, size_t n, float scale) {
    Array<float> a(n);
    for (size_t i = 0; i < n; ++i) a[i] = rng.uniform(scale);
    return a;
}

// One table entry timed: its name in runtime/kernels.h and the median time of a call with `args` (after
// `prepare`, whose own time the caller takes off), so a row's label is always the kernel it timed.
struct Timing {
    const char* kernel;
    double ns;
};

template <auto entry, class Prepare, class... A>
Timing time_entry_after(const Kernels& k, Prepare&& prepare, A... args) {
    return Timing{kernel_name<entry>(), median_ns([&] {
                      prepare();
                      (k.*entry)(args...);
                  })};
}

template <auto entry, class... A>
Timing time_entry(const Kernels& k, A... args) {
    return time_entry_after<entry>(
        k, [] {}, args...);
}

// ---- the machine's single-core AVX2 peak ----

struct Peak {
    bool valid = false;
    double fma_gflops = 0;     // measured: independent FMAs in registers
    double clock_ghz = 0;      // measured: a chain of dependent integer adds, one per cycle
    double theory_gflops = 0;  // 2 FMA units * 8 floats * 2 flops * clock
    // measured: independent vpmaddwd + vpaddd pairs, the exact int8 multiply-add of plain AVX2 (16
    // products and their sums per pair, counted as 2 ops each like a GEMM's)
    double madd_gops = 0;
    // The widest float FMA of the CPU where it is wider than AVX2 or not x86, measured the same way: 512-bit
    // FMAs where the CPU has AVX-512 (the avx512 ports' float products are a fraction of it), 128-bit NEON
    // FMAs on ARM (the neon port's). 0: none.
    double wide_gflops = 0;
    const char* wide_name = nullptr;  // "AVX-512", "NEON"
    // The AVX2 FMA loop on every hardware thread at once, total: the most a session's threads can gain on
    // this machine as it is now (cores shared with other processes, or SMT siblings, give less than
    // threads x fma_gflops). 0: not measured (one hardware thread).
    unsigned threads = 1;
    double fma_all_threads_gflops = 0;
};

// Whether a port's float products run on the wide FMAs: "avx512" (ZMM) and "neon"; "avx512-256" keeps the
// AVX2 float kernels.
bool uses_wide_fma(const Peak& peak, const std::string& port) {
    return peak.wide_gflops > 0 && (port == "avx512" || port == "neon");
}

// Which measured peak a port's float products are a fraction of.
double float_peak(const Peak& peak, const std::string& port) {
    if (uses_wide_fma(peak, port)) return peak.wide_gflops;
    return peak.valid ? peak.fma_gflops : 0;
}

// Wall time of `threads` threads each running loop() once (loop(t) on thread t when it takes the index), the
// slowest counting (median of 5 rounds).
template <class F>
double team_ns(unsigned threads, F&& loop) {
    std::vector<double> ns;
    for (int round = 0; round < 5; ++round) {
        const Clock::time_point t0 = Clock::now();
        std::vector<std::thread> team;
        for (unsigned t = 0; t < threads; ++t) {
            if constexpr (std::is_invocable<F&, unsigned>::value)
                team.emplace_back([&loop, t] { loop(t); });
            else
                team.emplace_back(loop);
        }
        for (std::thread& t : team) t.join();
        ns.push_back(seconds_since(t0) * 1e9);
    }
    return median(ns);
}

// About 6 ms a thread of an FMA loop: thread start-up is noise.
volatile long team_iterations = 4000000;

#if defined(AX_BENCH_X86)
// 12 independent accumulators, more than FMA latency x FMA units on any AVX2 or AVX-512 core, so the FMA
// units never wait. The asm statement is opaque to the optimiser (no instruction): it may neither fold a
// chain that reaches a fixed point nor merge chains, so the loop runs exactly 12 FMAs per iteration.
// V: the vector type; P: its intrinsics' prefix (_mm256, _mm512); R: the asm register constraint.
#define AX_FMA_CHAINS(V, P, R)                                                                              \
    const V m = P##_set1_ps(0.999999f), c = P##_set1_ps(1e-6f);                                             \
    V a0 = P##_set1_ps(1.00f), a1 = P##_set1_ps(1.01f), a2 = P##_set1_ps(1.02f), a3 = P##_set1_ps(1.03f),   \
      a4 = P##_set1_ps(1.04f), a5 = P##_set1_ps(1.05f), a6 = P##_set1_ps(1.06f), a7 = P##_set1_ps(1.07f),   \
      a8 = P##_set1_ps(1.08f), a9 = P##_set1_ps(1.09f), a10 = P##_set1_ps(1.10f), a11 = P##_set1_ps(1.11f); \
    for (long i = 0; i < iterations; ++i) {                                                                 \
        a0 = P##_fmadd_ps(a0, m, c);                                                                        \
        a1 = P##_fmadd_ps(a1, m, c);                                                                        \
        a2 = P##_fmadd_ps(a2, m, c);                                                                        \
        a3 = P##_fmadd_ps(a3, m, c);                                                                        \
        a4 = P##_fmadd_ps(a4, m, c);                                                                        \
        a5 = P##_fmadd_ps(a5, m, c);                                                                        \
        a6 = P##_fmadd_ps(a6, m, c);                                                                        \
        a7 = P##_fmadd_ps(a7, m, c);                                                                        \
        a8 = P##_fmadd_ps(a8, m, c);                                                                        \
        a9 = P##_fmadd_ps(a9, m, c);                                                                        \
        a10 = P##_fmadd_ps(a10, m, c);                                                                      \
        a11 = P##_fmadd_ps(a11, m, c);                                                                      \
        __asm__("" : R(a0), R(a1), R(a2), R(a3), R(a4), R(a5), R(a6), R(a7), R(a8), R(a9), R(a10), R(a11)); \
    }                                                                                                       \
    const V s = P##_add_ps(P##_add_ps(P##_add_ps(P##_add_ps(a0, a1), P##_add_ps(a2, a3)),                   \
                                      P##_add_ps(P##_add_ps(a4, a5), P##_add_ps(a6, a7))),                  \
                           P##_add_ps(P##_add_ps(a8, a9), P##_add_ps(a10, a11)));                           \
    alignas(64) float out[sizeof(V) / sizeof(float)];                                                       \
    P##_store_ps(out, s);                                                                                   \
    return out[0];

// flops = iterations * 12 * 8 * 2.
__attribute__((target("avx2,fma"))) float fma_loop(long iterations) { AX_FMA_CHAINS(__m256, _mm256, "+x") }

// The same with 512-bit registers: flops = iterations * 12 * 16 * 2. Only called on a CPU with AVX-512F.
__attribute__((target("avx512f"))) float fma512_loop(long iterations) { AX_FMA_CHAINS(__m512, _mm512, "+v") }
#undef AX_FMA_CHAINS

// The int8 product's inner step on plain AVX2 (ports/x86/linear_i8_packed.h): acc += madd(x, w), with
// 12 independent accumulators; ops = iterations * 12 * 16 * 2. No exact int8 product on AVX2 needs fewer
// instructions per multiply-add (vpmaddubsw needs a sign fix-up and a widening madd of its own), so its
// ratio to fma_loop bounds what linear_i8 can gain over linear_f32 there.
long madd_loop(long iterations) {
    // Fixed registers in one asm loop: written in C++, the compiler computes the 12 equal products once.
    // ymm0-11 accumulate, ymm12/13 hold the operands, ymm14/15 take the products in turn.
    long n = iterations;
#define AX_MADD_STEP(acc, tmp) \
    "vpmaddwd %%ymm13, %%ymm12, %%ymm" #tmp "\n\tvpaddd %%ymm" #tmp ", %%ymm" #acc ", %%ymm" #acc "\n\t"
    __asm__ volatile(
        "vpxor %%ymm0, %%ymm0, %%ymm0\n\tvmovdqa %%ymm0, %%ymm1\n\tvmovdqa %%ymm0, %%ymm2\n\t"
        "vmovdqa %%ymm0, %%ymm3\n\tvmovdqa %%ymm0, %%ymm4\n\tvmovdqa %%ymm0, %%ymm5\n\t"
        "vmovdqa %%ymm0, %%ymm6\n\tvmovdqa %%ymm0, %%ymm7\n\tvmovdqa %%ymm0, %%ymm8\n\t"
        "vmovdqa %%ymm0, %%ymm9\n\tvmovdqa %%ymm0, %%ymm10\n\tvmovdqa %%ymm0, %%ymm11\n\t"
        "vpcmpeqd %%ymm12, %%ymm12, %%ymm12\n\tvpabsw %%ymm12, %%ymm13\n\t"
        "1:\n\t" AX_MADD_STEP(0, 14) AX_MADD_STEP(1, 15) AX_MADD_STEP(2, 14) AX_MADD_STEP(3, 15) AX_MADD_STEP(4, 14)
            AX_MADD_STEP(5, 15) AX_MADD_STEP(6, 14) AX_MADD_STEP(7, 15) AX_MADD_STEP(8, 14) AX_MADD_STEP(9, 15)
                AX_MADD_STEP(10, 14) AX_MADD_STEP(11, 15) "dec %0\n\tjnz 1b\n\tvzeroupper"
        : "+r"(n)
        :
        : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
          "xmm13", "xmm14", "xmm15", "cc");
#undef AX_MADD_STEP
    return n;
}

// 16 dependent register-register adds per iteration: 16 cycles on any x86 core of the last 20 years (the
// loop counter runs beside them).
long add_chain(long iterations) {
    long x = 0;
    const long one = 1;
    for (long i = 0; i < iterations; ++i) {
        __asm__ volatile(
            "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
            "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
            "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
            "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
            : "+r"(x)
            : "r"(one));
    }
    return x;
}

Peak measure_peak() {
    Peak p;
    if (avx2_kernels() == nullptr) return p;  // no AVX2+FMA on this CPU
    // The counts are read from volatiles so that the compiler cannot hoist the pure loops out of the
    // timing loop; each call lasts a fraction of a millisecond.
    static volatile long fma_iterations = 20000, add_iterations = 50000;
    volatile float sink = 0;
    const double fma_ns = median_ns([&] { sink = sink + fma_loop(fma_iterations); });
    p.fma_gflops = static_cast<double>(fma_iterations) * 12 * 8 * 2 / fma_ns;
    volatile long lsink = 0;
    const double add_ns = median_ns([&] { lsink = lsink + add_chain(add_iterations); });
    p.clock_ghz = static_cast<double>(add_iterations) * 16 / add_ns;
    p.theory_gflops = 2.0 * 8 * 2 * p.clock_ghz;
    static volatile long madd_iterations = 20000;
    volatile long msink = 0;
    const double madd_ns = median_ns([&] { msink = msink + madd_loop(madd_iterations); });
    p.madd_gops = static_cast<double>(madd_iterations) * 12 * 16 * 2 / madd_ns;
    p.threads = std::thread::hardware_concurrency();
    if (p.threads > 1) {
        const double ns = team_ns(p.threads, [&] { sink = sink + fma_loop(team_iterations); });
        p.fma_all_threads_gflops = static_cast<double>(team_iterations) * p.threads * 12 * 8 * 2 / ns;
    }
    if (avx512_kernels() != nullptr) {  // the CPU has AVX-512 (F, BW, DQ, VL, VNNI)
        const double ns = median_ns([&] { sink = sink + fma512_loop(fma_iterations); });
        p.wide_gflops = static_cast<double>(fma_iterations) * 12 * 16 * 2 / ns;
        p.wide_name = "AVX-512";
    }
    p.valid = true;
    return p;
}
#elif defined(AX_BENCH_NEON)
// 12 independent 128-bit FMA chains: flops = iterations * 12 * 4 * 2.
float neon_fma_loop(long iterations) {
    const float32x4_t m = vdupq_n_f32(0.999999f), c = vdupq_n_f32(1e-6f);
    float32x4_t a[12];
    for (int i = 0; i < 12; ++i) a[i] = vdupq_n_f32(1.0f + 0.01f * static_cast<float>(i));
    for (long i = 0; i < iterations; ++i) {
#if defined(__ARM_FEATURE_FMA)
        for (int j = 0; j < 12; ++j) a[j] = vfmaq_f32(c, a[j], m);
#else  // ARMv7 NEON without VFPv4: the multiply-accumulate the armhf port's products use
        for (int j = 0; j < 12; ++j) a[j] = vmlaq_f32(c, a[j], m);
#endif
        __asm__(""
                : "+w"(a[0]), "+w"(a[1]), "+w"(a[2]), "+w"(a[3]), "+w"(a[4]), "+w"(a[5]), "+w"(a[6]), "+w"(a[7]),
                  "+w"(a[8]), "+w"(a[9]), "+w"(a[10]), "+w"(a[11]));
    }
    float32x4_t s = a[0];
    for (int j = 1; j < 12; ++j) s = vaddq_f32(s, a[j]);
    return vgetq_lane_f32(s, 0);
}

Peak measure_peak() {
    Peak p;
    static volatile long fma_iterations = 20000;
    volatile float sink = 0;
    const double ns = median_ns([&] { sink = sink + neon_fma_loop(fma_iterations); });
    p.wide_gflops = static_cast<double>(fma_iterations) * 12 * 4 * 2 / ns;
    p.wide_name = "NEON";
    return p;
}
#else
Peak measure_peak() { return Peak{}; }
#endif

}  // namespace

double thread_fma_ceiling(unsigned threads) {
    if (threads < 2) return 1.0;
#if defined(AX_BENCH_X86)
    if (avx2_kernels() == nullptr) return 0.0;
    volatile float sink = 0;
    const auto loop = [&] { sink = sink + fma_loop(team_iterations); };
#elif defined(AX_BENCH_NEON)
    volatile float sink = 0;
    const auto loop = [&] { sink = sink + neon_fma_loop(team_iterations / 4); };
#else
    return 0.0;
#endif
#if defined(AX_BENCH_X86) || defined(AX_BENCH_NEON)
    const double one = team_ns(1, loop);
    return threads * one / team_ns(threads, loop);
#endif
}

double thread_read_ceiling(unsigned threads, size_t bytes) {
    if (threads < 2 || bytes == 0) return 1.0;
    const size_t words = (bytes + sizeof(uint64_t) - 1) / sizeof(uint64_t);
    std::vector<uint64_t> buffer(words, 1);  // written once: every page mapped before the timing
    std::atomic<uint64_t> sink{0};
    size_t passes = 1;
    const auto read = [&](unsigned team, unsigned t) {
        // Shares in 64-bit arithmetic: t * words exceeds 32 bits for a large model on a 32-bit host.
        const auto share_start = [&](unsigned i) { return static_cast<size_t>(uint64_t{i} * words / team); };
        const uint64_t* p = buffer.data() + share_start(t);
        const size_t n = share_start(t + 1) - share_start(t);
        uint64_t a = 0, b = 0, c = 0, d = 0;  // independent sums: the loads, not the adds, set the pace
        for (size_t pass = 0; pass < passes; ++pass) {
            asm volatile("" ::: "memory");  // each pass reads the memory again: no sum of one pass reused
            size_t i = 0;
            for (; i + 4 <= n; i += 4) {
                a += p[i];
                b += p[i + 1];
                c += p[i + 2];
                d += p[i + 3];
            }
            for (; i < n; ++i) a += p[i];
        }
        sink += a + b + c + d;
    };
    // Passes enough for about 5 ms on one thread (against thread start-up), from one timed pass: many over
    // what a cache holds, as the weights of a stream of forward passes are read, few from memory or under an
    // emulator.
    const Clock::time_point t0 = Clock::now();
    read(1, 0);
    const double pass_s = std::max(seconds_since(t0), 1e-7);
    passes = static_cast<size_t>(std::min(std::max(5e-3 / pass_s, 1.0), 65536.0));
    const double one = team_ns(1, [&](unsigned t) { read(1, t); });
    return one / team_ns(threads, [&](unsigned t) { read(threads, t); });
}

namespace {

// A split step with no work: each of the pool's threads takes one task, and every task waits until all have
// started, so that each crosses to its own thread (an empty task would all run on the caller).
struct EmptyStep {
    std::atomic<int> started{0};
    int tasks = 0;
};

void empty_task(void* arg, int) {
    EmptyStep& step = *static_cast<EmptyStep*>(arg);
    step.started.fetch_add(1);
    while (step.started.load() < step.tasks) {
    }
}

}  // namespace

double thread_split_step_ns(unsigned threads) {
    if (threads < 2 || std::thread::hardware_concurrency() < 2) return 0;
    ThreadPool pool(threads);
    const auto step = [&pool, threads] {
        EmptyStep s;
        s.tasks = static_cast<int>(threads);
        pool.run(s.tasks, empty_task, &s);
    };
    // Up to 1000 steps, stopped after 20 ms: on a machine whose cores are busy (or with more threads than
    // cores), a step may wait for a worker's whole time slice.
    const auto steps = [&step] {
        const Clock::time_point t0 = Clock::now();
        int done = 0;
        while (done < 1000) {
            step();
            if (++done % 32 == 0 && seconds_since(t0) > 0.02) break;
        }
        return seconds_since(t0) * 1e9 / done;
    };
    steps();  // untimed: the workers awake and polling, as in a stream of passes
    std::vector<double> ns;
    for (int round = 0; round < 5; ++round) ns.push_back(steps());
    return median(ns);
}

namespace {

// ---- the measurements ----

struct Row {
    std::string port, kernel, shape, unit;
    double ns = 0;    // median time of one call
    double rate = 0;  // unit per second: GFLOP/s, GOP/s or Gelem/s
    // Of the measured and of the theoretical AVX2 FMA peak, for float products, and of the measured
    // vpmaddwd peak for the avx2 port's int8 products; < 0: not applicable.
    double peak_fraction = -1, theory_fraction = -1;
    double vs_generic = -1;  // speed over the generic port's on the same kernel and shape
};

struct LinearShape {
    size_t rows, in, out;
};

const LinearShape kLinearShapes[] = {{96, 256, 1024}, {1, 256, 1024}, {24, 512, 2048}, {1, 512, 2048}, {96, 64, 256}};

std::string shape_text(const LinearShape& s) {
    return std::to_string(s.rows) + "x" + std::to_string(s.in) + "x" + std::to_string(s.out);
}

void bench_linear(const Kernels& k, const Peak& peak, std::vector<Row>& rows) {
    for (const LinearShape& s : kLinearShapes) {
        Rng rng;
        Array<float> x = random_floats(rng, s.rows * s.in, 1.0f);
        Array<float> w = random_floats(rng, s.out * s.in, 0.1f);
        Array<float> bias = random_floats(rng, s.out, 0.1f);
        Array<float> y(s.rows * s.out);
        Array<uint16_t> wh(s.out * s.in);
        for (size_t i = 0; i < wh.n; ++i) wh[i] = float_to_half(w[i]);
        Array<int8_t> xq(s.rows * s.in), wq(s.out * s.in);
        Array<float> xscale(s.rows), wscale(s.out);
        k.quantize_rows_i8(x.data(), s.rows, s.in, xq.data(), xscale.data());
        k.quantize_rows_i8(w.data(), s.out, s.in, wq.data(), wscale.data());
        // 4-bit weights: random nibbles, a half scale per 32 columns (the shapes' `in` are multiples of 32).
        Array<uint8_t> w4(s.out * s.in / 2);
        Array<uint16_t> w4scale(s.out * s.in / 32);
        for (size_t i = 0; i < w4.n; ++i) w4[i] = static_cast<uint8_t>(wq[i] ^ wq[w4.n + i]);
        for (size_t i = 0; i < w4scale.n; ++i) w4scale[i] = float_to_half(0.01f + 0.001f * static_cast<float>(i % 7));
        const double ops = 2.0 * static_cast<double>(s.rows) * static_cast<double>(s.in) * static_cast<double>(s.out);

        auto add = [&](const Timing& t, const char* unit, bool float_fma) {
            Row r{k.name, t.kernel, shape_text(s), unit, t.ns, ops / t.ns};
            if (float_fma && float_peak(peak, k.name) > 0) r.peak_fraction = r.rate / float_peak(peak, k.name);
            if (float_fma && peak.valid && !uses_wide_fma(peak, k.name))
                r.theory_fraction = r.rate / peak.theory_gflops;
            rows.push_back(r);
        };
        add(time_entry<&Kernels::linear_f32>(k, x.data(), s.rows, s.in, w.data(), bias.data(), s.out, y.data(), s.out),
            "GFLOP/s", true);
        add(time_entry<&Kernels::linear_f16>(k, x.data(), s.rows, s.in, wh.data(), bias.data(), s.out, y.data(), s.out),
            "GFLOP/s", true);
        add(time_entry<&Kernels::linear_i8>(k, xq.data(), xscale.data(), s.rows, s.in, wq.data(), wscale.data(),
                                            bias.data(), s.out, y.data(), s.out),
            "GOP/s", false);
        if (peak.valid && std::string(k.name) == "avx2") rows.back().peak_fraction = rows.back().rate / peak.madd_gops;
        add(time_entry<&Kernels::linear_i4>(k, xq.data(), xscale.data(), s.rows, s.in, w4.data(), w4scale.data(),
                                            bias.data(), s.out, y.data(), s.out),
            "GOP/s", false);
    }
}

void bench_vectors(const Kernels& k, std::vector<Row>& rows) {
    Rng rng;
    auto add = [&](const Timing& t, const std::string& shape, double work, const char* unit) {
        rows.push_back(Row{k.name, t.kernel, shape, unit, t.ns, work / t.ns});
    };
    {
        const size_t r = 96, n = 256;
        Array<float> x = random_floats(rng, r * n, 2.0f);
        Array<int8_t> q(r * n);
        Array<float> scales(r);
        add(time_entry<&Kernels::quantize_rows_i8>(k, x.data(), r, n, q.data(), scales.data()), "96x256", double(r * n),
            "Gelem/s");
    }
    for (size_t n : {16u, 64u}) {
        // One query of a head of n values against a window of 96 keys, a row of four heads apart.
        const size_t keys = 96, stride = 4 * n;
        Array<float> q = random_floats(rng, n, 1.0f), kv = random_floats(rng, keys * stride, 1.0f), scores(keys);
        add(time_entry<&Kernels::attention_scores_f32>(k, q.data(), kv.data(), stride, keys, n, 0.125f, scores.data()),
            "n=" + std::to_string(n) + " keys=96", 2.0 * double(n * keys), "GFLOP/s");
    }
    for (size_t n : {96u, 1024u}) {
        // Softmax of a softmax stays a distribution: repeating it in place keeps the input realistic.
        Array<float> a = random_floats(rng, n, 4.0f);
        add(time_entry<&Kernels::softmax_f32>(k, a.data(), n), "n=" + std::to_string(n), double(n), "Gelem/s");
    }
    for (size_t n : {256u, 1024u}) {
        Array<float> x = random_floats(rng, n, 2.0f), g = random_floats(rng, n, 1.0f), b = random_floats(rng, n, 1.0f);
        Array<float> y(n);
        add(time_entry<&Kernels::layer_norm_f32>(k, x.data(), n, g.data(), b.data(), 1e-5f, y.data()),
            "n=" + std::to_string(n), double(n), "Gelem/s");
    }
    for (size_t n : {1024u}) {
        // GELU in place would shrink its input towards 0 call after call: restore it each time and take
        // the copy's own time off.
        Array<float> src = random_floats(rng, n, 4.0f), x(n);
        auto restore = [&] { std::memcpy(x.data(), src.data(), n * sizeof(float)); };
        const double copy_ns = median_ns(restore);
        Timing t = time_entry_after<&Kernels::gelu_f32>(k, restore, x.data(), n);
        t.ns = std::max(t.ns - copy_ns, 1e-3);
        add(t, "n=" + std::to_string(n), double(n), "Gelem/s");
    }
}

std::string fmt(const char* format, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, format, v);
    return buf;
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

const Row* find(const std::vector<Row>& rows, const std::string& port, const std::string& kernel,
                const std::string& shape) {
    for (const Row& r : rows)
        if (r.port == port && r.kernel == kernel && r.shape == shape) return &r;
    return nullptr;
}

// linear_i8 throughput over linear_f32's on the same shape, per port and shape (GEMV and GEMM).
struct Ratio {
    std::string port, shape;
    double value;
};

std::vector<Ratio> gemv_ratios(const std::vector<Row>& rows, const std::vector<const Kernels*>& ports) {
    std::vector<Ratio> out;
    for (const Kernels* k : ports)
        for (const LinearShape& s : kLinearShapes) {
            const Row* f = find(rows, k->name, kernel_name<&Kernels::linear_f32>(), shape_text(s));
            const Row* q = find(rows, k->name, kernel_name<&Kernels::linear_i8>(), shape_text(s));
            if (f && q) out.push_back(Ratio{k->name, shape_text(s), q->rate / f->rate});
        }
    return out;
}

std::string to_text(const Peak& peak, const std::vector<Row>& rows, const std::vector<Ratio>& ratios) {
    std::string t = "auspex kernel benchmark (single thread; median of " + std::to_string(kSamples) +
                    " timed samples of about 1 ms after warm-up)\n";
    if (peak.valid) {
        t += "clock, from dependent integer adds:     " + fmt("%.2f", peak.clock_ghz) + " GHz\n";
        t += "AVX2 FMA peak, measured:                " + fmt("%.1f", peak.fma_gflops) + " GFLOP/s (" +
             fmt("%.1f", peak.fma_gflops / peak.clock_ghz) + " flops/cycle at that clock)\n";
        t += "AVX2 FMA peak, 2 units x 8 x 2 x clock: " + fmt("%.1f", peak.theory_gflops) + " GFLOP/s\n";
        t += "AVX2 int8 madd peak, measured:          " + fmt("%.1f", peak.madd_gops) + " GOP/s (vpmaddwd + vpaddd; " +
             fmt("%.2f", peak.madd_gops / peak.fma_gflops) +
             "x the FMA peak: the most plain-AVX2 int8 can gain over float)\n";
    } else {
        t += "AVX2 FMA peak: not measured (not x86-64, or no AVX2+FMA on this CPU)\n";
    }
    if (peak.fma_all_threads_gflops > 0)
        t += "AVX2 FMA on all " + std::to_string(peak.threads) +
             " threads at once:   " + fmt("%.1f", peak.fma_all_threads_gflops) + " GFLOP/s (" +
             fmt("%.2f", peak.fma_all_threads_gflops / peak.fma_gflops) +
             "x one thread: the most --threads can gain on this machine now)\n";
    if (peak.wide_gflops > 0)
        t += std::string(peak.wide_name) +
             " FMA peak, measured:" + std::string(peak.wide_name[0] == 'N' ? 12 : 9, ' ') +
             fmt("%.1f", peak.wide_gflops) + " GFLOP/s (" +
             (peak.valid ? fmt("%.1f", peak.wide_gflops / peak.clock_ghz) + " flops/cycle at that clock)\n"
                         : std::string("12 independent FMA chains)\n"));
    if (peak.valid || peak.wide_gflops > 0)
        t += std::string("%peak: of the measured FMA peak of the port's width (") +
             (peak.wide_gflops > 0 ? std::string(peak.wide_name) + " for " +
                                         (peak.valid ? "the avx512 port, AVX2 for the others" : "every port")
                                   : std::string("AVX2")) +
             "; avx2 linear_i8: of the madd peak); %theory: of the theoretical AVX2 one.\n";
    t += "\n";
    char line[200];
    std::snprintf(line, sizeof line, "%-17s %-12s %-10s %11s %9s %-8s %7s %7s %9s\n", "kernel", "shape", "port",
                  "ns/call", "rate", "unit", "%peak", "%theory", "x generic");
    t += line;
    t += std::string(99, '-') + "\n";
    // A blank line after each matrix product's group, so each product's ports read together.
    const Row* last = nullptr;
    for (const Row& r : rows) {
        if (last && (last->kernel != r.kernel || last->shape != r.shape) && last->kernel.compare(0, 7, "linear_") == 0)
            t += "\n";
        last = &r;
        const std::string pct = r.peak_fraction >= 0 ? fmt("%.1f", 100.0 * r.peak_fraction) : "-";
        const std::string theory = r.theory_fraction >= 0 ? fmt("%.1f", 100.0 * r.theory_fraction) : "-";
        const std::string speedup = r.vs_generic >= 0 ? fmt("%.1f", r.vs_generic) : "-";
        std::snprintf(line, sizeof line, "%-17s %-12s %-10s %11.0f %9.2f %-8s %7s %7s %9s\n", r.kernel.c_str(),
                      r.shape.c_str(), r.port.c_str(), r.ns, r.rate, r.unit.c_str(), pct.c_str(), theory.c_str(),
                      speedup.c_str());
        t += line;
    }
    if (!ratios.empty()) {
        t += "\nint8 over f32 (linear_i8 GOP/s / linear_f32 GFLOP/s, same port, same shape, same run):\n";
        for (const Ratio& r : ratios) t += "  " + r.port + " " + r.shape + ": " + fmt("%.2f", r.value) + "x\n";
        // The 4-bit product against int8's: what half the weight bytes buy (or cost in unpacking) per port.
        t += "\nint4 over int8 (linear_i4 GOP/s / linear_i8 GOP/s, same port, same shape, same run):\n";
        for (const Ratio& r : ratios) {
            const Row* q8 = find(rows, r.port, kernel_name<&Kernels::linear_i8>(), r.shape);
            const Row* q4 = find(rows, r.port, kernel_name<&Kernels::linear_i4>(), r.shape);
            if (q8 && q4) t += "  " + r.port + " " + r.shape + ": " + fmt("%.2f", q4->rate / q8->rate) + "x\n";
        }
    }
    return t;
}

std::string to_json(const Peak& peak, const std::vector<Row>& rows, const std::vector<Ratio>& ratios) {
    std::string j = "{\n  \"peak\": ";
    if (peak.valid)
        j += "{\"clock_ghz\": " + fmt("%.4f", peak.clock_ghz) +
             ", \"fma_gflops_measured\": " + fmt("%.3f", peak.fma_gflops) +
             ", \"fma_gflops_theoretical\": " + fmt("%.3f", peak.theory_gflops) +
             ", \"madd_gops_measured\": " + fmt("%.3f", peak.madd_gops) +
             ", \"threads\": " + std::to_string(peak.threads) +
             ", \"fma_all_threads_gflops_measured\": " + fmt("%.3f", peak.fma_all_threads_gflops) +
             ", \"wide_fma_gflops_measured\": " +
             (peak.wide_gflops > 0 ? fmt("%.3f", peak.wide_gflops) + ", \"wide_fma\": " + json_string(peak.wide_name)
                                   : std::string("null")) +
             "}";
    else if (peak.wide_gflops > 0)
        j += "{\"wide_fma_gflops_measured\": " + fmt("%.3f", peak.wide_gflops) +
             ", \"wide_fma\": " + json_string(peak.wide_name) + "}";
    else
        j += "null";
    j += ",\n  \"results\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        j += "    {\"port\": " + json_string(r.port) + ", \"kernel\": " + json_string(r.kernel) +
             ", \"shape\": " + json_string(r.shape) + ", \"ns\": " + fmt("%.1f", r.ns) +
             ", \"rate\": " + fmt("%.4f", r.rate) + ", \"unit\": " + json_string(r.unit) +
             ", \"peak_fraction\": " + (r.peak_fraction >= 0 ? fmt("%.4f", r.peak_fraction) : std::string("null")) +
             ", \"theory_fraction\": " +
             (r.theory_fraction >= 0 ? fmt("%.4f", r.theory_fraction) : std::string("null")) +
             ", \"vs_generic\": " + (r.vs_generic >= 0 ? fmt("%.3f", r.vs_generic) : std::string("null")) + "}";
        j += i + 1 < rows.size() ? ",\n" : "\n";
    }
    j += "  ],\n  \"i8_over_f32\": [";
    for (size_t i = 0; i < ratios.size(); ++i) {
        j += "{\"port\": " + json_string(ratios[i].port) + ", \"shape\": " + json_string(ratios[i].shape) +
             ", \"ratio\": " + fmt("%.4f", ratios[i].value) + "}";
        if (i + 1 < ratios.size()) j += ", ";
    }
    return j + "]\n}\n";
}

}  // namespace

std::string run_kernel_bench(bool json) {
    std::vector<const Kernels*> ports{&generic_kernels()};
    if (const Kernels* k = avx2_kernels()) ports.push_back(k);
    if (const Kernels* k = neon_kernels()) ports.push_back(k);

    // avx2-vnni, avx512 and avx512-256 differ from avx2 in their matrix products only: they join those rows.
    std::vector<const Kernels*> linear_ports = ports;
    if (const Kernels* k = avx2_vnni_kernels()) linear_ports.push_back(k);
    if (const Kernels* k = avx512_256_kernels()) linear_ports.push_back(k);
    if (const Kernels* k = avx512_kernels()) linear_ports.push_back(k);

    const Peak peak = measure_peak();
    std::vector<Row> rows;
    for (const Kernels* k : linear_ports) bench_linear(*k, peak, rows);
    for (const Kernels* k : ports) bench_vectors(*k, rows);
    const std::vector<Ratio> ratios = gemv_ratios(rows, linear_ports);

    // Each kernel and shape together, ports side by side, in the order measured.
    std::vector<std::string> groups;
    for (const Row& r : rows)
        if (std::find(groups.begin(), groups.end(), r.kernel + " " + r.shape) == groups.end())
            groups.push_back(r.kernel + " " + r.shape);
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
        return std::find(groups.begin(), groups.end(), a.kernel + " " + a.shape) <
               std::find(groups.begin(), groups.end(), b.kernel + " " + b.shape);
    });
    for (Row& r : rows)
        if (const Row* g = find(rows, "generic", r.kernel, r.shape)) r.vs_generic = r.rate / g->rate;
    return json ? to_json(peak, rows, ratios) : to_text(peak, rows, ratios);
}

}  // namespace ax::tools
