// Whether a forecaster's input columns differ so much in magnitude that one int8 scale over a row of them (the
// integer-only mode's single input scale, or the int8 mode's per-row activations) loses the small ones.
#pragma once
#include <string>
#include <vector>

#include "tools/text/csv.h"

namespace ax::tools {

// Columns whose largest |value| in `data` is this many times another's are "of very different magnitudes".
constexpr double kMagnitudeSpread = 10.0;

// True when the largest |value| of one column of `data` is at least kMagnitudeSpread times another's (columns
// all zero aside): inputs in their own units, as a raw-unit model reads them.
bool magnitudes_spread(const Table& data);

// A note naming the largest and the smallest column (by largest |value| in data) when they are at least
// kMagnitudeSpread apart, saying what it costs and what to do; empty otherwise. names: the columns' names.
std::string magnitude_spread_note(const Table& data, const std::vector<std::string>& names);

}  // namespace ax::tools
