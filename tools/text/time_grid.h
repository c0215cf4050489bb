// Where a time column leaves its even spacing: a gap (rows missing), a duplicated timestamp, a row earlier
// than the one above it, or a row off the grid. A forecaster reads its window as consecutive steps and
// its known inputs by timestamp, so each of these changes what it computes without changing any shape.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/text/csv.h"

namespace ax::tools {

struct GridBreak {
    enum class Kind { gap, duplicate, disorder, off_grid };
    Kind kind = Kind::gap;
    size_t row = 0;      // the row (0-based) that breaks the spacing; it follows row - 1
    size_t missing = 0;  // gap: the rows missing between row - 1 and row
};

struct TimeGrid {
    // False when the column is not one the grid can be found on (mixed dates and numbers, numbers written
    // with exponents, one row): `why` says so, and `breaks` is empty.
    bool known = false;
    std::string why;
    std::string step;               // the usual spacing, as text ("1 hour", "1 month", "0.5")
    std::vector<GridBreak> breaks;  // in row order
    // Internal: the rows' positions on the grid and its step, in the grid's unit (see time_grid.cpp).
    enum class Unit { micros, months, scaled_number } unit = Unit::micros;
    std::vector<int64_t> positions;
    int64_t step_units = 0;
    int decimals = 0;
};

// The grid of `times` (a Table's time column): the usual step is the most common positive difference
// between neighbours, measured in UTC when the timestamps give offsets (a daylight-saving change written
// with its offsets is no break), in calendar months for monthly dates, by value for numbers.
TimeGrid time_grid(const std::vector<std::string>& times, bool decimal_comma, DateOrder order);

// What a break is, for an error message: "the row at '2024-03-05T14:00' comes 3 hours after
// '2024-03-05T11:00', where the rows are 1 hour apart: 2 rows are missing".
std::string describe_break(const TimeGrid& grid, const std::vector<std::string>& times, const GridBreak& b);

// Inserts the rows of every gap of `grid` into `table` (whose times it was found on), each timestamp on
// the grid in the style of the row above, the values filled as `fill` says (previous: the row above;
// linear: on the straight line between the rows around the gap). Returns the number of rows inserted.
// Only gaps: a table with another kind of break is left as it is and 0 returned.
size_t fill_time_gaps(Table& table, const TimeGrid& grid, Fill fill);

}  // namespace ax::tools
