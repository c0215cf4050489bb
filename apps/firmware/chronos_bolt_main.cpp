// Chronos-Bolt on a bare-metal Cortex-M board: the int8 .axm is not linked into the image but read in place
// from the board's memory-mapped external flash (the linker script's __model_flash_start__; qemu's
// `-device loader` writes the file there, as a flash programmer would), opened with its checksum verified,
// and forecast 64 steps from the embedded context (chronos_bolt_context.h) into 9 quantile rows, with all
// working memory a static .bss array sized at build time from the host's figure (chronos_bolt_work.h).
// Prints one forecast step per line, the quantile levels as columns ("%.9g", comma-separated), exactly as
// `auspex forecast` prints it on the host; diagnostics go to stderr, errors with a non-zero exit status.
#include <cstdint>
#include <cstdio>

#include "chronos_bolt_context.h"  // generated: chronos_bolt_context[CHRONOS_BOLT_CONTEXT_ROWS], raw units
#include "chronos_bolt_work.h"     // generated: CHRONOS_BOLT_WORK_FLOATS, CHRONOS_BOLT_HORIZON
#include "models/forecaster/chronos_bolt_file.h"
#include "ports/ports.h"

// The external flash region (memory.ld's BIGRAM), from ports/firmware/image_flash_model.ld.
extern "C" const uint8_t __model_flash_start__[];
extern "C" const uint8_t __model_flash_size__[];

static_assert(CHRONOS_BOLT_CONTEXT_COLS == 1, "Chronos-Bolt forecasts one series");

alignas(16) static float work[CHRONOS_BOLT_WORK_FLOATS];
static float forecast[CHRONOS_BOLT_MAX_QUANTILES * CHRONOS_BOLT_HORIZON];
static ax::ModelFile file;
static ax::ChronosBoltModel model;

int main() {
    const size_t region = reinterpret_cast<uintptr_t>(__model_flash_size__);
    ax::Status s = ax::ModelFile::open(__model_flash_start__, region, ax::Checksum::verify, &file);
    if (s) s = ax::chronos_bolt_open(file, &model);
    if (!s) {
        std::fprintf(stderr, "no Chronos-Bolt model in external flash at %p: %s\n",
                     static_cast<const void*>(__model_flash_start__), s.message());
        return 1;
    }
    const ax::ChronosBoltShape& shape = model.weights.shape;
    const size_t need = ax::chronos_bolt_forecast_floats(shape, CHRONOS_BOLT_HORIZON);
    if (need > CHRONOS_BOLT_WORK_FLOATS || shape.quantiles > CHRONOS_BOLT_MAX_QUANTILES) {
        std::fprintf(stderr,
                     "the model needs %lu bytes of working memory and %lu quantile rows, this image has %lu and %lu: "
                     "build the image for this model (chronos_bolt_work.h)\n",
                     static_cast<unsigned long>(need * sizeof(float)), static_cast<unsigned long>(shape.quantiles),
                     static_cast<unsigned long>(sizeof work), static_cast<unsigned long>(CHRONOS_BOLT_MAX_QUANTILES));
        return 1;
    }
    ax::chronos_bolt_forecast(ax::best_kernels(), model.weights, chronos_bolt_context, CHRONOS_BOLT_CONTEXT_ROWS,
                              CHRONOS_BOLT_HORIZON, forecast, work);
    std::fprintf(stderr, "auspex: Chronos-Bolt %lu bytes read in place at %p, working memory %lu bytes in .bss\n",
                 static_cast<unsigned long>(file.file_size()), static_cast<const void*>(__model_flash_start__),
                 static_cast<unsigned long>(need * sizeof(float)));
    for (size_t t = 0; t < CHRONOS_BOLT_HORIZON; ++t)
        for (size_t q = 0; q < shape.quantiles; ++q)
            std::printf(q + 1 < shape.quantiles ? "%.9g," : "%.9g\n",
                        static_cast<double>(forecast[q * CHRONOS_BOLT_HORIZON + t]));
    return 0;
}
