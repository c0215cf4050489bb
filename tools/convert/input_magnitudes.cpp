#include "tools/convert/input_magnitudes.h"

#include <cmath>
#include <cstdio>

namespace ax::tools {

namespace {

std::string short_number(double v) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", v);
    return text;
}

// The columns with the largest and the smallest nonzero largest |value|; false when every column is zero.
bool extreme_columns(const Table& data, std::vector<double>& largest, size_t& big, size_t& small) {
    largest.assign(data.cols, 0.0);
    for (size_t r = 0; r < data.rows; ++r)
        for (size_t c = 0; c < data.cols; ++c) {
            const double v = std::fabs(static_cast<double>(data.at(r, c)));
            if (std::isfinite(v) && v > largest[c]) largest[c] = v;
        }
    big = small = 0;
    bool any = false;
    for (size_t c = 0; c < data.cols; ++c) {
        if (largest[c] == 0.0) continue;  // an all-zero column has no magnitude to lose
        if (!any || largest[c] > largest[big]) big = c;
        if (!any || largest[c] < largest[small]) small = c;
        any = true;
    }
    return any;
}

}  // namespace

bool magnitudes_spread(const Table& data) {
    std::vector<double> largest;
    size_t big = 0, small = 0;
    return extreme_columns(data, largest, big, small) && largest[big] >= kMagnitudeSpread * largest[small];
}

std::string magnitude_spread_note(const Table& data, const std::vector<std::string>& names) {
    if (!magnitudes_spread(data)) return "";
    std::vector<double> largest;
    size_t big = 0, small = 0;
    extreme_columns(data, largest, big, small);
    auto name = [&](size_t c) { return c < names.size() ? "\"" + names[c] + "\"" : "column " + std::to_string(c); };
    return "the input columns differ in magnitude (" + name(big) + " reaches " + short_number(largest[big]) + ", " +
           name(small) + " " + short_number(largest[small]) +
           "): one int8 scale for them all rounds the smaller columns to a few steps, which costs int8 accuracy; "
           "state the scaler the model was trained with as \"normalization\" (mean and scale per column), or keep "
           "this model out of the integer-only mode";
}

}  // namespace ax::tools
