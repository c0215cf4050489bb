// Fuzzes a whole session on a mutated model: open, plan the arena, lay the session out, run a
// teacher-forced pass and forecasts with the generic kernels (runtime/, models/forecaster/, ports/generic/).
// Whatever the weights and config say, every call must end in a Status: no read or write outside the model,
// the arena or the caller's buffers, no undefined behaviour (NaN/Inf weights included), no leak. And no heap:
// the session's calls must not allocate (checked with the sanitizer's allocation hooks).
#include <sanitizer/allocator_interface.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "fuzz_support.h"
#include "ports/ports.h"

namespace {

// Counts allocations made while `watching`: the runtime promises none once a model is open.
thread_local bool watching = false;  // per thread: libFuzzer's own threads may allocate meanwhile
thread_local size_t heap_calls = 0;
void on_malloc(const volatile void*, size_t) {
    if (watching) ++heap_calls;
}
void on_free(const volatile void*) {}

// Runs `call` (a runtime entry point) and traps if it touched the heap.
template <typename Call>
ax::Status no_heap(const char* what, Call call) {
    static const bool installed = __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free) != 0;
    (void)installed;
    heap_calls = 0;
    watching = true;
    const ax::Status s = call();
    watching = false;
    if (heap_calls != 0) {
        std::fprintf(stderr, "%s allocated on the heap %zu time(s)\n", what, heap_calls);
        __builtin_trap();
    }
    return s;
}

constexpr size_t kWindow = 8;
constexpr size_t kHorizon = 4;
constexpr size_t kMaxArena = size_t{64} << 20;  // keeps memory bounded; larger models are skipped

// Finite, varied inputs: a slow wave per feature plus a trend.
std::vector<float> series(size_t rows, size_t n, float phase) {
    std::vector<float> x(rows * n);
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < n; ++i)
            x[r * n + i] = 2.0f * std::sin(0.37f * static_cast<float>(r) + phase + static_cast<float>(i)) +
                           0.1f * static_cast<float>(r);
    return x;
}

void read_all(const std::vector<float>& v) {
    uint32_t acc = 0;
    for (float f : v) {
        uint32_t bits;
        std::memcpy(&bits, &f, sizeof bits);
        acc ^= bits;
    }
    ax::fuzz::consume(acc);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ax;
    fuzz::AlignedCopy buffer(data, size);
    ModelFile file;
    if (!no_heap("ModelFile::open", [&] {
             return ModelFile::open(buffer.data(), buffer.size(), Checksum::skip, &file);
         }).is_ok())
        return 0;
    Forecaster model;
    if (!no_heap("Forecaster::open", [&] { return Forecaster::open(file, &model); }).is_ok()) return 0;

    const size_t bytes = model.arena_bytes(kWindow, kHorizon);
    if (bytes == 0) __builtin_trap();  // lengths are valid, so 0 would mean the planner overflowed
    if (bytes > kMaxArena) return 0;
    uint8_t* memory = static_cast<uint8_t*>(::operator new (bytes, std::align_val_t{64}));
    struct Free {
        uint8_t* p;
        ~Free() { ::operator delete (p, std::align_val_t{64}); }
    } free_memory{memory};

    const Kernels& kernels = generic_kernels();
    ForecastSession session;
    // The planned size is exact: one byte less must be refused, the planned size must work. A model may
    // refuse the lengths themselves (a one-pass model's trained horizon, a flatten head's window, its
    // positions): refused alike at any arena size, with invalid_argument.
    const Status full = no_heap("ForecastSession::init",
                                [&] { return session.init(model, kernels, memory, bytes, kWindow, kHorizon); });
    if (full.code() == StatusCode::invalid_argument) {
        if (session.init(model, kernels, memory, bytes - 1, kWindow, kHorizon).code() != StatusCode::invalid_argument)
            __builtin_trap();
        return 0;
    }
    if (!full.is_ok()) __builtin_trap();
    ForecastSession smaller;
    if (smaller.init(model, kernels, memory, bytes - 1, kWindow, kHorizon).code() != StatusCode::arena_too_small)
        __builtin_trap();
    // The failed init above wrote nothing the session uses: it refuses before placing any buffer.

    const ForecasterConfig& c = model.config();
    const std::vector<float> src = series(kWindow, c.n_features, 0.0f);
    const std::vector<float> tgt = series(kHorizon, c.n_features, 1.5f);
    // run returns the model's forward: run_rows (an encoder-only model: its horizon, or a row per input row).
    std::vector<float> out(c.output_values(c.run_rows(kWindow, kHorizon)));
    if (no_heap("run", [&] {
            return session.run(src.data(), kWindow, tgt.data(), kHorizon, InputSpace::raw, out.data());
        }).is_ok())
        read_all(out);
    // Shorter than declared, in model space.
    std::vector<float> out_short(c.output_values(c.run_rows(3, 2)));
    if (no_heap("run", [&] {
            return session.run(src.data() + 5 * c.n_features, 3, tgt.data(), 2, InputSpace::model, out_short.data());
        }).is_ok())
        read_all(out_short);

    std::vector<float> forecast(c.output_values(kHorizon));
    if (no_heap("forecast", [&] { return session.forecast(src.data(), kWindow, kHorizon, forecast.data()); }).is_ok())
        read_all(forecast);
    if (no_heap("forecast_recompute", [&] {
            return session.forecast_recompute(src.data(), kWindow, kHorizon, forecast.data());
        }).is_ok())
        read_all(forecast);
    return 0;
}
