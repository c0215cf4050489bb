/* The bundled example forecaster on a bare-metal Cortex-M board, through the C API: the same model,
 * history, inputs known ahead and output as forecast_main.cpp, from plain C. The handle, the arena and the
 * output are static; nothing is allocated. */
#include <stdio.h>

#include "example_future.h"  /* generated: EXAMPLE_FUTURE_ROWS x EXAMPLE_FUTURE_COLS floats, raw units */
#include "example_history.h" /* generated: EXAMPLE_HISTORY_ROWS x EXAMPLE_HISTORY_COLS floats, raw units */
/* The model goes to the board's model store, region MODEL of its memory.ld (DDR on mps3-an547). */
#define EXAMPLE_MODEL_SECTION __attribute__((section(".axm_model")))
#include "example_model.h" /* generated: example_model[], EXAMPLE_MODEL_ARENA_BYTES, ... */
#include "api/auspex.h"

_Static_assert(EXAMPLE_HISTORY_ROWS == EXAMPLE_MODEL_WINDOW, "the arena is sized for the history's length");
_Static_assert(EXAMPLE_HISTORY_COLS == EXAMPLE_MODEL_N_FEATURES, "the history has one column per feature");
_Static_assert(EXAMPLE_FUTURE_COLS == EXAMPLE_MODEL_N_FEATURES, "future rows are laid out like the history's");

static _Alignas(64) unsigned char arena[EXAMPLE_MODEL_ARENA_BYTES];
static float forecast[EXAMPLE_MODEL_HORIZON * EXAMPLE_MODEL_N_OUTPUTS];
static auspex_forecaster fc;

int main(void) {
    size_t t, i;
    if (auspex_open(&fc, example_model, sizeof example_model, 1) != AUSPEX_OK ||
        auspex_session_init(&fc, arena, sizeof arena, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON) != AUSPEX_OK ||
#if EXAMPLE_FUTURE_ROWS != 0
        /* The model's decoder reads inputs known ahead: their values for the forecast's steps. */
        auspex_forecast_known(&fc, example_history, EXAMPLE_MODEL_WINDOW, example_future, EXAMPLE_FUTURE_ROWS,
                              EXAMPLE_MODEL_HORIZON, forecast) != AUSPEX_OK) {
#else
        auspex_forecast(&fc, example_history, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON, forecast) != AUSPEX_OK) {
#endif
        fprintf(stderr, "forecast failed: %s\n", auspex_status_message(&fc));
        return 1;
    }
    /* Diagnostics on stderr; stdout carries only the forecast, compared with the host's text. */
    fprintf(stderr, "auspex: model %lu bytes in flash, session arena %lu bytes used of %lu in .bss\n",
            (unsigned long)sizeof example_model,
            (unsigned long)auspex_arena_bytes(&fc, EXAMPLE_MODEL_WINDOW, EXAMPLE_MODEL_HORIZON),
            (unsigned long)sizeof arena);
    for (t = 0; t < EXAMPLE_MODEL_HORIZON; ++t)
        for (i = 0; i < EXAMPLE_MODEL_N_OUTPUTS; ++i)
            printf(i + 1 < EXAMPLE_MODEL_N_OUTPUTS ? "%.9g," : "%.9g\n",
                   (double)forecast[t * EXAMPLE_MODEL_N_OUTPUTS + i]);
    return 0;
}
