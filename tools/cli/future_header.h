// `auspex header --future`: the inputs known ahead that a firmware's forecast reads for its own steps (a plan
// such as a setpoint, and the calendar columns of the steps' timestamps), as a C/C++ header beside the
// history's. The rows are what `auspex forecast --future` hands the session for the same history and plan,
// so the board and the host forecast from the same numbers.
#pragma once
#include <string>
#include <vector>

#include "tools/cli/args.h"
#include "tools/cli/history_header.h"
#include "tools/host/model_loader.h"

namespace ax::cli {

struct FutureWindow {
    std::vector<float> values;       // rows x cols, laid out like the history's rows
    size_t rows = 0;                 // the future rows a forecast of the header's horizon reads (0: none)
    size_t cols = 0;                 // n_features
    std::vector<std::string> read;   // the columns the model reads from these rows, as named for the comment
    std::vector<std::string> times;  // each row's timestamp, when the forecast's steps have them
};

// The known inputs of a forecast of `horizon` steps from the history `h` (read by read_history_window):
// --future's plan matched to the steps, the calendar columns computed from the steps' timestamps. Columns the
// model does not read are 0. A model whose decoder reads no input known ahead gives 0 rows.
FutureWindow read_future_window(const Args& args, const tools::LoadedModel& m, const HistoryWindow& h, size_t horizon);

// The header text: NAME_ROWS, NAME_COLS and `static const float NAME[]` ("%.9g", as the history's).
std::string future_header_text(const FutureWindow& f, const std::string& name, const std::string& source);

}  // namespace ax::cli
