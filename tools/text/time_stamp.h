// One timestamp of a CSV's time column, parsed and written back in its own style: the pieces csv_time.cpp
// (spacing, the next timestamps) and time_grid.cpp (where the spacing breaks) share.
#pragma once
#include <cstdint>
#include <string>

#include "tools/text/csv_time.h"

namespace ax::tools::stamps {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

int days_in_month(int64_t y, int m);
// Days since 1970-01-01 of a proleptic Gregorian date, and back.
int64_t days_from_date(int64_t y, int m, int d);
void date_from_days(int64_t days, int64_t& y, int& m, int& d);

struct Stamp {
    bool iso = false;
    // numeric
    double number = 0;
    int decimals = 0;
    bool exponent = false;
    // ISO
    int64_t year = 0;
    int month = 1, day = 1;
    bool has_day = false, has_time = false, has_seconds = false;
    char separator = 'T';
    int64_t micros_of_day = 0;
    int frac_digits = 0;
    std::string zone;
    bool zoned = false;         // the zone suffix gives a UTC offset (Z or +hh:mm)
    int64_t offset_micros = 0;  // that offset: local time minus UTC
    // A local date (DateOrder): its separator ('/' or '.'; 0 for ISO), order and digits as written.
    char local = 0;
    bool year_first = false, day_first = false, padded = true, hour_padded = true;
    // The wall-clock time as written, in microseconds since 1970-01-01 of that clock.
    int64_t micros() const { return days_from_date(year, month, day) * kMicrosPerDay + micros_of_day; }
    // The instant (UTC) when the zone gives an offset, else the wall-clock time.
    int64_t instant() const { return micros() - offset_micros; }
    int64_t month_index() const { return year * 12 + (month - 1); }
    bool month_end() const { return has_day && day == days_in_month(year, month); }
};

// An ISO date or datetime, or a local date in `order` (D/M/YYYY...); false for anything else.
bool parse_stamp(const std::string& s, DateOrder order, Stamp& t);
bool parse_iso(const std::string& s, Stamp& t);
bool parse_local(const std::string& s, DateOrder order, Stamp& t);
// A plain number (`decimal_comma`: with ','), its written decimals kept for writing the next ones.
bool parse_number(const std::string& text, bool decimal_comma, Stamp& t);

// The date and time in the style of `style` (the last given timestamp), its zone suffix kept.
std::string format_iso(const Stamp& style, int64_t y, int m, int d, int64_t micros_of_day);
// The wall-clock time `local_micros` (since 1970-01-01) in the style of `style`; false past the year 9999.
bool format_micros(const Stamp& style, int64_t local_micros, std::string& out);
// A number in the style of `style`.
std::string number_text(double v, const Stamp& style, bool decimal_comma);
// "2 hours", "1 day", "90 seconds".
std::string duration(int64_t micros);

}  // namespace ax::tools::stamps
