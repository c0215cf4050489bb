// The CLI's Chronos-Bolt path: `convert` of the published directory and `forecast` with quantile columns.
// Kept beside the other commands so that they take it with one test each (is_chronos_bolt_model).
#pragma once
#include <string>

#include "tools/cli/commands.h"

namespace ax::cli {

// A published Chronos-Bolt directory, or a .axm forecaster of architecture chronos_bolt.
bool is_chronos_bolt_model(const std::string& path);

// convert DIR -o model.axm (float32; the options that apply to other checkpoints are refused by name).
int convert_chronos_bolt(const Args& args);
// forecast MODEL --input series.csv [--horizon N] [--quantiles 0.1,0.5,0.9] [-o out.csv] [--truth T.csv]
// [--plot P.svg] [--port P]: one column per quantile level, "q0.1".."q0.9"; missing values in the input are read
// as missing; --truth scores the median and the quantile loss; the plot draws the median and the band.
int forecast_chronos_bolt(const Args& args);

// inspect MODEL [--horizon N]: the model's shapes, storage and the working memory of one forecast.
int inspect_chronos_bolt(const Args& args);

// bench MODEL [--horizon N] [--runs R] [--port P] [--json]: the median time of a forecast from a context of the
// model's own length, with the port and the CPU it ran on (an emulator named as such).
int bench_chronos_bolt(const Args& args);

}  // namespace ax::cli
