// The integer-only mode's session on the host (docs/integer-only.md): the integer model opened over a
// forecaster, an arena of exactly its size, the generic integer kernels (the only ones: every port's integer
// results are these bits).
#pragma once
#include <cstddef>

#include "models/forecaster/forecaster_integer.h"
#include "tools/common/aligned_buffer.h"
#include "tools/host/model_loader.h"

namespace ax::tools {

struct IntegerHostSession {
    IntegerHostSession(const LoadedModel& model, size_t max_window, size_t max_horizon);

    IntegerForecaster model;
    AlignedBuffer arena;
    IntegerForecastSession session;
};

}  // namespace ax::tools
