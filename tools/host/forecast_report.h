// Forecast beside truth, step by step, with MAE, RMSE and MAPE per feature.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tools/text/csv.h"

namespace ax::tools {

// The forecast's rows that have a truth row, and those truth rows, in forecast order.
struct AlignedTruth {
    Table forecast;
    Table truth;
    std::vector<size_t> steps;  // the forecast row (0-based) of each kept row
};

// Pairs truth rows with forecast rows: by timestamp when `timed` (the forecast's rows carry real times)
// and the truth file has a time column, keeping the forecast rows whose time the truth holds (truth rows
// outside the forecast are left out); else row by row, the first min(rows) of each. Throws ToolError,
// naming `truth_source` and both spans, when the timestamps share no row.
AlignedTruth align_truth(const Table& forecast, bool timed, const Table& truth, const std::string& truth_source);

// Compares the aligned rows; the tables must have the same columns.
std::string forecast_report(const AlignedTruth& aligned);

}  // namespace ax::tools
