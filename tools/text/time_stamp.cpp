#include "tools/text/time_stamp.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>

namespace ax::tools::stamps {

static bool leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

int days_in_month(int64_t y, int m) {
    static const int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && leap(y) ? 29 : kDays[m - 1];
}

// Days since 1970-01-01 of a proleptic Gregorian date: whole 400-year cycles (146097 days each), then the
// days of the years, months and days before the date within the cycle, counted from 0000-01-01.
int64_t days_from_date(int64_t y, int m, int d) {
    const int64_t cycles = (y >= 0 ? y : y - 399) / 400;
    const int64_t year_in_cycle = y - cycles * 400;
    int64_t days = cycles * 146097 + year_in_cycle * 365;
    if (year_in_cycle > 0) days += (year_in_cycle - 1) / 4 - (year_in_cycle - 1) / 100 + 1;  // leap days before
    for (int month = 1; month < m; ++month) days += days_in_month(y, month);
    return days + d - 1 - 719528;  // 719528: days from 0000-01-01 to 1970-01-01
}

void date_from_days(int64_t days, int64_t& y, int& m, int& d) {
    // Start from an estimate of the year and correct it; only used for years 0..9999.
    y = 1970 + days / 366;
    while (days_from_date(y + 1, 1, 1) <= days) ++y;
    while (days_from_date(y, 1, 1) > days) --y;
    int64_t left = days - days_from_date(y, 1, 1);
    for (m = 1; left >= days_in_month(y, m); ++m) left -= days_in_month(y, m);
    d = static_cast<int>(left) + 1;
}

static bool take_digits(const std::string& s, size_t& i, size_t n, int64_t& out) {
    if (i + n > s.size()) return false;
    out = 0;
    for (size_t k = 0; k < n; ++k) {
        if (!std::isdigit(static_cast<unsigned char>(s[i + k]))) return false;
        out = out * 10 + (s[i + k] - '0');
    }
    i += n;
    return true;
}

static bool take(const std::string& s, size_t& i, char c) {
    if (i < s.size() && s[i] == c) {
        ++i;
        return true;
    }
    return false;
}

static bool parse_zone(const std::string& s, size_t i, Stamp& t) {
    t.zone = s.substr(i);
    t.zoned = !t.zone.empty();
    t.offset_micros = 0;
    if (t.zone.empty() || t.zone == "Z") return true;
    if (s[i] != '+' && s[i] != '-') return false;
    const int64_t sign = s[i] == '-' ? -1 : 1;
    ++i;
    int64_t hh = 0, mm = 0;
    if (!take_digits(s, i, 2, hh) || hh > 23) return false;
    if (i < s.size()) {
        take(s, i, ':');
        if (!take_digits(s, i, 2, mm) || mm >= 60 || i != s.size()) return false;
    }
    t.offset_micros = sign * (hh * 60 + mm) * 60 * kMicrosPerSecond;
    return true;
}

bool parse_iso(const std::string& s, Stamp& t) {
    size_t i = 0;
    int64_t y = 0, mo = 0, d = 1;
    if (!take_digits(s, i, 4, y) || !take(s, i, '-') || !take_digits(s, i, 2, mo) || mo < 1 || mo > 12) return false;
    t = Stamp{};
    t.iso = true;
    t.year = y;
    t.month = static_cast<int>(mo);
    if (i == s.size()) return true;  // YYYY-MM: a month
    if (!take(s, i, '-') || !take_digits(s, i, 2, d) || d < 1 || d > days_in_month(y, t.month)) return false;
    t.day = static_cast<int>(d);
    t.has_day = true;
    if (i == s.size()) return true;
    if (s[i] != 'T' && s[i] != ' ') return false;
    t.separator = s[i++];
    int64_t hh = 0, mm = 0, ss = 0;
    if (!take_digits(s, i, 2, hh) || hh > 23 || !take(s, i, ':') || !take_digits(s, i, 2, mm) || mm > 59) return false;
    t.has_time = true;
    if (take(s, i, ':')) {
        if (!take_digits(s, i, 2, ss) || ss > 59) return false;
        t.has_seconds = true;
        if (take(s, i, '.') || take(s, i, ',')) {
            int64_t frac = 0, digit = 0;
            while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && t.frac_digits < 9) {
                take_digits(s, i, 1, digit);
                if (t.frac_digits < 6) frac = frac * 10 + digit;
                ++t.frac_digits;
            }
            if (t.frac_digits == 0) return false;
            for (int k = t.frac_digits; k < 6; ++k) frac *= 10;
            t.micros_of_day = frac;
        }
    }
    t.micros_of_day += ((hh * 60 + mm) * 60 + ss) * kMicrosPerSecond;
    return parse_zone(s, i, t);
}

