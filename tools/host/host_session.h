// A forecaster session on the host: an arena of exactly the size the runtime asks for, and calls that
// turn runtime errors into ToolError.
#pragma once
#include <memory>
#include <vector>

#include "models/forecaster/forecaster.h"
#include "tools/host/model_loader.h"
#include "tools/host/session_in_arena.h"

namespace ax::tools {

struct IntegerHostSession;  // tools/host/integer_host_session.h

class HostSession {
public:
    // A model converted with --integer-only runs in the integer-only mode (docs/integer-only.md) unless
    // `hybrid`: then its int8 weights run through `kernels` as any int8 model's.
    HostSession(const LoadedModel& model, const Kernels& kernels, size_t max_window, size_t max_horizon,
                bool hybrid = false);
    ~HostSession();

    // src: src_rows x n_features, tgt: tgt_rows x n_features; returns run_rows(src_rows, tgt_rows) x n_outputs
    // (an encoder-only model reads no tgt).
    std::vector<float> run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows, InputSpace space);
    // Returns horizon x n_outputs in raw units. `future` (future_rows x n_features): the known inputs of the
    // forecast's steps, for a decoder that reads inputs the model does not predict (ForecastSession::forecast).
    std::vector<float> forecast(const float* history, size_t rows, size_t horizon, const float* future = nullptr,
                                size_t future_rows = 0);
    std::vector<float> forecast_recompute(const float* history, size_t rows, size_t horizon,
                                          const float* future = nullptr, size_t future_rows = 0);

    size_t arena_bytes() const;
    bool integer_mode() const { return integer_ != nullptr; }

private:
    const LoadedModel& model_;
    SessionInArena<ForecastSession, Forecaster> s_;
    std::unique_ptr<IntegerHostSession> integer_;
};

}  // namespace ax::tools
