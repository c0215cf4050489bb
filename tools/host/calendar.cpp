#include "tools/host/calendar.h"

#include <cmath>
#include <cstdint>

#include "tools/common/split_text.h"
#include "tools/common/tool_error.h"
#include "tools/axm/text_record_store.h"

namespace ax::tools {

namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000000LL;
constexpr double kTwoPi = 6.283185307179586476925286766559;

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0); }

// Days since 1970-01-01 of a proleptic Gregorian date, and back (eras of 400 years, March-based years so
// that the leap day ends the year).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
    y -= m <= 2 ? 1 : 0;
    const int64_t era = floor_div(y, 400);
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

struct Civil {
    int64_t year = 0, month = 0, day = 0;
};

Civil civil_from_days(int64_t z) {
    z += 719468;
    const int64_t era = floor_div(z, 146097);
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    Civil c;
    c.day = doy - (153 * mp + 2) / 5 + 1;
    c.month = mp < 10 ? mp + 3 : mp - 9;
    c.year = yoe + era * 400 + (c.month <= 2 ? 1 : 0);
    return c;
}

struct Fields {
    int64_t second = 0, minute = 0, hour = 0;
    int64_t weekday = 0;  // Monday 0, as pandas' dayofweek
    int64_t day = 0, month = 0, day_of_year = 0, iso_week = 0;
};

Fields fields_of(int64_t micros) {
    Fields f;
    const int64_t days = floor_div(micros, kMicrosPerDay);
    const int64_t seconds = (micros - days * kMicrosPerDay) / 1000000;
    f.hour = seconds / 3600;
    f.minute = seconds / 60 % 60;
    f.second = seconds % 60;
    f.weekday = ((days + 3) % 7 + 7) % 7;  // 1970-01-01 was a Thursday
    const Civil c = civil_from_days(days);
    f.day = c.day;
    f.month = c.month;
    f.day_of_year = days - days_from_civil(c.year, 1, 1) + 1;
    // ISO 8601: the week holding the year's first Thursday is week 1; a date belongs to its Thursday's year.
    const int64_t thursday = days - f.weekday + 3;
    f.iso_week = (thursday - days_from_civil(civil_from_days(thursday).year, 1, 1)) / 7 + 1;
    return f;
}

float scaled(int64_t value, double top) { return static_cast<float>(static_cast<double>(value) / top - 0.5); }
float sine(double phase) { return static_cast<float>(std::sin(kTwoPi * phase)); }
float cosine(double phase) { return static_cast<float>(std::cos(kTwoPi * phase)); }

struct Feature {
    const char* name;
    float (*value)(const Fields& f);
};

const Feature kFeatures[] = {
    // The Time-Series-Library's time_features (timeenc=1): each field scaled to [-0.5, 0.5].
    {"second_of_minute", [](const Fields& f) { return scaled(f.second, 59.0); }},
    {"minute_of_hour", [](const Fields& f) { return scaled(f.minute, 59.0); }},
    {"hour_of_day", [](const Fields& f) { return scaled(f.hour, 23.0); }},
    {"day_of_week", [](const Fields& f) { return scaled(f.weekday, 6.0); }},
    {"day_of_month", [](const Fields& f) { return scaled(f.day - 1, 30.0); }},
    {"day_of_year", [](const Fields& f) { return scaled(f.day_of_year - 1, 365.0); }},
    {"month_of_year", [](const Fields& f) { return scaled(f.month - 1, 11.0); }},
    {"week_of_year", [](const Fields& f) { return scaled(f.iso_week - 1, 52.0); }},
    // The raw fields (pandas' .minute, .hour, .dayofweek, .day, .dayofyear, .month; timeenc=0).
    {"minute", [](const Fields& f) { return static_cast<float>(f.minute); }},
    {"hour", [](const Fields& f) { return static_cast<float>(f.hour); }},
    {"weekday", [](const Fields& f) { return static_cast<float>(f.weekday); }},
    {"day", [](const Fields& f) { return static_cast<float>(f.day); }},
    {"dayofyear", [](const Fields& f) { return static_cast<float>(f.day_of_year); }},
    {"month", [](const Fields& f) { return static_cast<float>(f.month); }},
    // Cyclical pairs: sin and cos of 2 pi x the field over its period.
    {"hour_sin", [](const Fields& f) { return sine(static_cast<double>(f.hour) / 24.0); }},
    {"hour_cos", [](const Fields& f) { return cosine(static_cast<double>(f.hour) / 24.0); }},
    {"weekday_sin", [](const Fields& f) { return sine(static_cast<double>(f.weekday) / 7.0); }},
    {"weekday_cos", [](const Fields& f) { return cosine(static_cast<double>(f.weekday) / 7.0); }},
    {"month_sin", [](const Fields& f) { return sine(static_cast<double>(f.month - 1) / 12.0); }},
    {"month_cos", [](const Fields& f) { return cosine(static_cast<double>(f.month - 1) / 12.0); }},
    {"day_of_year_sin", [](const Fields& f) { return sine(static_cast<double>(f.day_of_year - 1) / 365.0); }},
    {"day_of_year_cos", [](const Fields& f) { return cosine(static_cast<double>(f.day_of_year - 1) / 365.0); }},
};

