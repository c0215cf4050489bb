// The decoding block: how a forecast runs the model, chosen once when the model is opened (ForecastLoop).
// Step by step (the default) the decoder is fed its own predictions through a per-row generator; one pass, the
// decoder runs once over label_len observed rows and horizon placeholder rows (zeros, or the last observed
// value); an encoder-only model slides its window one prediction at a time, or predicts the horizon at once
// through a pooled head (per column when patched). Start token (Chronos-Bolt's): one decoder step from the token
// row start_id, the head giving quantiles x horizon at once; a longer forecast appends each quantile row to its
// own copy of the window and reduces the quantiles x quantiles paths of the next call to the quantile levels.
#pragma once
#include <cstddef>

#include "runtime/config_reader.h"
#include "runtime/format.h"
#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

struct ForecasterConfig;

enum class ForecastLoop {
    autoregressive,    // the decoder fed back its predictions, a KV cache making step t cost O(t)
    one_pass_decoder,  // the decoder once over label_len observed rows and the placeholders
    sliding,           // encoder-only with a per-row generator: the window slides one step at a time
    pooled,            // encoder-only with a pooled head: the whole horizon at once
    patched,           // pooled, each input column through the encoder on its own
    quantile_paths,    // one decoder step from a start token to quantiles x horizon, extended by quantile paths
};

struct DecodingBlock {
    format::Decoding mode = format::Decoding::autoregressive;
    format::Placeholder placeholder = format::Placeholder::zeros;
    size_t label_len = 0;  // one pass: observed rows the decoder reads before its placeholders
    size_t start_id = 0;   // start_token: the token row the decoder's one step reads

    // Records: decoding, placeholder, label_len; start_token: start_id.
    Status read(const ConfigRecords& f);
    Status check(const ForecasterConfig& c) const;
    void write(ConfigWriter& out) const;
};

// The loop a config runs (the config checked).
ForecastLoop forecast_loop(const ForecasterConfig& c);

}  // namespace ax
