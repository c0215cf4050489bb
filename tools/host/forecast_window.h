// How many rows a forecaster command reads: the defaults when neither the user nor the model says, and the
// model's positional limit (max_positions), which no window or decoder length may pass.
#pragma once
#include <cstddef>
#include <string>

#include "models/forecaster/forecaster.h"

namespace ax::tools {

// For models that state no training window (converted without "window", or files from before the key).
constexpr size_t kDefaultWindow = 96;
constexpr size_t kDefaultHorizon = 24;

// The model's training window, or kDefaultWindow (capped at max_positions) when it states none.
size_t default_window(const ForecasterConfig& c);

// The model's trained horizon for a one-pass model, else kDefaultHorizon.
size_t default_horizon(const ForecasterConfig& c);

// Throw ToolError when the encoder window / decoder length passes max_positions. `what` says where the
// length came from (e.g. "--window 65"), for the message.
void check_window_fits(const ForecasterConfig& c, size_t window, const std::string& what);
// "" when `window` is the model's training window or the model states none; else a note that forecasts from
// a window training never saw were not compared with PyTorch. `what` names where it came from ("--window 32").
std::string window_note(const ForecasterConfig& c, size_t window, const std::string& what);

void check_horizon_fits(const ForecasterConfig& c, size_t horizon, const std::string& what);
// "" unless `horizon` is past the steps a model feeding its predictions back was trained to forecast (config
// "horizon", ForecasterConfig::trained_horizon): the later steps feed back predictions further than training
// ever did, which no check pair covers.
std::string horizon_note(const ForecasterConfig& c, size_t horizon, const std::string& what);

}  // namespace ax::tools
