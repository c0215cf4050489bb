// The timestamps of a forecast's window: evenly spaced, or the forecast is refused. A gap, a duplicated
// row or rows out of order change what the model reads without changing a shape, and a model that reads
// inputs by timestamp (calendar columns, inputs known ahead) would pair them with the wrong steps.
#pragma once
#include <string>

#include "tools/cli/args.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace ax::cli {

// True when the forecaster `m` reads inputs by timestamp: calendar columns, or inputs known ahead.
bool reads_times(const tools::LoadedModel& m);

// Checks the time column of `rows` (read from --`option`; nothing to check without one). A gap is filled
// when --fill asks (rows inserted on the grid, noted on stderr), else refused naming the rows around it; a
// duplicated timestamp or a row earlier than the one above it is always refused. Rows off the grid are
// refused when `by_time` (the model reads inputs by timestamp); otherwise they are left for the forecast's
// own note (its steps are then numbered).
void settle_window_times(tools::Table& rows, const Args& args, const std::string& option, bool by_time);

}  // namespace ax::cli
