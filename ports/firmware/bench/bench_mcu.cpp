// `make bench-mcu`: instructions of the mcu port's int8 products on fixed shapes, and, in the images built with
// CMSIS-NN (CMSIS_NN_DIR), of CMSIS-NN's on the same data, counted by tools/insn/insn_plugin.c.
//
// Each measured call runs in a region of the plugin: auspex_insn_begin_<kernel>_<rows>x<in>x<out>() just before it,
// auspex_insn_end() just after, through a noinline wrapper of namespace bench_mcu (bench_mcu_report.py subtracts
// the instructions of every function named bench_mcu..., so a kernel's count is what its library executed).
// Kernels, per shape:
//   ax   ax::mcu::linear_i8, float out (per-row input scales, per-output weight scales, float bias)
//   axg  ax::generic::linear_i8, the reference port
//   axq  ax::mcu::quantize_rows_i8 of the rows x in float input auspex quantizes before its product
//   fc   CMSIS-NN arm_fully_connected_s8 (per-tensor requantization), int8 out
//   mm   CMSIS-NN arm_nn_mat_mult_nt_t_s8, the GEMM of its 1x1 convolution (per-channel), int8 out
// Checks (outside the regions; "check" lines, exit status 1 on a failure): the int32 sums of every kernel equal a
// scalar reference's. auspex with unit scales and no bias returns float(sum), exact below 2^24; CMSIS-NN with
// multiplier 1 (2^30, its shift +1) and no clamp returns the low byte of sum + bias, and with shifts -7 and -15
// the low bytes of its own rounding of (sum + bias) / 2^8 and / 2^16: with |sum| < 2^23 the three bytes fix
// the sum.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

#if defined(AUSPEX_BENCH_CMSIS_NN)
extern "C" {
// cmsis_nn_calls.c: CMSIS-NN's API is C (its support header does not compile as C++).
void bench_mcu_fc(const int8_t* x, const int8_t* w, const int32_t* bias, int32_t rows, int32_t in, int32_t out,
                  int32_t mult, int32_t shift, int unclamped, int32_t* kernel_sums, int8_t* y);
void bench_mcu_mm(const int8_t* x, const int8_t* w, const int32_t* bias, int32_t rows, int32_t in, int32_t out,
                  const int32_t* mults, const int32_t* shifts, int unclamped, int8_t* y);
void bench_mcu_kernel_sums(const int8_t* w, const int32_t* bias, int32_t in, int32_t out, int32_t* kernel_sums);
int32_t bench_mcu_kernel_sums_bytes(int32_t in, int32_t out);
int32_t bench_mcu_requantize(int32_t v, int32_t mult, int32_t shift);
}
#endif

volatile uint32_t auspex_insn_marker;
extern "C" __attribute__((noinline, used)) void auspex_insn_end() { auspex_insn_marker = 0; }
// __COUNTER__ gives every marker its own body, so that no two are folded into one symbol.
#define BENCH_MARK(name) \
    extern "C" __attribute__((noinline, used)) void auspex_insn_begin_##name() { auspex_insn_marker = __COUNTER__ + 1; }

// The issue-style shapes (a decoder step, an encoder's rows), then the bundled example's: rows x in x out.
// (clang-format does not settle on one layout of this list.)
// clang-format off
#define BENCH_SHAPES(X)                                                                                     \
    X(1, 64, 64) X(1, 64, 256) X(1, 256, 64) X(1, 128, 512) X(1, 512, 128) X(24, 64, 64) X(48, 64, 256)     \
    X(48, 256, 64) X(1, 128, 1) X(1, 128, 128) X(1, 128, 256) X(1, 256, 128) X(8, 128, 128) X(8, 128, 256)  \
    X(8, 256, 128) X(16, 128, 32) X(48, 128, 32)
