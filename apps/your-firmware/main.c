/* The same forecast through the C API (api/auspex.h), from plain C. */
#include <stdio.h>

#include "model_history.h" /* auspex header --history: MODEL_HISTORY_ROWS x MODEL_HISTORY_COLS floats */
#define MODEL_SECTION __attribute__((section(".axm_model"))) /* the board's model store (memory.ld) */
#include "model.h" /* auspex header: model[], MODEL_ARENA_BYTES, MODEL_WINDOW, MODEL_HORIZON, ... */
#include "api/auspex.h"
#ifdef MODEL_KNOWN_INPUTS
/* The model's decoder reads inputs known ahead (a plan, calendar columns): their values for the forecast's
 * steps, written by `auspex header ... --history HISTORY.csv --future PLAN.csv` (MODEL_FUTURE_ROWS rows laid
 * out like the history's). On the device, fill such rows from the plan and the clock instead. */
#include "model_future.h"
#define FUTURE model_future
#define FUTURE_ROWS MODEL_FUTURE_ROWS
#else
#define FUTURE NULL
#define FUTURE_ROWS 0
#endif

_Static_assert(MODEL_HISTORY_ROWS == MODEL_WINDOW, "the arena is sized for the history's rows");

static _Alignas(64) unsigned char arena[MODEL_ARENA_BYTES];
static float forecast[MODEL_HORIZON * MODEL_N_OUTPUTS];
static auspex_forecaster fc;

int main(void) {
    unsigned t, i;
    if (auspex_open(&fc, model, sizeof model, 1) != AUSPEX_OK ||
        auspex_session_init(&fc, arena, sizeof arena, MODEL_WINDOW, MODEL_HORIZON) != AUSPEX_OK ||
        auspex_forecast_known(&fc, model_history, MODEL_WINDOW, FUTURE, FUTURE_ROWS, MODEL_HORIZON, forecast) !=
            AUSPEX_OK) {
        fprintf(stderr, "forecast failed: %s\n", auspex_status_message(&fc));
        return 1;
    }
    for (t = 0; t < MODEL_HORIZON; ++t)
        for (i = 0; i < MODEL_N_OUTPUTS; ++i)
            printf(i + 1 < MODEL_N_OUTPUTS ? "%.9g," : "%.9g\n", (double)forecast[t * MODEL_N_OUTPUTS + i]);
    return 0;
}
