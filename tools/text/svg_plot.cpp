#include "tools/text/svg_plot.h"

#include "tools/text/time_ticks.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <tuple>
#include <utility>

#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"
#include "tools/text/utf8.h"

namespace ax::tools {
namespace {

constexpr double kWidth = 900;
constexpr double kMarginLeft = 80;  // room for y tick labels
constexpr double kMarginRight = 24;
constexpr double kPlotWidth = kWidth - kMarginLeft - kMarginRight;
constexpr double kTitleHeight = 36;
constexpr double kLegendRowHeight = 20;
constexpr double kPanelTitleHeight = 22;
constexpr double kPlotHeight = 200;
constexpr double kPanelBelow = 40;  // x tick labels and the gap to the next panel
constexpr double kBottom = 28;      // x axis caption
constexpr double kCharWidth = 7;    // rough width of a 12px sans-serif character, for legend layout
constexpr int kTargetTicks = 5;

const char* const kPalette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"};

// Labels come from user files (CSV headers in any encoding); one bad byte would make the whole document
// unreadable, so invalid UTF-8 becomes U+FFFD and control characters, which XML 1.0 forbids, a space.
std::string xml_escape(const std::string& s) {
    std::string out;
    for (size_t i = 0; i < s.size();) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        size_t len = utf8_sequence_length(s, i);
        if (len == 0) {
            out += "\xEF\xBF\xBD";
            ++i;
            continue;
        }
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&apos;";
                break;
            default:
                out += c < 0x20 || c == 0x7F ? std::string(" ") : s.substr(i, len);
        }
        i += len;
    }
    return out;
}

// Coordinates are written with to_chars so that a program-wide locale cannot turn '.' into ','.
std::string num(double v, int decimals = 1) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
    std::string s(buf, res.ptr);
    if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos) s.erase(0, 1);  // "-0.0"
    return s;
}

// The drawn range [lo, hi] fits the data; ticks sit on the multiples of step inside it.
struct Axis {
    double lo = 0, hi = 1, step = 0.2;
    double pos(double v, double from, double length) const { return from + (v - lo) / (hi - lo) * length; }
    std::vector<double> ticks() const {
        std::vector<double> out;
        // The tolerance keeps a tick that lands on lo or hi from being lost to rounding (3.3 / 0.1 < 33).
        double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
        for (double k = first; k <= last; ++k) out.push_back(k * step);
        return out;
    }
};

// The 1-2-5 step nearest to raw on a log scale, so that tick labels are round numbers and their count
// stays near kTargetTicks.
double nice_step(double raw) {
    double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double f = raw / magnitude;
    double nice = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
    return nice * magnitude;
}

// A zero range (constant series, single point) is widened so that nothing divides by zero.
Axis make_axis(double min, double max, double margin, double min_step) {
    double pad = max > min ? (max - min) * margin : min == 0 ? 1 : std::abs(min) * 0.1;
    Axis axis;
    axis.lo = min - pad;
    axis.hi = max + pad;
    axis.step = std::max(min_step, nice_step((axis.hi - axis.lo) / kTargetTicks));
    return axis;
}

std::string tick_label(const Axis& axis, double v) {
    if (std::abs(v) < axis.step * 1e-6) v = 0;  // ceil() of a small negative is -0.0, which prints "-0"
    int step_exp = static_cast<int>(std::floor(std::log10(axis.step) + 1e-9));
    double max_abs = std::max(std::abs(axis.lo), std::abs(axis.hi));
    char buf[64];
    std::to_chars_result res;
    if (max_abs >= 1e7 || axis.step < 1e-5) {
        if (v == 0) return "0";
        int digits = std::clamp(static_cast<int>(std::floor(std::log10(max_abs))) - step_exp, 0, 15);
        res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific, digits);
    } else {
        res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, std::max(0, -step_exp));
    }
    return std::string(buf, res.ptr);
}

std::string color_of(const PlotSeries& s, size_t index) {
    return s.color.empty() ? kPalette[index % std::size(kPalette)] : s.color;
}

std::string stroke_attrs(const std::string& color, bool dashed) {
    std::string a = "fill=\"none\" stroke=\"" + xml_escape(color) + "\" stroke-width=\"1.5\"";
    if (dashed) a += " stroke-dasharray=\"6 4\"";
    return a;
}

struct LegendEntry {
    std::string label, color;
    bool dashed;
    bool operator==(const LegendEntry& o) const {
        return std::tie(label, color, dashed) == std::tie(o.label, o.color, o.dashed);
    }
};

std::vector<LegendEntry> legend_entries(const std::vector<PlotPanel>& panels) {
    std::vector<LegendEntry> entries;
    for (const PlotPanel& p : panels) {
        for (size_t i = 0; i < p.series.size(); ++i) {
            LegendEntry e{p.series[i].label, color_of(p.series[i], i), p.series[i].dashed};
            if (!e.label.empty() && std::find(entries.begin(), entries.end(), e) == entries.end()) entries.push_back(e);
        }
    }
    return entries;
}

