// A forecast on the board through the C++ API: the model is a const array in flash (model.h), the session
// lives in a static arena sized at compile time, and nothing is allocated. Prints one forecast row per
// line, comma-separated, as `auspex forecast` does.
#include <cstdint>
#include <cstdio>

#include "model_history.h"  // auspex header --history: MODEL_HISTORY_ROWS x MODEL_HISTORY_COLS floats
#define MODEL_SECTION __attribute__((section(".axm_model")))  // the board's model store (memory.ld)
#include "model.h"  // auspex header: model[], MODEL_ARENA_BYTES, MODEL_WINDOW, MODEL_HORIZON, ...
#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#ifdef MODEL_KNOWN_INPUTS
// The model's decoder reads inputs known ahead (a plan, calendar columns): their values for the forecast's
// steps, written by `auspex header ... --history HISTORY.csv --future PLAN.csv` (MODEL_FUTURE_ROWS rows laid
// out like the history's). On the device, fill such rows from the plan and the clock instead.
#include "model_future.h"
static const float* const future = model_future;
static const size_t future_rows = MODEL_FUTURE_ROWS;
#else
static const float* const future = nullptr;
static const size_t future_rows = 0;
#endif

static_assert(MODEL_HISTORY_ROWS == MODEL_WINDOW, "the arena is sized for the history's rows");

alignas(64) static uint8_t arena[MODEL_ARENA_BYTES];
static float forecast[MODEL_HORIZON * MODEL_N_OUTPUTS];
static ax::ModelFile file;
static ax::Forecaster forecaster;
static ax::ForecastSession session;

int main() {
    ax::Status s = ax::ModelFile::open(model, sizeof model, ax::Checksum::verify, &file);
    if (s) s = ax::Forecaster::open(file, &forecaster);
    if (s) s = session.init(forecaster, ax::best_kernels(), arena, sizeof arena, MODEL_WINDOW, MODEL_HORIZON);
    if (s) s = session.forecast(model_history, MODEL_WINDOW, MODEL_HORIZON, forecast, future, future_rows);
    if (!s) {
        std::fprintf(stderr, "forecast failed: %s\n", s.message());
        return 1;
    }
    for (unsigned t = 0; t < MODEL_HORIZON; ++t)
        for (unsigned i = 0; i < MODEL_N_OUTPUTS; ++i)
            std::printf(i + 1 < MODEL_N_OUTPUTS ? "%.9g," : "%.9g\n",
                        static_cast<double>(forecast[t * MODEL_N_OUTPUTS + i]));
    return 0;
}