// clang-format on
#define BENCH_SHAPE_MARKS(R, I, O)  \
    BENCH_MARK(ax_##R##x##I##x##O)  \
    BENCH_MARK(axg_##R##x##I##x##O) \
    BENCH_MARK(axq_##R##x##I##x##O) BENCH_MARK(fc_##R##x##I##x##O) BENCH_MARK(mm_##R##x##I##x##O)
BENCH_SHAPES(BENCH_SHAPE_MARKS)

namespace bench_mcu {

enum Kernel { kAx, kAxg, kAxq, kFc, kMm, kKernels };
struct Shape {
    int rows, in, out;
    void (*begin[kKernels])();
};
#define BENCH_SHAPE_ENTRY(R, I, O)                                                 \
    {R,                                                                            \
     I,                                                                            \
     O,                                                                            \
     {auspex_insn_begin_ax_##R##x##I##x##O, auspex_insn_begin_axg_##R##x##I##x##O, \
      auspex_insn_begin_axq_##R##x##I##x##O, auspex_insn_begin_fc_##R##x##I##x##O, \
      auspex_insn_begin_mm_##R##x##I##x##O}},
const Shape kShapes[] = {BENCH_SHAPES(BENCH_SHAPE_ENTRY)};

constexpr int kReps = 2;  // the report checks that repetitions count the same
constexpr int kMaxW = 512 * 128, kMaxX = 48 * 256, kMaxY = 48 * 256, kMaxOut = 512, kMaxRows = 48;
alignas(16) int8_t g_w[kMaxW];
alignas(16) int8_t g_x[kMaxX];
alignas(16) float g_xf[kMaxX];
alignas(16) int8_t g_xq[kMaxX];
alignas(16) float g_y[kMaxY];
alignas(16) int8_t g_yq[kMaxY];
alignas(16) int32_t g_sum[kMaxY];
float g_xscale[kMaxRows], g_xqscale[kMaxRows], g_wscale[kMaxOut], g_bias[kMaxOut], g_ones[kMaxOut];
int32_t g_bias_i[kMaxOut], g_mults[kMaxOut], g_shifts[kMaxOut], g_mults_id[kMaxOut], g_shifts_id[kMaxOut];
alignas(16) int32_t g_kernel_sums[kMaxOut];
int g_failures = 0;

uint32_t g_rng = 0x9e3779b9u;
uint32_t rnd() {
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 17;
    g_rng ^= g_rng << 5;
    return g_rng;
}
int8_t rnd_i8() { return static_cast<int8_t>(static_cast<int>(rnd() % 255u) - 127); }  // [-127, 127]
float rnd_unit() { return static_cast<float>(rnd() >> 8) * (1.0f / 16777216.0f); }     // [0, 1)

struct Call {
    int rows, in, out;
    const float* xscale;
    const float* wscale;
    const float* bias;    // auspex
    int32_t mult, shift;  // CMSIS-NN per tensor (fc)
    const int32_t* mults;
    const int32_t* shifts;  // CMSIS-NN per channel (mm)
    int unclamped;          // CMSIS-NN: no clamp to [-128, 127], the int8 store keeps the low byte
};

__attribute__((noinline)) void call_ax(const Call& c) {
    ax::mcu::linear_i8(g_x, c.xscale, c.rows, c.in, g_w, c.wscale, c.bias, c.out, g_y, c.out);
}
__attribute__((noinline)) void call_axg(const Call& c) {
    ax::generic::linear_i8(g_x, c.xscale, c.rows, c.in, g_w, c.wscale, c.bias, c.out, g_y, c.out);
}
__attribute__((noinline)) void call_axq(const Call& c) {
    ax::mcu::quantize_rows_i8(g_xf, c.rows, c.in, g_xq, g_xqscale);
}
#if defined(AUSPEX_BENCH_CMSIS_NN)
__attribute__((noinline)) void call_fc(const Call& c) {
    bench_mcu_fc(g_x, g_w, g_bias_i, c.rows, c.in, c.out, c.mult, c.shift, c.unclamped, g_kernel_sums, g_yq);
}
__attribute__((noinline)) void call_mm(const Call& c) {
    bench_mcu_mm(g_x, g_w, g_bias_i, c.rows, c.in, c.out, c.mults, c.shifts, c.unclamped, g_yq);
}
#endif

__attribute__((noinline)) void measure(void (*begin)(), void (*call)(const Call&), const Call& c) {
    for (int rep = 0; rep < kReps; ++rep) {
        begin();
        call(c);
        auspex_insn_end();
    }
}

void fail(const char* what, const Shape& s, int i, long got, long want) {
    if (g_failures++ < 20)
        std::printf("check FAIL %s %dx%dx%d at %d: got %ld want %ld\n", what, s.rows, s.in, s.out, i, got, want);
}

// m in (0, 1): q * 2^(shift - 31) with q in [2^30, 2^31), CMSIS-NN's (TFLite's) multiplier form.
void quantize_multiplier(double m, int32_t* q, int32_t* shift) {
    int s = 0;
    while (m < 0.5) {
        m *= 2.0;
        --s;
    }
    while (m >= 1.0) {
        m *= 0.5;
        ++s;
    }
    long long v = static_cast<long long>(m * 2147483648.0 + 0.5);
    if (v == (1ll << 31)) {
        v /= 2;
        ++s;
    }
    *q = static_cast<int32_t>(v);
    *shift = s;
}

void run_shape(const Shape& s) {
    const int n = s.rows * s.out;
    for (int i = 0; i < s.in * s.out; ++i) g_w[i] = rnd_i8();
    for (int i = 0; i < s.rows * s.in; ++i) g_x[i] = rnd_i8();
    for (int i = 0; i < s.rows * s.in; ++i) g_xf[i] = 6.0f * rnd_unit() - 3.0f;
    const float sx = 0.02f;  // one input scale for every row: CMSIS-NN's is per tensor
    for (int r = 0; r < s.rows; ++r) g_xscale[r] = sx;
    for (int o = 0; o < s.out; ++o) {
        g_wscale[o] = 0.002f + 0.008f * rnd_unit();
        g_bias[o] = 4.0f * rnd_unit() - 2.0f;
        g_bias_i[o] = static_cast<int32_t>(g_bias[o] / (sx * g_wscale[o]));
        g_ones[o] = 1.0f;
    }
    int32_t max_abs = 1;
    for (int r = 0; r < s.rows; ++r)
        for (int o = 0; o < s.out; ++o) {
            int32_t sum = 0;
            for (int i = 0; i < s.in; ++i) sum += int32_t{g_x[r * s.in + i]} * int32_t{g_w[o * s.in + i]};
            g_sum[r * s.out + o] = sum;
            const int32_t a = sum + g_bias_i[o] < 0 ? -(sum + g_bias_i[o]) : sum + g_bias_i[o];
            max_abs = a > max_abs ? a : max_abs;
        }
    // Output scale: the largest |sum + bias| at 120 steps; multipliers per channel and per tensor.
    Call c{s.rows, s.in, s.out, g_xscale, g_wscale, g_bias, 0, 0, g_mults, g_shifts, 0};
    quantize_multiplier(120.0 / max_abs, &c.mult, &c.shift);
    for (int o = 0; o < s.out; ++o) quantize_multiplier(120.0 / max_abs, &g_mults[o], &g_shifts[o]);
#if defined(AUSPEX_BENCH_CMSIS_NN)
    // The Helium FC reads kernel sums (bias + input offset x weight row sums) prepared once per layer.
    bench_mcu_kernel_sums(g_w, g_bias_i, s.in, s.out, g_kernel_sums);
#endif

    measure(s.begin[kAx], call_ax, c);
    measure(s.begin[kAxg], call_axg, c);
    measure(s.begin[kAxq], call_axq, c);
#if defined(AUSPEX_BENCH_CMSIS_NN)
    measure(s.begin[kFc], call_fc, c);
    measure(s.begin[kMm], call_mm, c);
#endif

    const int before = g_failures;
    Call unit = c;
    unit.xscale = g_ones;
    unit.wscale = g_ones;
    unit.bias = nullptr;
    call_ax(unit);
    for (int i = 0; i < n; ++i)
        if (g_y[i] != static_cast<float>(g_sum[i])) fail("auspex mcu sum", s, i, static_cast<long>(g_y[i]), g_sum[i]);
    call_axg(unit);
    for (int i = 0; i < n; ++i)
        if (g_y[i] != static_cast<float>(g_sum[i]))
            fail("auspex generic sum", s, i, static_cast<long>(g_y[i]), g_sum[i]);
#if defined(AUSPEX_BENCH_CMSIS_NN)
    const int kIdentityShifts[] = {1, -7, -15};
    for (const int shift : kIdentityShifts) {
        Call id = c;
        id.mult = 1 << 30;
        id.shift = shift;
        id.unclamped = 1;
        for (int o = 0; o < s.out; ++o) {
            g_mults_id[o] = 1 << 30;
            g_shifts_id[o] = shift;
        }
        id.mults = g_mults_id;
        id.shifts = g_shifts_id;
        const auto want = [&](int i) {
            const int32_t v = bench_mcu_requantize(g_sum[i] + g_bias_i[i % s.out], 1 << 30, shift);
            return static_cast<int8_t>(static_cast<uint32_t>(v) & 0xffu);
        };
        call_fc(id);
        for (int i = 0; i < n; ++i)
            if (g_yq[i] != want(i)) fail("CMSIS-NN fc sum byte", s, i, g_yq[i], want(i));
        call_mm(id);
        for (int i = 0; i < n; ++i)
            if (g_yq[i] != want(i)) fail("CMSIS-NN mm sum byte", s, i, g_yq[i], want(i));
    }
#endif
    std::printf("check %dx%dx%d: %s\n", s.rows, s.in, s.out, g_failures == before ? "ok" : "FAILED");
}

}  // namespace bench_mcu

int main() {
#if defined(AUSPEX_BENCH_CMSIS_NN)
    std::printf("bench-mcu: CMSIS-NN %s\n", AUSPEX_BENCH_CMSIS_NN_OPT);
    if (bench_mcu_kernel_sums_bytes(512, bench_mcu::kMaxOut) > static_cast<int32_t>(sizeof bench_mcu::g_kernel_sums)) {
        std::printf("check FAIL: CMSIS-NN asks for more kernel-sum bytes than the bench has\n");
        return 1;
    }
#else
    std::printf("bench-mcu: auspex only\n");
#endif
    std::printf("bench-mcu: mcu port available: %s\n", ax::mcu::available() ? "yes" : "no");
    for (const bench_mcu::Shape& s : bench_mcu::kShapes) bench_mcu::run_shape(s);
    std::printf("check: %s\n", bench_mcu::g_failures == 0 ? "ALL OK" : "FAILURES");
    return bench_mcu::g_failures == 0 ? 0 : 1;
}