const Feature* find_feature(const std::string& name) {
    for (const Feature& f : kFeatures)
        if (name == f.name) return &f;
    return nullptr;
}

}  // namespace

const std::vector<std::string>& calendar_feature_names() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> v;
        for (const Feature& f : kFeatures) v.push_back(f.name);
        return v;
    }();
    return names;
}

bool is_calendar_feature(const std::string& name) { return find_feature(name) != nullptr; }

float calendar_value(const std::string& name, const TimePoint& when) {
    const Feature* f = find_feature(name);
    if (f == nullptr || !when.iso) throw ToolError("calendar feature \"" + name + "\" needs a date or datetime");
    return f->value(fields_of(when.micros));
}

namespace {

std::vector<std::string> calendar_kinds(const std::string& text) {
    const std::vector<std::string> kinds = split_text(text, '\n');
    for (const std::string& k : kinds)
        if (!k.empty() && !is_calendar_feature(k))
            throw ToolError("the model names calendar feature \"" + k + "\", which this version does not know");
    return kinds;
}

TimePoint point_of(const Table& t, size_t row, const std::string& path) {
    TimePoint p;
    if (!time_point(t.times[row], t.decimal_comma, p, t.date_order) || !p.iso)
        throw ToolError(path + ": calendar features need dates or datetimes in the time column, got \"" + t.times[row] +
                        "\"");
    return p;
}

}  // namespace

std::vector<std::string> calendar_of(const ModelFile& file) {
    return calendar_kinds(stored_text_records(file, format::kCalendarKey));
}

std::vector<std::string> calendar_of(const AxmModel& model) {
    return calendar_kinds(stored_text_records(model, format::kCalendarKey));
}

void fill_calendar(const std::vector<std::string>& kinds, const Table& source, size_t rows, size_t n,
                   const std::string& path, float* out) {
    for (size_t r = 0; r < rows; ++r) {
        const TimePoint p = point_of(source, r, path);
        for (size_t i = 0; i < kinds.size() && i < n; ++i)
            if (!kinds[i].empty()) out[r * n + i] = calendar_value(kinds[i], p);
    }
}

Table with_calendar(const Table& read, const std::vector<std::string>& kinds, const std::vector<std::string>& names,
                    const std::string& path) {
    bool computed = false;
    for (const std::string& k : kinds) computed = computed || !k.empty();
    if (!computed) return read;
    if (read.times.empty())
        throw ToolError(path + " has no time column: the model computes its calendar features from it");
    Table full = read;
    full.cols = kinds.size();
    full.header = names;
    full.values.assign(read.rows * full.cols, 0.0f);
    for (size_t r = 0; r < read.rows; ++r)
        for (size_t i = 0, k = 0; i < full.cols; ++i)
            if (kinds[i].empty()) full.values[r * full.cols + i] = read.at(r, k++);
    fill_calendar(kinds, read, read.rows, full.cols, path, full.values.data());
    return full;
}

void store_calendar(AxmModel& model, const std::vector<std::string>& features,
                    const std::vector<std::pair<std::string, std::string>>& calendar) {
    if (calendar.empty()) return;
    std::vector<std::string> kinds(features.size());
    for (const auto& [feature, kind] : calendar) {
        size_t i = 0;
        while (i < features.size() && features[i] != feature) ++i;
        if (i == features.size())
            throw ToolError("config \"calendar\" names \"" + feature + "\", which is not one of \"features\"");
        if (!is_calendar_feature(kind)) {
            std::string known;
            for (const std::string& n : calendar_feature_names()) known += (known.empty() ? "" : ", ") + n;
            throw ToolError("config \"calendar\": \"" + feature + "\": \"" + kind +
                            "\" is not a calendar feature (one of " + known + ")");
        }
        kinds[i] = kind;
    }
    std::string text;
    for (size_t i = 0; i < kinds.size(); ++i) text += (i ? "\n" : "") + kinds[i];
    store_text_records(model, format::kCalendarKey, text, "\"calendar\"");
}

}  // namespace ax::tools
