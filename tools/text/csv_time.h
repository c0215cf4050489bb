// The time column of a CSV: ISO 8601 dates and datetimes (2024-01-31, 2024-01-31T12:00:00,
// "2024-01-31 12:00", with seconds, fractions and a zone suffix such as Z or +01:00 kept as written) or plain
// numbers, and the timestamps that follow a regularly spaced column.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ax::tools {

// True for an ISO 8601 date (YYYY-MM-DD, or YYYY-MM for a month) or datetime the reader understands.
bool is_iso_timestamp(const std::string& text);

// Dates as loggers and spreadsheets write them: D/M/YYYY or M/D/YYYY (one or two digits each), D.M.YYYY
// (always day first), YYYY/MM/DD, each optionally followed by " H:MM" or " H:MM:SS". Which of day and
// month comes first in a slash date is the column's: told by a value over 12, else stated (--time-format).
enum class DateOrder { unknown, day_first, month_first };

// True for an ISO timestamp, or a local date valid in at least one order.
bool is_timestamp(const std::string& text);

// The order of a column of timestamps: `given` when stated (every local date must then be valid in it;
// ISO ones need none), else the one a day or month over 12 tells. Returns false with `why` set (naming the
// value) when the dates contradict the given order or each other, or leave it open.
bool date_order(const std::vector<std::string>& times, DateOrder given, DateOrder& order, std::string& why);

// "dd/mm/yyyy" or "mm/dd/yyyy" (the --time-format values); false for anything else.
bool parse_date_order(const std::string& text, DateOrder& order);

// True for a header name that marks a numeric first column as times: time, timestamp, date, datetime, t,
// ts, step, year, epoch, index (any case), or a name starting with "time" or "date" and a non-letter
// ("time_s", "time (s)").
bool is_time_name(const std::string& name);

// A timestamp as a point on its axis, for matching the rows of two files: ISO dates and datetimes by the
// instant they name (in UTC when they give an offset, so 01:00+01:00 is 02:00+02:00; timestamps without an
// offset only match others without one), numbers by value.
struct TimePoint {
    bool iso = false;
    int64_t micros = 0;   // ISO: since 1970-01-01 on the written wall clock (calendar fields come from it)
    bool zoned = false;   // written with a UTC offset (Z or +hh:mm)
    int64_t instant = 0;  // ISO: `micros` in UTC when zoned, else `micros`
    double number = 0;
    bool operator==(const TimePoint& o) const {
        return iso == o.iso && zoned == o.zoned && (iso ? instant == o.instant : number == o.number);
    }
};

// False when `text` is neither an ISO date or datetime nor a number (`decimal_comma`: with ',').
bool time_point(const std::string& text, bool decimal_comma, TimePoint& point, DateOrder order = DateOrder::unknown);

struct NextTimes {
    bool regular = false;
    std::vector<std::string> times;  // `count` timestamps after the last, in the column's own format
    std::string why;                 // when not regular: which neighbours break the spacing
};

// Extrapolates `count` timestamps after `times` when they are evenly spaced: the same duration apart, the
// same number of calendar months apart (same day of the month, or each the last day of its month), or
// numbers the same step apart (to within the last written digit). `decimal_comma`: numbers use ','.
// Local dates are read, and the next ones written, in `order` and in the last timestamp's style.
NextTimes next_times(const std::vector<std::string>& times, size_t count, bool decimal_comma,
                     DateOrder order = DateOrder::unknown);

}  // namespace ax::tools
