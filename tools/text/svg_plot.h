// Forecast plots as standalone SVG: history, forecast and optional truth for each feature.
#pragma once
#include <string>
#include <vector>

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
    std::vector<std::string> labels;  // a label per time index (timestamps); empty: the index itself
    std::string caption = "time step";
    // A vertical line across every panel at this time index, labelled `marker_label`; negative: none.
    double marker = -1;
    std::string marker_label;
};

// One panel per feature stacked vertically, shared time axis, axis ticks with readable numbers, legend.
std::string render_svg(const std::string& title, const std::vector<PlotPanel>& panels, const PlotAxis& axis);
std::string render_svg(const std::string& title, const std::vector<PlotPanel>& panels);
void write_svg(const std::string& path, const std::string& svg);

}  // namespace ax::tools
