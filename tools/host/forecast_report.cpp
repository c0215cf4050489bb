#include "tools/host/forecast_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/common/tool_error.h"

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

}  // namespace

std::string forecast_report(const Table& forecast, const Table& truth) {
    if (forecast.cols != truth.cols)
        throw ToolError("truth has " + std::to_string(truth.cols) + " column(s), the forecast " +
                        std::to_string(forecast.cols));
    const size_t steps = std::min(forecast.rows, truth.rows);
    std::string out;
    for (size_t c = 0; c < forecast.cols; ++c) {
        out += column_name(forecast, c) + ":\n";
        out += "  step     forecast        truth        error\n";
        double abs_sum = 0, sq_sum = 0, pct_sum = 0;
        size_t pct_count = 0;
        for (size_t r = 0; r < steps; ++r) {
            const double f = forecast.at(r, c), t = truth.at(r, c), e = f - t;
            out += "  " + std::to_string(r + 1) + std::string(r + 1 < 10 ? 4 : 3, ' ') +
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
