#include "tools/host/forecast_window.h"

#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

std::string limit_text(const ForecasterConfig& c) {
    return "the model's " + std::to_string(c.max_positions) +
           " positions (max_positions, which auspex convert took from the positional-encoding buffer's rows or "
           "the config; the PyTorch model refuses longer inputs too)";
}

}  // namespace

size_t default_window(const ForecasterConfig& c) {
    if (c.window != 0) return c.window;
    return c.max_positions != 0 && c.max_positions < kDefaultWindow ? c.max_positions : kDefaultWindow;
}

std::string window_note(const ForecasterConfig& c, size_t window, const std::string& what) {
    if (c.window == 0 || window == c.window) return "";
    return what + " differs from the " + std::to_string(c.window) +
           "-row window the model was trained on (stored by convert): the model runs, but nothing checked "
           "how well it forecasts from " +
           std::to_string(window) + " rows; leave --window out to use " + std::to_string(c.window);
}

void check_window_fits(const ForecasterConfig& c, size_t window, const std::string& what) {
    if (c.head.kind == format::ForecastHead::flatten && window != c.window)
        throw ToolError(what + ": the model's flatten head reads exactly " + std::to_string(c.window) +
                        " rows (its training window), not " + std::to_string(window));
    if (c.max_positions == 0 || c.encoder_rows(window) <= c.max_positions) return;
    throw ToolError(what + ": a window of " + std::to_string(window) + " rows is longer than " + limit_text(c) +
                    "; use --window " + std::to_string(c.max_positions) + " or less" +
                    (c.window ? " (the model was trained on " + std::to_string(c.window) + ")" : std::string()));
}

size_t default_horizon(const ForecasterConfig& c) { return c.one_pass() ? c.horizon : kDefaultHorizon; }

void check_horizon_fits(const ForecasterConfig& c, size_t horizon, const std::string& what) {
    // Chronos-Bolt's quantile paths go past its steps per call (the authors' pipeline's rule).
    if (c.one_pass() && horizon > c.horizon && c.loop != ForecastLoop::quantile_paths)
        throw ToolError(what + ": this model predicts " + std::to_string(c.horizon) +
                        " steps at once (its trained horizon); use --horizon " + std::to_string(c.horizon) +
                        " or less. A longer horizon needs a model trained for it: a one-pass head has no way to "
                        "feed its predictions back");
    if (c.input.token_conv() && !c.encoder_only() && horizon != c.horizon)
        throw ToolError(what + ": this model's token convolution wraps around the decoder's " +
                        std::to_string(c.decoding.label_len + c.horizon) + " rows, so only its trained horizon (" +
                        std::to_string(c.horizon) + ") is its forward; use --horizon " + std::to_string(c.horizon) +
                        " and keep the steps you need");
    if (!c.stack.decoder_causal && c.decoding.mode == format::Decoding::one_pass && horizon != c.horizon)
        throw ToolError(what +
                        ": this model's decoder has no causal mask, so every placeholder row attends to "
                        "every other and only its trained horizon (" +
                        std::to_string(c.horizon) + ") is its forward; use --horizon " + std::to_string(c.horizon) +
                        " and keep the steps you need");
    const size_t rows = c.decoder_rows(horizon);
    if (c.max_positions == 0 || rows <= c.max_positions) return;
    throw ToolError(what + ": the decoder's " + std::to_string(rows) + " rows would be longer than " + limit_text(c) +
                    "; use --horizon " + std::to_string(c.max_positions - (rows - horizon)) + " or less");
}

std::string horizon_note(const ForecasterConfig& c, size_t horizon, const std::string& what) {
    if (c.one_pass() || c.trained_horizon == 0 || horizon <= c.trained_horizon) return "";
    return what + " is past the " + std::to_string(c.trained_horizon) +
           " steps the model was trained to forecast (config \"horizon\"): from step " +
           std::to_string(c.trained_horizon + 1) +
           " on it feeds back predictions further than training did, and its errors compound; compare such "
           "forecasts with held-out data before trusting them";
}

}  // namespace ax::tools
