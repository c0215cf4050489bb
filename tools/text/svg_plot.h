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

// One panel per feature stacked vertically, shared time axis, axis ticks with readable numbers, legend.
std::string render_svg(const std::string& title, const std::vector<PlotPanel>& panels);
void write_svg(const std::string& path, const std::string& svg);

}  // namespace ax::tools