// Up to `most` digits (at least one) into `out`; `count` gets how many.
static bool take_run(const std::string& s, size_t& i, size_t most, int64_t& out, size_t& count) {
    out = 0;
    count = 0;
    while (i < s.size() && count < most && std::isdigit(static_cast<unsigned char>(s[i]))) {
        out = out * 10 + (s[i++] - '0');
        ++count;
    }
    return count > 0 && (i == s.size() || !std::isdigit(static_cast<unsigned char>(s[i])));
}

// D/M/YYYY, M/D/YYYY (as `order` says), D.M.YYYY, YYYY/MM/DD, then optionally " H:MM[:SS]" (or 'T').
bool parse_local(const std::string& s, DateOrder order, Stamp& t) {
    size_t i = 0, na = 0, nb = 0, nc = 0;
    int64_t a = 0, b = 0, c = 0;
    if (!take_run(s, i, 4, a, na) || i == s.size() || (s[i] != '/' && s[i] != '.')) return false;
    const char sep = s[i++];
    if (!take_run(s, i, 2, b, nb) || !take(s, i, sep) || !take_run(s, i, 4, c, nc)) return false;
    Stamp r;
    r.iso = true;
    r.local = sep;
    r.has_day = true;
    int64_t y = 0, m = 0, d = 0;
    if (na == 4 && nc <= 2) {  // YYYY/MM/DD
        y = a, m = b, d = c;
        r.year_first = true;
        r.padded = nb == 2 && nc == 2;
    } else if (na <= 2 && nc == 4) {
        const bool day_first = sep == '.' || order == DateOrder::day_first;
        if (sep == '/' && order == DateOrder::unknown) return false;
        y = c, d = day_first ? a : b, m = day_first ? b : a;
        r.day_first = day_first;
        r.padded = na == 2 && nb == 2;
    } else {
        return false;
    }
    if (m < 1 || m > 12 || d < 1 || d > days_in_month(y, static_cast<int>(m))) return false;
    r.year = y;
    r.month = static_cast<int>(m);
    r.day = static_cast<int>(d);
    if (i < s.size()) {
        if (s[i] != ' ' && s[i] != 'T') return false;
        r.separator = s[i++];
        int64_t hh = 0, mm = 0, ss = 0;
        size_t nh = 0;
        if (!take_run(s, i, 2, hh, nh) || hh > 23 || !take(s, i, ':') || !take_digits(s, i, 2, mm) || mm > 59)
            return false;
        r.has_time = true;
        r.hour_padded = nh == 2;
        if (take(s, i, ':')) {
            if (!take_digits(s, i, 2, ss) || ss > 59) return false;
            r.has_seconds = true;
        }
        if (i != s.size()) return false;
        r.micros_of_day = ((hh * 60 + mm) * 60 + ss) * kMicrosPerSecond;
    }
    t = r;
    return true;
}

bool parse_stamp(const std::string& s, DateOrder order, Stamp& t) {
    return parse_iso(s, t) || parse_local(s, order, t);
}

bool parse_number(const std::string& text, bool decimal_comma, Stamp& t) {
    std::string s = text;
    if (decimal_comma)
        for (char& c : s)
            if (c == ',') c = '.';
    const char* first = s.data() + (!s.empty() && s[0] == '+' ? 1 : 0);
    double v = 0;
    const auto res = std::from_chars(first, s.data() + s.size(), v);
    if (res.ec != std::errc() || res.ptr != s.data() + s.size() || !std::isfinite(v)) return false;
    t = Stamp{};
    t.number = v;
    const size_t dot = s.find('.');
    t.exponent = s.find_first_of("eE") != std::string::npos;
    if (dot != std::string::npos && !t.exponent) t.decimals = static_cast<int>(s.size() - dot - 1);
    return true;
}

