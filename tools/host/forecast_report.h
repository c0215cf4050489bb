// Forecast beside truth, step by step, with MAE, RMSE and MAPE per feature.
#pragma once
#include <string>

#include "tools/text/csv.h"

namespace ax::tools {

// Compares the first min(forecast.rows, truth.rows) steps; the tables must have the same columns.
std::string forecast_report(const Table& forecast, const Table& truth);

}  // namespace ax::tools
