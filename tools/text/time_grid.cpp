#include "tools/text/time_grid.h"

#include <algorithm>
#include <cmath>

#include "tools/text/time_stamp.h"

namespace ax::tools {

using namespace stamps;

namespace {

constexpr int kMaxDecimals = 9;

// The most common positive difference between neighbours (the smallest of equally common ones); 0 when no
// neighbours differ by a positive amount.
int64_t usual_step(const std::vector<int64_t>& positions) {
    std::vector<int64_t> diffs;
    for (size_t i = 0; i + 1 < positions.size(); ++i)
        if (positions[i + 1] > positions[i]) diffs.push_back(positions[i + 1] - positions[i]);
    std::sort(diffs.begin(), diffs.end());
    int64_t best = 0;
    size_t best_count = 0;
    for (size_t i = 0; i < diffs.size();) {
        size_t j = i;
        while (j < diffs.size() && diffs[j] == diffs[i]) ++j;
        if (j - i > best_count) best = diffs[i], best_count = j - i;
        i = j;
    }
    return best;
}

// Dates that fall on the same day of the month (or each on the last day of its month) at the same time.
bool month_grid(const std::vector<Stamp>& t) {
    bool same_day = true, all_end = true;
    for (const Stamp& s : t) {
        same_day = same_day && s.day == t[0].day;
        all_end = all_end && s.month_end();
        if (s.micros_of_day != t[0].micros_of_day) return false;
    }
    return same_day || all_end;
}

std::string amount(const TimeGrid& g, int64_t units) {
    switch (g.unit) {
        case TimeGrid::Unit::micros:
            return duration(units);
        case TimeGrid::Unit::months:
            return std::to_string(units) + (units == 1 || units == -1 ? " month" : " months");
        case TimeGrid::Unit::scaled_number:
            break;
    }
    Stamp style;
    style.decimals = g.decimals;
    return number_text(static_cast<double>(units) / std::pow(10.0, g.decimals), style, false);
}

// The timestamp `k` steps after row `row` (whose text is `text`), in its style.
std::string grid_time(const TimeGrid& g, const std::string& text, int64_t k, bool decimal_comma, DateOrder order) {
    Stamp s;
    if (g.unit == TimeGrid::Unit::scaled_number) {
        parse_number(text, decimal_comma, s);
        s.decimals = g.decimals;
        const double step = static_cast<double>(g.step_units) / std::pow(10.0, g.decimals);
        return number_text(s.number + step * static_cast<double>(k), s, decimal_comma);
    }
    parse_stamp(text, order, s);
    std::string out = text;
    if (g.unit == TimeGrid::Unit::months) {
        const int64_t index = s.month_index() + g.step_units * k;
        const int64_t y = index / 12;
        const int m = static_cast<int>(index % 12) + 1;
        const int d = s.month_end() ? days_in_month(y, m) : std::min(s.day, days_in_month(y, m));
        return format_iso(s, y, m, d, s.micros_of_day);
    }
    format_micros(s, s.micros() + g.step_units * k, out);
    return out;
}

}  // namespace

TimeGrid time_grid(const std::vector<std::string>& times, bool decimal_comma, DateOrder order) {
    TimeGrid g;
    if (times.size() < 2) {
        g.why = "one timestamp gives no spacing";
        return g;
    }
    std::vector<Stamp> t(times.size());
    size_t dates = 0, numbers = 0;
    for (size_t i = 0; i < times.size(); ++i) {
        if (parse_stamp(times[i], order, t[i]))
            ++dates;
        else if (parse_number(times[i], decimal_comma, t[i]))
            ++numbers;
    }
    if (dates != times.size() && numbers != times.size()) {
        g.why = "the time column mixes dates, numbers or other text";
        return g;
    }
    g.positions.resize(times.size());
    if (numbers == times.size()) {
        g.unit = TimeGrid::Unit::scaled_number;
        for (const Stamp& s : t) {
            if (s.exponent || s.decimals > kMaxDecimals) {
                g.why = "numbers written with exponents or more than 9 decimals";
                return g;
            }
            g.decimals = std::max(g.decimals, s.decimals);
        }
        const double scale = std::pow(10.0, g.decimals);
        for (size_t i = 0; i < t.size(); ++i) g.positions[i] = std::llround(t[i].number * scale);
    } else {
        for (const Stamp& s : t)
            if (s.zoned != t[0].zoned) {
                g.why = "the timestamps mix ones with and without a UTC offset";
                return g;
            }
        if (month_grid(t)) {
            g.unit = TimeGrid::Unit::months;
            for (size_t i = 0; i < t.size(); ++i) g.positions[i] = t[i].month_index();
        }
        if (!month_grid(t) || usual_step(g.positions) == 0) {
            g.unit = TimeGrid::Unit::micros;
            for (size_t i = 0; i < t.size(); ++i) g.positions[i] = t[i].instant();
            // A daily or longer step keeps the wall clock across a daylight-saving change (pandas' date_range
            // with a zone does), so such a series is read on the wall clock.
            std::vector<int64_t> wall(t.size());
            for (size_t i = 0; i < t.size(); ++i) wall[i] = t[i].micros();
            const int64_t wall_step = usual_step(wall);
            if (t[0].zoned && wall_step > 0 && wall_step % kMicrosPerDay == 0) g.positions = wall;
        }
    }
    g.known = true;
    g.step_units = usual_step(g.positions);
    if (g.step_units > 0) g.step = amount(g, g.step_units);
    for (size_t i = 1; i < times.size(); ++i) {
        const int64_t d = g.positions[i] - g.positions[i - 1];
        GridBreak b;
        b.row = i;
        if (d == g.step_units && d > 0) continue;
        if (d == 0) {
            b.kind = GridBreak::Kind::duplicate;
        } else if (d < 0) {
            b.kind = GridBreak::Kind::disorder;
        } else if (d % g.step_units == 0) {
            b.kind = GridBreak::Kind::gap;
            b.missing = static_cast<size_t>(d / g.step_units - 1);
        } else {
            b.kind = GridBreak::Kind::off_grid;
        }
        g.breaks.push_back(b);
    }
    return g;
}

std::string describe_break(const TimeGrid& g, const std::vector<std::string>& times, const GridBreak& b) {
    const std::string& before = times[b.row - 1];
    const std::string& at = times[b.row];
    const std::string apart = g.positions[b.row] - g.positions[b.row - 1] > 0
                                  ? amount(g, g.positions[b.row] - g.positions[b.row - 1])
                                  : std::string();
    switch (b.kind) {
        case GridBreak::Kind::duplicate:
            return "two rows at '" + at + "' (a duplicated row" +
                   (before != at ? ": '" + before + "' and '" + at + "' are the same instant" : std::string()) + ")";
        case GridBreak::Kind::disorder:
            return "the row at '" + at + "' comes after the row at '" + before +
                   "', which is later: the rows are not in time order";
        case GridBreak::Kind::gap:
            return "the row at '" + at + "' comes " + apart + " after '" + before + "', where the rows are " + g.step +
                   " apart: " + std::to_string(b.missing) + (b.missing == 1 ? " row is" : " rows are") + " missing";
        case GridBreak::Kind::off_grid:
            break;
    }
    return "the row at '" + at + "' comes " + apart + " after '" + before + "', where the rows are " + g.step +
           " apart: it is off that grid";
}

size_t fill_time_gaps(Table& table, const TimeGrid& g, Fill fill) {
    for (const GridBreak& b : g.breaks)
        if (b.kind != GridBreak::Kind::gap) return 0;
    if (g.breaks.empty() || fill == Fill::none) return 0;
    std::vector<float> values;
    std::vector<std::string> times;
    size_t inserted = 0, next = 0;
    for (size_t r = 0; r < table.rows; ++r) {
        if (next < g.breaks.size() && g.breaks[next].row == r) {
            const size_t missing = g.breaks[next++].missing;
            for (size_t k = 1; k <= missing; ++k) {
                times.push_back(
                    grid_time(g, table.times[r - 1], static_cast<int64_t>(k), table.decimal_comma, table.date_order));
                const double f = static_cast<double>(k) / static_cast<double>(missing + 1);
                for (size_t c = 0; c < table.cols; ++c) {
                    const double above = table.at(r - 1, c);
                    values.push_back(fill == Fill::previous ? table.at(r - 1, c)
                                                            : static_cast<float>(above + (table.at(r, c) - above) * f));
                }
            }
            inserted += missing;
        }
        times.push_back(table.times[r]);
        values.insert(values.end(), table.values.begin() + static_cast<std::ptrdiff_t>(r * table.cols),
                      table.values.begin() + static_cast<std::ptrdiff_t>((r + 1) * table.cols));
    }
    table.values = std::move(values);
    table.times = std::move(times);
    table.rows += inserted;
    return inserted;
}

}  // namespace ax::tools