static std::string two(int64_t v) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "%02d", static_cast<int>(v));
    return buf;
}

// The date and time in the format of `style` (the last given timestamp); seconds and fractions are added
// when the value needs them.
static std::string format_local(const Stamp& style, int64_t y, int m, int d, int64_t micros_of_day) {
    char year[16];
    std::snprintf(year, sizeof year, "%04lld", static_cast<long long>(y));
    const std::string sep(1, style.local);
    const std::string day = style.padded ? two(d) : std::to_string(d);
    const std::string month = style.padded ? two(m) : std::to_string(m);
    std::string out = style.year_first  ? year + sep + month + sep + day
                      : style.day_first ? day + sep + month + sep + year
                                        : month + sep + day + sep + year;
    if (!style.has_time && micros_of_day == 0) return out;
    const int64_t seconds = micros_of_day / kMicrosPerSecond;
    out += (style.has_time ? style.separator : ' ') +
           (style.hour_padded ? two(seconds / 3600) : std::to_string(seconds / 3600)) + ":" + two(seconds / 60 % 60);
    if (style.has_seconds || seconds % 60 != 0) out += ":" + two(seconds % 60);
    return out;
}

std::string format_iso(const Stamp& style, int64_t y, int m, int d, int64_t micros_of_day) {
    if (style.local) return format_local(style, y, m, d, micros_of_day);
    char year[16];
    std::snprintf(year, sizeof year, "%04lld", static_cast<long long>(y));
    std::string out = std::string(year) + "-" + two(m);
    if (!style.has_day) return out;
    out += "-" + two(d);
    if (!style.has_time && micros_of_day == 0) return out + style.zone;
    const int64_t seconds = micros_of_day / kMicrosPerSecond, frac = micros_of_day % kMicrosPerSecond;
    out += (style.has_time ? style.separator : 'T') + two(seconds / 3600) + ":" + two(seconds / 60 % 60);
    if (style.has_seconds || seconds % 60 != 0 || frac != 0) out += ":" + two(seconds % 60);
    if (style.frac_digits > 0 || frac != 0) {
        char digits[16];
        std::snprintf(digits, sizeof digits, "%06lld", static_cast<long long>(frac));
        std::string f = digits;
        const size_t want = static_cast<size_t>(style.frac_digits > 0 ? style.frac_digits : 6);
        out += "." + (want <= 6 ? f.substr(0, want) : f + std::string(want - 6, '0'));
    }
    return out + style.zone;
}

std::string duration(int64_t micros) {
    struct Unit {
        int64_t size;
        const char* name;
    };
    for (const Unit u : {Unit{kMicrosPerDay, " day"}, Unit{3600 * kMicrosPerSecond, " hour"},
                         Unit{60 * kMicrosPerSecond, " minute"}, Unit{kMicrosPerSecond, " second"}}) {
        if (micros % u.size == 0)
            return std::to_string(micros / u.size) + u.name +
                   (micros / u.size == 1 || micros / u.size == -1 ? "" : "s");
    }
    return std::to_string(micros) + " microseconds";
}

std::string number_text(double v, const Stamp& style, bool decimal_comma) {
    char buf[64];
    if (style.exponent)
        std::snprintf(buf, sizeof buf, "%.9g", v);
    else
        std::snprintf(buf, sizeof buf, "%.*f", style.decimals, v);
    std::string s = buf;
    if (decimal_comma)
        for (char& c : s)
            if (c == '.') c = ',';
    return s;
}

bool format_micros(const Stamp& style, int64_t local_micros, std::string& out) {
    const int64_t days =
        local_micros >= 0 ? local_micros / kMicrosPerDay : -((-local_micros + kMicrosPerDay - 1) / kMicrosPerDay);
    int64_t y = 0;
    int m = 1, d = 1;
    date_from_days(days, y, m, d);
    if (y > 9999) return false;
    out = format_iso(style, y, m, d, local_micros - days * kMicrosPerDay);
    return true;
}

}  // namespace ax::tools::stamps
