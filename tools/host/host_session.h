// A forecaster session on the host: an arena of exactly the size the runtime asks for, and calls that
// turn runtime errors into ToolError.
#pragma once
#include <vector>

#include "models/forecaster/forecaster.h"
#include "tools/host/model_loader.h"
#include "tools/host/session_in_arena.h"

namespace ax::tools {

class HostSession {
public:
    HostSession(const LoadedModel& model, const Kernels& kernels, size_t max_window, size_t max_horizon);

    // src: src_rows x n_features, tgt: tgt_rows x n_features; returns tgt_rows x n_outputs.
    std::vector<float> run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space);
    // Returns horizon x n_features in raw units.
    std::vector<float> forecast(const float* history, size_t rows, size_t horizon);
    std::vector<float> forecast_recompute(const float* history, size_t rows, size_t horizon);

    size_t arena_bytes() const { return s_.arena_bytes(); }

private:
    const LoadedModel& model_;
    SessionInArena<ForecastSession, Forecaster> s_;
};

}  // namespace ax::tools
