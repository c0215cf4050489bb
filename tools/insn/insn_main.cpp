// The program `make insn` runs under QEMU with tools/insn/insn_plugin.c: the example forecast on the generic
// port (region "generic") and on best_kernels() (region "best": mcu on M4/M7/M55, skipped where best is
// generic), each between two marker functions, so the plugin counts exactly one ForecastSession::forecast
// (not the model's checksum, the session's setup or printf). Built for every Cortex-M board as insn.elf
// (ports/firmware/firmware.cmake) and for ARM Linux by `make insn` (CMakeLists.txt, AUSPEX_INSN_HEADERS),
// from the headers `auspex header` writes for the example.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "example_history.h"
// The known inputs of the forecast's steps, where the headers have them (a firmware tree's example); none
// in the bench's headers.
#if __has_include("example_future.h")
#include "example_future.h"
#else
#define EXAMPLE_FUTURE_ROWS 0
static const float example_future[1] = {0.0f};
#endif
#define EXAMPLE_MODEL_SECTION __attribute__((section(".axm_model")))
#include "example_model.h"
#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#include "insn_markers.h"  // same folder

alignas(64) static uint8_t arena[EXAMPLE_MODEL_ARENA_BYTES];
static float forecast[EXAMPLE_MODEL_HORIZON * EXAMPLE_MODEL_N_OUTPUTS];
static float reference[EXAMPLE_MODEL_HORIZON * EXAMPLE_MODEL_N_OUTPUTS];
static ax::ModelFile file;
static ax::Forecaster model;

static bool run(const ax::Kernels& kernels, void (*begin)(), float* out) {
    ax::ForecastSession session;
    ax::Status s = session.init(model, kernels, arena, sizeof arena, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON);
    if (s) {
        begin();
        s = session.forecast(example_history, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON, out,
                             EXAMPLE_FUTURE_ROWS != 0 ? example_future : nullptr, EXAMPLE_FUTURE_ROWS);
        auspex_insn_end();
    }
    if (!s) std::fprintf(stderr, "insn: %s forecast failed: %s\n", kernels.name, s.message());
    return static_cast<bool>(s);
}

int main() {
    ax::Status s = ax::ModelFile::open(example_model, sizeof example_model, ax::Checksum::verify, &file);
    if (s) s = ax::Forecaster::open(file, &model);
    if (!s) {
        std::fprintf(stderr, "insn: %s\n", s.message());
        return 1;
    }
    // The kernels the report lists, in runtime/kernels.h's order (outside the counted regions).
    std::printf("insn: kernels:");
    for (const char* name : ax::kKernelNames) std::printf(" %s", name);
    std::printf("\n");
    if (!run(ax::generic_kernels(), auspex_insn_begin_generic, reference)) return 1;
    std::printf("insn: window %d, horizon %d: generic forecast counted\n", EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON);
    const ax::Kernels& best = ax::best_kernels();
    if (&best == &ax::generic_kernels()) {
        std::printf("insn: best port: generic (no other port for this core)\n");
        return 0;
    }
    if (!run(best, auspex_insn_begin_best, forecast)) return 1;
    const bool same = std::memcmp(forecast, reference, sizeof forecast) == 0;
    std::printf("insn: best port: %s, forecast %s generic's\n", best.name, same ? "bit-identical to" : "differs from");
#if defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M'
    // The mcu port replaces only the int8 products, which are exact: it must agree bit for bit. (A Linux
    // port's float kernels may sum in another order.)
    if (!same) return 1;
#endif
    return 0;
}
