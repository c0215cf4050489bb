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

// True for a header name that marks a numeric first column as times: time, timestamp, date, datetime, t,
// ts, step, year, epoch, index (any case), or a name starting with "time" or "date" and a non-letter
// ("time_s", "time (s)").
bool is_time_name(const std::string& name);

// A timestamp as a point on its axis, for matching the rows of two files: ISO dates and datetimes by the
// instant they name within their written zone suffix (only the same suffix compares), numbers by value.
struct TimePoint {
    bool iso = false;
    int64_t micros = 0;  // ISO: since 1970-01-01 in the written zone
    double number = 0;
    std::string zone;
    bool operator==(const TimePoint& o) const {
        return iso == o.iso && zone == o.zone && (iso ? micros == o.micros : number == o.number);
    }
};

// False when `text` is neither an ISO date or datetime nor a number (`decimal_comma`: with ',').
bool time_point(const std::string& text, bool decimal_comma, TimePoint& point);

struct NextTimes {
    bool regular = false;
    std::vector<std::string> times;  // `count` timestamps after the last, in the column's own format
    std::string why;                 // when not regular: which neighbours break the spacing
};

// Extrapolates `count` timestamps after `times` when they are evenly spaced: the same duration apart, the
// same number of calendar months apart (same day of the month, or each the last day of its month), or
// numbers the same step apart (to within the last written digit). `decimal_comma`: numbers use ','.
NextTimes next_times(const std::vector<std::string>& times, size_t count, bool decimal_comma);

}  // namespace ax::tools
