// The Chronos-Bolt program `make insn` runs under QEMU with tools/insn/insn_plugin.c: one 64-step forecast of the
// int8 model read in place from the board's external flash (as apps/firmware/chronos_bolt_main.cpp reads it), on
// the generic port (region "generic") and on best_kernels() (region "best"), each between two marker functions,
// so the plugin counts exactly one chronos_bolt_forecast (not the checksum, the open or printf). Built as
// chronos_bolt_insn_<shape>.elf on the boards with external flash (ports/firmware/chronos_bolt.cmake).
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "chronos_bolt_context.h"
#include "chronos_bolt_work.h"
#include "models/forecaster/chronos_bolt_file.h"
#include "ports/ports.h"
#include "insn_markers.h"  // same folder

extern "C" const uint8_t __model_flash_start__[];
extern "C" const uint8_t __model_flash_size__[];

alignas(16) static float work[CHRONOS_BOLT_WORK_FLOATS];
static float forecast[CHRONOS_BOLT_MAX_QUANTILES * CHRONOS_BOLT_HORIZON];
static float reference[CHRONOS_BOLT_MAX_QUANTILES * CHRONOS_BOLT_HORIZON];
static ax::ModelFile file;
static ax::ChronosBoltModel model;

static void run(const ax::Kernels& kernels, void (*begin)(), float* out) {
    begin();
    ax::chronos_bolt_forecast(kernels, model.weights, chronos_bolt_context, CHRONOS_BOLT_CONTEXT_ROWS,
                              CHRONOS_BOLT_HORIZON, out, work);
    auspex_insn_end();
}

int main() {
    const size_t region = reinterpret_cast<uintptr_t>(__model_flash_size__);
    ax::Status s = ax::ModelFile::open(__model_flash_start__, region, ax::Checksum::verify, &file);
    if (s) s = ax::chronos_bolt_open(file, &model);
    if (!s) {
        std::fprintf(stderr, "insn: %s\n", s.message());
        return 1;
    }
    if (ax::chronos_bolt_forecast_floats(model.weights.shape, CHRONOS_BOLT_HORIZON) > CHRONOS_BOLT_WORK_FLOATS ||
        model.weights.shape.quantiles > CHRONOS_BOLT_MAX_QUANTILES) {
        std::fprintf(stderr, "insn: the model needs more working memory than chronos_bolt_work.h gives\n");
        return 1;
    }
    std::printf("insn: kernels:");
    for (const char* name : ax::kKernelNames) std::printf(" %s", name);
    std::printf("\n");
    run(ax::generic_kernels(), auspex_insn_begin_generic, reference);
    std::printf("insn: context %d, horizon %d: generic forecast counted\n", CHRONOS_BOLT_CONTEXT_ROWS,
                CHRONOS_BOLT_HORIZON);
    const ax::Kernels& best = ax::best_kernels();
    if (&best == &ax::generic_kernels()) {
        std::printf("insn: best port: generic (no other port for this core)\n");
        return 0;
    }
    run(best, auspex_insn_begin_best, forecast);
    const bool same = std::memcmp(forecast, reference, sizeof forecast) == 0;
    std::printf("insn: best port: %s, forecast %s generic's\n", best.name, same ? "bit-identical to" : "differs from");
    return same ? 0 : 1;
}
