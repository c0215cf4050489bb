// Where a plot's time axis puts its ticks: on round calendar steps (every 6 hours at 00, 06, 12, 18; each
// midnight; the first of a month), labelled as short as the step allows ("03-12 18:00", "2026-03-12",
// "2026-03"), instead of every n-th row's full timestamp.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "tools/text/csv_time.h"

namespace ax::tools {

struct TimeTick {
    size_t index = 0;   // the row (time index) the tick sits on
    std::string label;  // its short label
};

// Ticks for `times` (evenly spaced ISO timestamps, as a forecast's history and steps are), at most
// `most` of them; empty when the times are not dates (numbers, or a column that does not parse).
std::vector<TimeTick> time_ticks(const std::vector<std::string>& times, size_t most, bool decimal_comma,
                                 DateOrder order);

}  // namespace ax::tools
