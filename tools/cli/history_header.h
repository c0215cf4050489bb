// `auspex header --history`: the rows a firmware forecasts from, as a C/C++ header beside the model's. The
// CSV is read by the same reader as `auspex forecast` (timestamps, header names, --columns, --fill), and the
// window is the one `forecast` would take from it, so the board and the host forecast from the same rows.
#pragma once
#include <string>

#include "models/forecaster/forecaster.h"
#include "tools/cli/args.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace ax::cli {

// The encoder window of a forecast from `rows` input rows: --window, else the model's training window, else
// (a model stating none) every row. `source` says which, for messages. Checks it against max_positions and
// notes on stderr a window other than the training window.
struct WindowChoice {
    size_t window = 0;
    std::string source;
};
WindowChoice choose_window(const Args& args, const ForecasterConfig& c, size_t rows, const std::string& input);

struct HistoryWindow {
    tools::Table rows;   // the last `window` rows of the CSV, one column per feature
    std::string source;  // where the window's length came from, for the status line
    size_t total_rows = 0;
};

// Reads --history for the forecaster `m`: the last --window rows, else the model's stored training window,
// else (a model stating none) every row; an input shorter than the window is used whole, as forecast does.
HistoryWindow read_history_window(const Args& args, const tools::LoadedModel& m);

// The header text: NAME_ROWS, NAME_COLS and `static const float NAME[]`, each value printed so that it
// reads back as the same float32 ("%.9g").
std::string history_header_text(const HistoryWindow& h, const std::string& name, const std::string& csv_path);

}  // namespace ax::cli
