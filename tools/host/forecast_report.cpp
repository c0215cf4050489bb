#include "tools/host/forecast_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/common/tool_error.h"
#include "tools/text/csv_time.h"

namespace ax::tools {

namespace {

std::string column_name(const Table& t, size_t c) {
    return c < t.header.size() ? t.header[c] : "feature " + std::to_string(c);
}

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
    char buf[128];
    std::snprintf(buf, sizeof buf, fmt, a, b, c);
    return buf;
}

void copy_row(const Table& from, size_t r, Table& to) {
    to.values.insert(to.values.end(), from.values.begin() + static_cast<long>(r * from.cols),
                     from.values.begin() + static_cast<long>((r + 1) * from.cols));
    if (!from.times.empty()) to.times.push_back(from.times[r]);
    ++to.rows;
}

Table empty_like(const Table& t) {
    Table out = t;
    out.rows = 0;
    out.values.clear();
    out.times.clear();
    return out;
}

std::string span(const Table& t) { return t.times.front() + " .. " + t.times.back(); }

}  // namespace

AlignedTruth align_truth(const Table& forecast, bool timed, const Table& truth, const std::string& truth_source) {
    if (forecast.cols != truth.cols)
        throw ToolError("truth has " + std::to_string(truth.cols) + " column(s), the forecast " +
                        std::to_string(forecast.cols));
    AlignedTruth a{empty_like(forecast), empty_like(truth), {}};
    if (!timed || forecast.times.empty() || truth.times.empty()) {
        for (size_t r = 0; r < std::min(forecast.rows, truth.rows); ++r) {
            copy_row(forecast, r, a.forecast);
            copy_row(truth, r, a.truth);
            a.steps.push_back(r);
        }
        return a;
    }
    std::vector<TimePoint> truth_times(truth.rows);
    for (size_t r = 0; r < truth.rows; ++r)
        if (!time_point(truth.times[r], truth.decimal_comma, truth_times[r], truth.date_order))
            throw ToolError(truth_source + ": row " + std::to_string(r + 1) + "'s time '" + truth.times[r] +
                            "' is not a timestamp to match the forecast's by");
    for (size_t r = 0; r < forecast.rows; ++r) {
        TimePoint at;
        if (!time_point(forecast.times[r], forecast.decimal_comma, at, forecast.date_order)) continue;
        const auto match = std::find(truth_times.begin(), truth_times.end(), at);
        if (match == truth_times.end()) continue;
        copy_row(forecast, r, a.forecast);
        copy_row(truth, static_cast<size_t>(match - truth_times.begin()), a.truth);
        a.steps.push_back(r);
    }
    if (a.steps.empty())
        throw ToolError(truth_source + "'s timestamps (" + span(truth) + ") do not overlap the forecast's (" +
                        span(forecast) + "): no step to compare");
    return a;
}

std::string forecast_report(const AlignedTruth& a) {
    const Table& forecast = a.forecast;
    const Table& truth = a.truth;
    const size_t steps = forecast.rows;
    std::string out;
    for (size_t c = 0; c < forecast.cols; ++c) {
        out += column_name(forecast, c) + ":\n";
        out += "  step     forecast        truth        error\n";
        double abs_sum = 0, sq_sum = 0, pct_sum = 0;
        size_t pct_count = 0;
        for (size_t r = 0; r < steps; ++r) {
            const double f = forecast.at(r, c), t = truth.at(r, c), e = f - t;
            const size_t step = a.steps[r] + 1;
            out += "  " + std::to_string(step) + std::string(step < 10 ? 4 : 3, ' ') +
                   format("%12.4f %12.4f %+12.4f\n", f, t, e);
            abs_sum += std::fabs(e);
            sq_sum += e * e;
            if (t != 0) {
                pct_sum += std::fabs(e / t);
                ++pct_count;
            }
        }
        out += format("  MAE %.4f, RMSE %.4f", abs_sum / steps, std::sqrt(sq_sum / steps));
        out += pct_count ? format(", MAPE %.2f%%", 100.0 * pct_sum / pct_count) : std::string();
        out += " over " + std::to_string(steps) + " steps\n";
    }
    return out;
}

}  // namespace ax::tools