// Lays entries out left to right, wrapping to a new row when the width runs out; returns the rows used.
int render_legend(std::string& out, const std::vector<LegendEntry>& entries, double top) {
    double x = kMarginLeft;
    int row = 0;
    for (const LegendEntry& e : entries) {
        double width = 32 + kCharWidth * static_cast<double>(e.label.size()) + 20;
        if (x + width > kWidth - kMarginRight && x > kMarginLeft) {
            x = kMarginLeft;
            ++row;
        }
        double y = top + row * kLegendRowHeight + kLegendRowHeight / 2;
        out += "<line x1=\"" + num(x) + "\" y1=\"" + num(y) + "\" x2=\"" + num(x + 24) + "\" y2=\"" + num(y) + "\" " +
               stroke_attrs(e.color, e.dashed) + "/>\n";
        out += "<text x=\"" + num(x + 30) + "\" y=\"" + num(y + 4) + "\">" + xml_escape(e.label) + "</text>\n";
        x += width;
    }
    return entries.empty() ? 0 : row + 1;
}

// Time indices covered by any series; [0, 1] when there is no data at all.
Axis time_axis(const std::vector<PlotPanel>& panels) {
    double min = 0, max = 0;
    bool any = false;
    for (const PlotPanel& p : panels) {
        for (const PlotSeries& s : p.series) {
            if (s.y.empty()) continue;
            double first = static_cast<double>(s.x0), last = first + static_cast<double>(s.y.size() - 1);
            min = any ? std::min(min, first) : first;
            max = any ? std::max(max, last) : last;
            any = true;
        }
    }
    return any ? make_axis(min, max, 0.0, 1.0) : Axis{};
}

Axis value_axis(const PlotPanel& panel) {
    double min = 0, max = 0;
    bool any = false;
    for (const PlotSeries& s : panel.series) {
        for (float v : s.y) {
            if (!std::isfinite(v)) continue;
            min = any ? std::min(min, double{v}) : v;
            max = any ? std::max(max, double{v}) : v;
            any = true;
        }
    }
    return any ? make_axis(min, max, 0.05, 0.0) : Axis{};
}

struct Frame {
    double left, top, width, height;
};

// A tick's text: the label of its time index when there are labels, else the index.
std::string x_tick_label(const Axis& xs, double v, const PlotAxis& axis) {
    if (axis.labels.empty()) return tick_label(xs, v);
    const double i = std::round(v);
    if (i < 0 || i >= static_cast<double>(axis.labels.size())) return "";
    return axis.labels[static_cast<size_t>(i)];
}

// Labels such as timestamps are wider than index numbers: fewer ticks, so that neighbours do not overlap.
Axis labelled_time_axis(Axis xs, const PlotAxis& axis) {
    size_t widest = 0;
    for (const std::string& l : axis.labels) widest = std::max(widest, l.size());
    const double room = kPlotWidth / (kCharWidth * static_cast<double>(widest + 3));
    // nice_step(2.5 * step) is always the next larger 1-2-5 step.
    for (int i = 0; i < 64 && room >= 1 && (xs.hi - xs.lo) / xs.step > room; ++i) xs.step = nice_step(xs.step * 2.5);
    return xs;
}

void render_marker(std::string& out, const Axis& xs, const Frame& f, const PlotAxis& axis, bool labelled) {
    if (axis.marker < 0) return;
    const double x = xs.pos(axis.marker, f.left, f.width);
    out += "<line x1=\"" + num(x) + "\" y1=\"" + num(f.top) + "\" x2=\"" + num(x) + "\" y2=\"" + num(f.top + f.height) +
           "\" stroke=\"#777\" stroke-dasharray=\"2 3\"/>\n";
    if (labelled && !axis.marker_label.empty())
        out += "<text x=\"" + num(x + 4) + "\" y=\"" + num(f.top + 12) + "\" fill=\"#555\">" +
               xml_escape(axis.marker_label) + "</text>\n";
}

// The x ticks: on round calendar steps when the labels are dates, else on the axis's multiples (labelled
// with the index's label, or the index).
std::vector<std::pair<double, std::string>> x_ticks(const Axis& xs, const PlotAxis& axis) {
    std::vector<std::pair<double, std::string>> ticks;
    if (!axis.labels.empty()) {
        const size_t room = static_cast<size_t>(kPlotWidth / (kCharWidth * (16 + 3)));
        for (const TimeTick& t : time_ticks(axis.labels, room, false, axis.date_order))
            ticks.emplace_back(static_cast<double>(t.index), t.label);
        if (!ticks.empty()) return ticks;
    }
    for (double v : xs.ticks()) ticks.emplace_back(v, x_tick_label(xs, v, axis));
    return ticks;
}

