// The image `make insn` runs under QEMU with tests/insn/insn_plugin.c: the example forecast once per kernel
// port, each forecast between two marker functions, so the plugin counts the instructions of exactly one
// ForecastSession::forecast (not the model's checksum, the session's setup or printf) per port. Built for
// every Cortex-M board as insn.elf (ports/cortex-m/firmware.cmake), from the same generated headers as the
// example firmware.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "example_history.h"
#define EXAMPLE_MODEL_SECTION __attribute__((section(".axm_model")))
#include "example_model.h"
#include "models/forecaster/forecaster.h"
#include "ports/ports.h"

// The markers: distinct bodies (a write to a volatile), so that no identical-code folding merges them.
volatile uint32_t auspex_insn_marker;
extern "C" {
__attribute__((noinline, used)) void auspex_insn_begin_generic() { auspex_insn_marker = 1; }
__attribute__((noinline, used)) void auspex_insn_begin_mcu() { auspex_insn_marker = 2; }
__attribute__((noinline, used)) void auspex_insn_end() { auspex_insn_marker = 0; }
}

alignas(64) static uint8_t arena[EXAMPLE_MODEL_ARENA_BYTES];
static float forecast[EXAMPLE_MODEL_HORIZON * EXAMPLE_MODEL_N_FEATURES];
static float reference[EXAMPLE_MODEL_HORIZON * EXAMPLE_MODEL_N_FEATURES];
static ax::ModelFile file;
static ax::Forecaster model;

static bool run(const ax::Kernels& kernels, void (*begin)(), float* out) {
    ax::ForecastSession session;
    ax::Status s = session.init(model, kernels, arena, sizeof arena, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON);
    if (s) {
        begin();
        s = session.forecast(example_history, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON, out);
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
    if (!run(ax::generic_kernels(), auspex_insn_begin_generic, reference)) return 1;
    std::printf("insn: window %d, horizon %d: generic forecast counted\n", EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON);
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (mcu == nullptr) {
        std::printf("insn: mcu port unavailable on this core (generic kernels only)\n");
        return 0;
    }
    if (!run(*mcu, auspex_insn_begin_mcu, forecast)) return 1;
    // The ports must agree bit for bit (int8 products are exact, the rest is the same generic code).
    if (std::memcmp(forecast, reference, sizeof forecast) != 0) {
        std::fprintf(stderr, "insn: the mcu forecast differs from the generic one\n");
        return 1;
    }
    std::printf("insn: mcu forecast counted, bit-identical to generic\n");
    return 0;
}
