#include "tools/text/csv_time.h"

#include "tools/text/time_stamp.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>

namespace ax::tools {

namespace {

using namespace stamps;

NextTimes irregular(const std::vector<std::string>& times, size_t i, const std::string& gap, const std::string& first) {
    NextTimes r;
    r.why = "'" + times[i] + "' to '" + times[i + 1] + "' is " + gap + ", '" + times[0] + "' to '" + times[1] + "' " +
            first;
    return r;
}

NextTimes next_numbers(const std::vector<std::string>& times, const std::vector<Stamp>& t, size_t count,
                       bool decimal_comma) {
    const size_t n = t.size();
    const double step = (t[n - 1].number - t[0].number) / static_cast<double>(n - 1);
    int decimals = 0;
    for (const Stamp& s : t) decimals = std::max(decimals, s.decimals);
    // Written values are rounded to their last digit, so their differences may be off by one unit of it.
    double tolerance = 1e-9 * std::max(std::fabs(step), std::fabs(t[n - 1].number));
    if (decimals > 0) tolerance = std::max(tolerance, 1.0001 * std::pow(10.0, -decimals));
    for (size_t i = 0; i + 1 < n; ++i) {
        const double d = t[i + 1].number - t[i].number;
        if (!(step > 0) || std::fabs(d - step) > tolerance) {
            char a[32], b[32];
            std::snprintf(a, sizeof a, "%.9g", d);
            std::snprintf(b, sizeof b, "%.9g", t[1].number - t[0].number);
            return irregular(times, i, a, b);
        }
    }
    Stamp style = t[n - 1];
    style.decimals = decimals;
    NextTimes r;
    r.regular = true;
    for (size_t k = 1; k <= count; ++k)
        r.times.push_back(number_text(t[n - 1].number + step * static_cast<double>(k), style, decimal_comma));
    return r;
}

// Same day of the month (or each the last day of its month), same time of day, a fixed number of months apart.
bool monthly(const std::vector<Stamp>& t, int64_t& months, bool& month_end) {
    bool same_day = true, all_end = true;
    for (const Stamp& s : t) {
        same_day = same_day && s.day == t[0].day;
        all_end = all_end && s.month_end();
        if (s.micros_of_day != t[0].micros_of_day || s.zoned != t[0].zoned) return false;
    }
    if (!same_day && !all_end) return false;
    months = t[1].month_index() - t[0].month_index();
    if (months <= 0) return false;
    for (size_t i = 0; i + 1 < t.size(); ++i)
        if (t[i + 1].month_index() - t[i].month_index() != months) return false;
    month_end = !same_day;
    return true;
}

constexpr int64_t kLastYear = 9999;

NextTimes next_dates(const std::vector<std::string>& times, const std::vector<Stamp>& t, size_t count) {
    const Stamp& last = t.back();
    NextTimes r;
    int64_t months = 0;
    bool month_end = false;
    if (monthly(t, months, month_end)) {
        for (size_t k = 1; k <= count; ++k) {
            const int64_t index = last.month_index() + months * static_cast<int64_t>(k);
            const int64_t y = index / 12;
            const int m = static_cast<int>(index % 12) + 1;
            if (y > kLastYear) return NextTimes{false, {}, "the next timestamps pass the year 9999"};
            const int d = month_end ? days_in_month(y, m) : std::min(last.day, days_in_month(y, m));
            r.times.push_back(format_iso(last, y, m, d, last.micros_of_day));
        }
        r.regular = true;
        return r;
    }
    // Spacing in UTC when the timestamps give offsets (a daylight-saving change written with its offsets
    // is no jump); a daily or longer step may instead keep the wall clock across such a change.
    bool zoned = t[0].zoned;
    for (const Stamp& s : t)
        if (s.zoned != zoned) return NextTimes{false, {}, "the timestamps mix ones with and without a UTC offset"};
    auto spacing = [&](bool wall_clock, int64_t& step, size_t& bad) {
        auto at = [&](const Stamp& s) { return wall_clock ? s.micros() : s.instant(); };
        step = at(t[1]) - at(t[0]);
        for (bad = 0; bad + 1 < t.size(); ++bad)
            if (at(t[bad + 1]) - at(t[bad]) != step || step <= 0) return false;
        return true;
    };
    int64_t step = 0;
    size_t bad = 0;
    bool wall_clock = !zoned;
    if (!spacing(wall_clock, step, bad)) {
        int64_t local_step = 0;
        size_t local_bad = 0;
        if (zoned && spacing(true, local_step, local_bad) && local_step % kMicrosPerDay == 0) {
            wall_clock = true;
            step = local_step;
        } else {
            const int64_t d = t[bad + 1].instant() - t[bad].instant();
            return irregular(times, bad, duration(d), duration(t[1].instant() - t[0].instant()));
        }
    }
    for (size_t k = 1; k <= count; ++k) {
        // The next instants, written on the last timestamp's clock (its offset).
        const int64_t at = last.micros() + step * static_cast<int64_t>(k);
        std::string text;
        if (!format_micros(last, at, text)) return NextTimes{false, {}, "the next timestamps pass the year 9999"};
        r.times.push_back(text);
    }
    r.regular = true;
    return r;
}

}  // namespace

bool is_iso_timestamp(const std::string& text) {
    Stamp t;
    return parse_iso(text, t);
}

bool is_timestamp(const std::string& text) {
    Stamp t;
    return parse_iso(text, t) || parse_local(text, DateOrder::day_first, t) ||
           parse_local(text, DateOrder::month_first, t);
}

bool parse_date_order(const std::string& text, DateOrder& order) {
    if (text == "dd/mm/yyyy") {
        order = DateOrder::day_first;
        return true;
    }
    if (text == "mm/dd/yyyy") {
        order = DateOrder::month_first;
        return true;
    }
    return false;
}

bool date_order(const std::vector<std::string>& times, DateOrder given, DateOrder& order, std::string& why) {
    std::string not_day, not_month, ambiguous;
    for (const std::string& text : times) {
        Stamp a, b;
        if (parse_iso(text, a)) continue;
        const bool day = parse_local(text, DateOrder::day_first, a);
        const bool month = parse_local(text, DateOrder::month_first, b);
        if (!day && not_day.empty()) not_day = text;
        if (!month && not_month.empty()) not_month = text;
        if (day && month && a.micros() != b.micros() && ambiguous.empty()) ambiguous = text;
    }
    order = given;
    if (given == DateOrder::day_first && !not_day.empty()) {
        why = "'" + not_day + "' is not a date with the day first (--time-format dd/mm/yyyy)";
        return false;
    }
    if (given == DateOrder::month_first && !not_month.empty()) {
        why = "'" + not_month + "' is not a date with the month first (--time-format mm/dd/yyyy)";
        return false;
    }
    if (given != DateOrder::unknown) return true;
    if (!not_day.empty() && !not_month.empty()) {
        why = "'" + not_month + "' has the day first and '" + not_day + "' the month first: the dates mix both orders";
        return false;
    }
    if (!not_day.empty()) {
        order = DateOrder::month_first;
    } else if (!not_month.empty() || ambiguous.empty()) {
        order = DateOrder::day_first;  // or no date the two orders read differently
    } else {
        why = "'" + ambiguous + "' reads day first or month first, and no date tells which: say which with " +
              "--time-format dd/mm/yyyy or --time-format mm/dd/yyyy";
        return false;
    }
    return true;
}

bool time_point(const std::string& text, bool decimal_comma, TimePoint& point, DateOrder order) {
    Stamp t;
    point = TimePoint{};
    if (parse_stamp(text, order, t)) {
        point.iso = true;
        point.micros = t.micros();
        point.zoned = t.zoned;
        point.instant = t.instant();
        return true;
    }
    if (!parse_number(text, decimal_comma, t)) return false;
    point.number = t.number;
    return true;
}

bool is_time_name(const std::string& name) {
    std::string s;
    for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* n : {"time", "timestamp", "date", "datetime", "t", "ts", "step", "year", "epoch", "index"})
        if (s == n) return true;
    for (const char* prefix : {"time", "date"})
        if (s.rfind(prefix, 0) == 0 && s.size() > 4 && !std::isalpha(static_cast<unsigned char>(s[4]))) return true;
    return false;
}

NextTimes next_times(const std::vector<std::string>& times, size_t count, bool decimal_comma, DateOrder order) {
    if (times.size() < 2) return NextTimes{false, {}, "one timestamp gives no spacing"};
    std::vector<Stamp> t(times.size());
    bool all_iso = true, all_numbers = true;
    for (size_t i = 0; i < times.size(); ++i) {
        if (parse_stamp(times[i], order, t[i])) {
            all_numbers = false;
        } else if (parse_number(times[i], decimal_comma, t[i])) {
            all_iso = false;
        } else {
            return NextTimes{false, {}, "'" + times[i] + "' is not a timestamp"};
        }
    }
    if (all_numbers) return next_numbers(times, t, count, decimal_comma);
    if (all_iso) return next_dates(times, t, count);
    return NextTimes{false, {}, "the column mixes dates and numbers"};
}

}  // namespace ax::tools