void render_grid(std::string& out, const Axis& xs, const Axis& ys, const Frame& f, const PlotAxis& axis) {
    double bottom = f.top + f.height;
    for (double v : ys.ticks()) {
        double y = ys.pos(v, bottom, -f.height);
        out += "<line x1=\"" + num(f.left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(f.left + f.width) + "\" y2=\"" +
               num(y) + "\" stroke=\"#e0e0e0\"/>\n";
        out += "<text x=\"" + num(f.left - 6) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\">" + tick_label(ys, v) +
               "</text>\n";
    }
    for (const auto& [v, text] : x_ticks(xs, axis)) {
        double x = xs.pos(v, f.left, f.width);
        out += "<line x1=\"" + num(x) + "\" y1=\"" + num(f.top) + "\" x2=\"" + num(x) + "\" y2=\"" + num(bottom) +
               "\" stroke=\"#e0e0e0\"/>\n";
        out += "<text x=\"" + num(x) + "\" y=\"" + num(bottom + 16) + "\" text-anchor=\"middle\">" + xml_escape(text) +
               "</text>\n";
    }
    out += "<rect x=\"" + num(f.left) + "\" y=\"" + num(f.top) + "\" width=\"" + num(f.width) + "\" height=\"" +
           num(f.height) + "\" fill=\"none\" stroke=\"#444\"/>\n";
}

// Non-finite values break the line into separate runs instead of being drawn; a run of one point has no
// length, so it is drawn as a dot.
void render_series(std::string& out, const PlotSeries& s, const std::string& color, const Axis& xs, const Axis& ys,
                   const Frame& f) {
    std::string points;
    size_t run = 0;
    double last_x = 0, last_y = 0;
    auto flush = [&] {
        if (run == 1) {
            out += "<circle cx=\"" + num(last_x) + "\" cy=\"" + num(last_y) + "\" r=\"2.5\" fill=\"" +
                   xml_escape(color) + "\"/>\n";
        } else if (run > 1) {
            out += "<polyline " + stroke_attrs(color, s.dashed) + " points=\"" + points + "\"/>\n";
        }
        points.clear();
        run = 0;
    };
    for (size_t i = 0; i < s.y.size(); ++i) {
        if (!std::isfinite(s.y[i])) {
            flush();
            continue;
        }
        last_x = xs.pos(static_cast<double>(s.x0 + i), f.left, f.width);
        last_y = ys.pos(s.y[i], f.top + f.height, -f.height);
        if (run) points += ' ';
        points += num(last_x) + "," + num(last_y);
        ++run;
    }
    flush();
}

void render_panel(std::string& out, const PlotPanel& panel, const Axis& xs, double top, const PlotAxis& axis,
                  bool first) {
    Frame f{kMarginLeft, top + kPanelTitleHeight, kPlotWidth, kPlotHeight};
    Axis ys = value_axis(panel);
    out += "<g>\n<text x=\"" + num(f.left) + "\" y=\"" + num(top + 15) + "\" font-weight=\"bold\">" +
           xml_escape(panel.title) + "</text>\n";
    render_grid(out, xs, ys, f, axis);
    // The quantity (or unit) up the y axis, turned a quarter left beside the tick labels.
    const std::string caption = axis.y_caption.empty() ? panel.title : axis.y_caption;
    const double cy = f.top + f.height / 2;
    out += "<text x=\"14\" y=\"" + num(cy) + "\" text-anchor=\"middle\" transform=\"rotate(-90 14 " + num(cy) + ")\">" +
           xml_escape(caption) + "</text>\n";
    render_marker(out, xs, f, axis, first);
    for (size_t i = 0; i < panel.series.size(); ++i)
        render_series(out, panel.series[i], color_of(panel.series[i], i), xs, ys, f);
    out += "</g>\n";
}

}  // namespace

std::string render_svg(const std::string& title, const std::vector<PlotPanel>& panels) {
    return render_svg(title, panels, PlotAxis{});
}

std::string render_svg(const std::string& title, const std::vector<PlotPanel>& panels, const PlotAxis& axis) {
    std::string body;
    std::vector<LegendEntry> legend = legend_entries(panels);
    int legend_rows = render_legend(body, legend, kTitleHeight);
    double top = kTitleHeight + legend_rows * kLegendRowHeight + 8;
    const Axis xs = axis.labels.empty() ? time_axis(panels) : labelled_time_axis(time_axis(panels), axis);
    for (const PlotPanel& p : panels) {
        render_panel(body, p, xs, top, axis, &p == &panels.front());
        top += kPanelTitleHeight + kPlotHeight + kPanelBelow;
    }
    if (!panels.empty()) {
        body += "<text x=\"" + num(kMarginLeft + kPlotWidth / 2) + "\" y=\"" + num(top + 4) +
                "\" text-anchor=\"middle\">" + xml_escape(axis.caption) + "</text>\n";
    }
    double height = top + kBottom;

    std::string svg = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"" + num(kWidth, 0) + "\" height=\"" +
           num(height, 0) + "\" viewBox=\"0 0 " + num(kWidth, 0) + " " + num(height, 0) +
           "\" font-family=\"sans-serif\" font-size=\"12\">\n";
    svg += "<title>" + xml_escape(title) + "</title>\n";
    svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    svg += "<text x=\"" + num(kWidth / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\" " +
           "font-weight=\"bold\">" + xml_escape(title) + "</text>\n";
    return svg + body + "</svg>\n";
}

void write_svg(const std::string& path, const std::string& svg) { write_file_atomic(path, svg); }

}  // namespace ax::tools
