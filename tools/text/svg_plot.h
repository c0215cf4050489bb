// Forecast plots as standalone SVG: history, forecast and optional truth for each feature.
#pragma once
#include <string>
#include <vector>

#include "tools/text/csv_time.h"

namespace ax::tools {

struct PlotSeries {
    std::string label;  // legend text, e.g. "history", "forecast", "truth"
    std::string color;  // CSS colour, e.g. "#1f77b4"
    bool dashed = false;
    size_t x0 = 0;         // time index of the first value
    std::vector<float> y;  // one value per time step
};

struct PlotPanel {
    std::string title;  // e.g. the feature name
    std::vector<PlotSeries> series;
};

// What the x axis says and where the forecast begins.
struct PlotAxis {
    // A label per time index; empty: the index itself. Dates and datetimes get ticks on round calendar steps
    // with short labels (time_ticks.h); other labels are drawn whole on every n-th index.
    std::vector<std::string> labels;
    DateOrder date_order = DateOrder::unknown;  // of local dates among the labels
    std::string caption = "time step";
    // Each panel's y axis caption (its unit or quantity); empty: the panel's title.
    std::string y_caption;
    // A vertical line across every panel at this time index, labelled `marker_label`; negative: none.
    double marker = -1;
    std::string marker_label;
};

// One panel per feature stacked vertically, shared time axis, axis ticks with readable numbers, legend.
std::string render_svg(const std::string& title, const std::vector<PlotPanel>& panels, const PlotAxis& axis);
std::string render_svg(const std::string& title, const std::vector<PlotPanel>& panels);
void write_svg(const std::string& path, const std::string& svg);

}  // namespace ax::tools
