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

    // src: src_rows x n_features, tgt: tgt_rows x n_features; returns run_rows(src_rows, tgt_rows) x n_outputs
    // (an encoder-only model reads no tgt).
    std::vector<float> run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space);
    // Returns horizon x n_outputs in raw units. `future` (future_rows x n_features): the known inputs of the
    // forecast's steps, for a decoder that reads inputs the model does not predict (ForecastSession::forecast).
    std::vector<float> forecast(const float* history, size_t rows, size_t horizon, const float* future = nullptr,
                                size_t future_rows = 0);
    std::vector<float> forecast_recompute(const float* history, size_t rows, size_t horizon,
                                          const float* future = nullptr, size_t future_rows = 0);

    size_t arena_bytes() const { return s_.arena_bytes(); }

private:
    const LoadedModel& model_;
    SessionInArena<ForecastSession, Forecaster> s_;
};

}  // namespace ax::tools
