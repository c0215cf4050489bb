// `auspex header --history`: the rows a firmware forecasts from, as a C/C++ header beside the model's. The
// CSV is read by the same reader as `auspex forecast` (timestamps, header names, --columns, --fill), and the
// window is the one `forecast` would take from it, so the board and the host forecast from the same rows.
#pragma once
#include <string>
#include <vector>

#include "models/forecaster/forecaster.h"
#include "tools/cli/args.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace ax::cli {

// The encoder window of a forecast, in two steps around reading the input (which then reads only the window's
// rows). requested_window: --window, else the model's training window, else 0 (every row the input has),
// checked against max_positions. settle_window, once the input has been read: a 0 window becomes the
// input's `rows` (checked too); a window other than the training window and an input shorter than the
// window (used whole) are noted on stderr. `source` says where the window came from, for messages.
struct WindowChoice {
    size_t window = 0;
    std::string source;
};
WindowChoice requested_window(const Args& args, const ForecasterConfig& c);
size_t settle_window(WindowChoice& w, const ForecasterConfig& c, size_t rows, const std::string& input);

struct HistoryWindow {
    tools::Table rows;   // the last `window` rows of the CSV, one column per feature
    std::string source;  // where the window's length came from, for the status line
};

// Reads --history for the forecaster `m`: the last --window rows, else the model's stored training window,
// else (a model stating none) every row; an input shorter than the window is used whole, as forecast does.
HistoryWindow read_history_window(const Args& args, const tools::LoadedModel& m);

// "model_history" -> "MODEL_HISTORY", the prefix of the header's macros.
std::string macro_prefix(const std::string& name);
// A C float literal that reads back as the same float32 ("%.9g", e.g. 12 -> "12.f").
std::string float_literal(float value);

// The header text: NAME_ROWS, NAME_COLS and `static const float NAME[]`, each value printed so that it
// reads back as the same float32 ("%.9g").
std::string history_header_text(const HistoryWindow& h, const std::string& name, const std::string& csv_path);

}  // namespace ax::cli
