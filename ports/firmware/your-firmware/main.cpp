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
    if (s) s = session.forecast(model_history, MODEL_WINDOW, MODEL_HORIZON, forecast);
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
