// The bundled example forecaster on a bare-metal Cortex-M board, through the C++ API: the int8 model is a
// const array in flash (example_model.h, made by `auspex header`), the session lives in a static arena in
// .bss sized at compile time, and the held-out history (example_history.h) is forecast 24 steps ahead. A
// model whose decoder reads inputs known ahead (a plan, calendar columns) gets them for the forecast's steps
// from example_future.h (`auspex header --future`; no rows for a model reading none).
// Prints one forecast row per line ("%.9g", comma-separated outputs), exactly as `auspex forecast` does on
// the host; diagnostics go to stderr, errors with a non-zero exit status. (newlib's printf here has no %zu.)
#include <cstdint>
#include <cstdio>

#include "example_future.h"   // generated: EXAMPLE_FUTURE_ROWS x EXAMPLE_FUTURE_COLS floats, raw units
#include "example_history.h"  // generated: EXAMPLE_HISTORY_ROWS x EXAMPLE_HISTORY_COLS floats, raw units
// The model goes to the board's model store, region MODEL of its memory.ld (DDR on mps3-an547).
#define EXAMPLE_MODEL_SECTION __attribute__((section(".axm_model")))
#include "example_model.h"  // generated: example_model[], EXAMPLE_MODEL_ARENA_BYTES, ...
#include "models/forecaster/forecaster.h"
#include "ports/ports.h"

static_assert(EXAMPLE_HISTORY_ROWS == EXAMPLE_MODEL_WINDOW, "the arena is sized for the history's length");
static_assert(EXAMPLE_HISTORY_COLS == EXAMPLE_MODEL_N_FEATURES, "the history has one column per feature");
static_assert(EXAMPLE_FUTURE_COLS == EXAMPLE_MODEL_N_FEATURES, "future rows are laid out like the history's");

alignas(64) static uint8_t arena[EXAMPLE_MODEL_ARENA_BYTES];
static float forecast[EXAMPLE_MODEL_HORIZON * EXAMPLE_MODEL_N_OUTPUTS];
static ax::ModelFile file;
static ax::Forecaster model;
static ax::ForecastSession session;

int main() {
    const float* future = EXAMPLE_FUTURE_ROWS != 0 ? example_future : nullptr;
    ax::Status s = ax::ModelFile::open(example_model, sizeof example_model, ax::Checksum::verify, &file);
    if (s) s = ax::Forecaster::open(file, &model);
    if (s)
        s = session.init(model, ax::best_kernels(), arena, sizeof arena, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON);
    if (s)
        s = session.forecast(example_history, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON, forecast, future,
                             EXAMPLE_FUTURE_ROWS);
    if (!s) {
        std::fprintf(stderr, "forecast failed: %s\n", s.message());
        return 1;
    }
    // Diagnostics on stderr; stdout carries only the forecast, compared with the host's text.
    std::fprintf(stderr, "auspex: model %lu bytes in flash, session arena %lu bytes used of %lu in .bss\n",
                 static_cast<unsigned long>(sizeof example_model),
                 static_cast<unsigned long>(model.arena_bytes(EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON)),
                 static_cast<unsigned long>(sizeof arena));
    for (size_t t = 0; t < EXAMPLE_MODEL_HORIZON; ++t)
        for (size_t i = 0; i < EXAMPLE_MODEL_N_OUTPUTS; ++i)
            std::printf(i + 1 < EXAMPLE_MODEL_N_OUTPUTS ? "%.9g," : "%.9g\n",
                        static_cast<double>(forecast[t * EXAMPLE_MODEL_N_OUTPUTS + i]));
    return 0;
}
