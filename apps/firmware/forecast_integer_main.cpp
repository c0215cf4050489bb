// The bundled example forecaster in the integer-only mode (docs/integer-only.md) on a bare-metal Cortex-M
// board: the model converted with `--dtype int8 --integer-only --calib`, a const array in flash; the
// session in a static arena in .bss; the held-out history forecast 24 steps ahead. The forecast itself
// (IntegerForecastSession::forecast_q) is integer arithmetic only: ports/firmware/check_float_free.py proves
// on the linked image that nothing it reaches calls a floating-point routine. Float appears only at the
// edges, normalizing the history and scaling the forecast back, and in printing it ("%.9g" per line, as the
// host prints it, which the run must match byte for byte). The kernels are the mcu port's integer table, whose
// linear layers suit the core the image is compiled for (ports/mcu/integer_mcu.h): generic's bits.
#include <cstdint>
#include <cstdio>

#include "example_history.h"  // generated: EXAMPLE_HISTORY_ROWS x EXAMPLE_HISTORY_COLS floats, raw units
#define EXAMPLE_INTEGER_MODEL_SECTION __attribute__((section(".axm_model")))
#include "example_integer_model.h"  // generated: example_integer_model[], EXAMPLE_INTEGER_MODEL_ARENA_BYTES, ...
#include "models/forecaster/forecaster_integer.h"
#include "ports/mcu/integer_mcu.h"

static_assert(EXAMPLE_HISTORY_ROWS == EXAMPLE_INTEGER_MODEL_WINDOW, "the arena is sized for the history's length");
static_assert(EXAMPLE_HISTORY_COLS == EXAMPLE_INTEGER_MODEL_N_FEATURES, "the history has one column per feature");

alignas(64) static uint8_t arena[EXAMPLE_INTEGER_MODEL_ARENA_BYTES];
static float forecast[EXAMPLE_INTEGER_MODEL_HORIZON * EXAMPLE_INTEGER_MODEL_N_OUTPUTS];
static ax::ModelFile file;
static ax::Forecaster model;
static ax::IntegerForecaster integer_model;
static ax::IntegerForecastSession session;

// Markers for the instruction-count plugin (tools/insn/insn_plugin.c): the forecast between them is region
// "integer" of a run under `qemu-system-arm -plugin insn_plugin.so -d plugin`; they cost a store each.
extern "C" {
volatile uint32_t auspex_insn_marker;
__attribute__((noinline, used)) void auspex_insn_begin_integer() { auspex_insn_marker = 1; }
__attribute__((noinline, used)) void auspex_insn_end() { auspex_insn_marker = 0; }
}

int main() {
    ax::Status s =
        ax::ModelFile::open(example_integer_model, sizeof example_integer_model, ax::Checksum::verify, &file);
    if (s) s = ax::Forecaster::open(file, &model);
    if (s) s = ax::IntegerForecaster::open(model, &integer_model);
    if (s)
        s = session.init(integer_model, ax::mcu_integer_kernels(), arena, sizeof arena, EXAMPLE_INTEGER_MODEL_WINDOW,
                         EXAMPLE_INTEGER_MODEL_HORIZON);
    if (s) {
        auspex_insn_begin_integer();
        s = session.forecast(example_history, EXAMPLE_INTEGER_MODEL_WINDOW, EXAMPLE_INTEGER_MODEL_HORIZON, forecast);
        auspex_insn_end();
    }
    if (!s) {
        std::fprintf(stderr, "forecast failed: %s\n", s.message());
        return 1;
    }
    std::fprintf(stderr, "auspex: integer-only model %lu bytes in flash, session arena %lu bytes in .bss\n",
                 static_cast<unsigned long>(sizeof example_integer_model), static_cast<unsigned long>(sizeof arena));
    for (size_t t = 0; t < EXAMPLE_INTEGER_MODEL_HORIZON; ++t)
        for (size_t i = 0; i < EXAMPLE_INTEGER_MODEL_N_OUTPUTS; ++i)
            std::printf(i + 1 < EXAMPLE_INTEGER_MODEL_N_OUTPUTS ? "%.9g," : "%.9g\n",
                        static_cast<double>(forecast[t * EXAMPLE_INTEGER_MODEL_N_OUTPUTS + i]));
    return 0;
}
