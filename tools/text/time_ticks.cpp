#include "tools/text/time_ticks.h"

#include <cstdio>

#include "tools/text/time_stamp.h"

namespace ax::tools {

using namespace stamps;

namespace {

constexpr int64_t kMinute = 60 * kMicrosPerSecond;
constexpr int64_t kHour = 60 * kMinute;

// A candidate spacing: a fixed duration on the wall clock, or a number of months.
struct Spacing {
    int64_t micros = 0;
    int months = 0;
};

const Spacing kSpacings[] = {
    {kMinute, 0},
    {5 * kMinute, 0},
    {15 * kMinute, 0},
    {30 * kMinute, 0},
    {kHour, 0},
    {3 * kHour, 0},
    {6 * kHour, 0},
    {12 * kHour, 0},
    {kMicrosPerDay, 0},
    {2 * kMicrosPerDay, 0},
    {7 * kMicrosPerDay, 0},
    {0, 1},
    {0, 3},
    {0, 6},
    {0, 12},
    {0, 24},
    {0, 60},
    {0, 120},
};

bool on_tick(const Stamp& s, const Spacing& sp) {
    if (sp.months == 0) {
        // Weeks start on Monday (1970-01-05 was one); shorter steps count from midnight.
        const int64_t at = sp.micros == 7 * kMicrosPerDay ? s.micros() - 4 * kMicrosPerDay : s.micros();
        return ((at % sp.micros) + sp.micros) % sp.micros == 0;
    }
    return s.day == 1 && s.micros_of_day == 0 && s.month_index() % sp.months == 0;
}

std::string label(const Stamp& s, const Spacing& sp, bool with_year) {
    char buf[48];
    if (sp.months != 0) {
        std::snprintf(buf, sizeof buf, sp.months % 12 == 0 ? "%04lld" : "%04lld-%02d", static_cast<long long>(s.year),
                      s.month);
    } else if (sp.micros >= kMicrosPerDay) {
        std::snprintf(buf, sizeof buf, "%04lld-%02d-%02d", static_cast<long long>(s.year), s.month, s.day);
    } else {
        const int64_t minutes = s.micros_of_day / kMinute;
        if (with_year)
            std::snprintf(buf, sizeof buf, "%04lld-%02d-%02d %02d:%02d", static_cast<long long>(s.year), s.month, s.day,
                          static_cast<int>(minutes / 60), static_cast<int>(minutes % 60));
        else
            std::snprintf(buf, sizeof buf, "%02d-%02d %02d:%02d", s.month, s.day, static_cast<int>(minutes / 60),
                          static_cast<int>(minutes % 60));
    }
    return buf;
}

}  // namespace

std::vector<TimeTick> time_ticks(const std::vector<std::string>& times, size_t most, bool decimal_comma,
                                 DateOrder order) {
    (void)decimal_comma;
    std::vector<Stamp> t(times.size());
    for (size_t i = 0; i < times.size(); ++i)
        if (!parse_stamp(times[i], order, t[i])) return {};
    if (t.size() < 2 || most == 0) return {};
    const bool one_year = t.front().year == t.back().year;
    for (const Spacing& sp : kSpacings) {
        std::vector<TimeTick> ticks;
        for (size_t i = 0; i < t.size(); ++i)
            if (on_tick(t[i], sp)) ticks.push_back({i, label(t[i], sp, !one_year)});
        if (ticks.size() <= most && ticks.size() >= 2) return ticks;
    }
    return {};
}

}  // namespace ax::tools
