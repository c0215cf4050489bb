#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <string>
#include <vector>

#include "tools/text/svg_plot.h"
#include "tools/text/time_ticks.h"
#include "tools/common/tool_error.h"

using ax::tools::PlotPanel;
using ax::tools::PlotSeries;
using ax::tools::render_svg;

namespace {

// A minimal XML well-formedness check: every tag closes in order, attribute values are quoted, and '&'
// only starts one of the five predefined entities. Returns "" when the document is fine.
std::string xml_problem(const std::string& doc) {
    std::vector<std::string> open;
    size_t i = 0;
    if (doc.compare(0, 5, "<?xml") == 0) i = doc.find("?>") + 2;
    while (i < doc.size()) {
        if (doc[i] == '&') {
            static const char* const entities[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
            bool known = std::any_of(std::begin(entities), std::end(entities),
                                     [&](const char* e) { return doc.compare(i, std::strlen(e), e) == 0; });
            if (!known) return "bad entity at " + std::to_string(i);
            ++i;
            continue;
        }
        if (doc[i] == '>') return "stray '>' at " + std::to_string(i);
        if (doc[i] != '<') {
            ++i;
            continue;
        }
        size_t end = i + 1;
        char quote = 0;
        for (; end < doc.size() && (quote || doc[end] != '>'); ++end) {
            if (quote && doc[end] == quote)
                quote = 0;
            else if (!quote && (doc[end] == '"' || doc[end] == '\''))
                quote = doc[end];
            else if (!quote && doc[end] == '<')
                return "'<' inside a tag at " + std::to_string(end);
        }
        if (end >= doc.size()) return "unterminated tag at " + std::to_string(i);
        std::string tag = doc.substr(i + 1, end - i - 1);
        bool closing = !tag.empty() && tag[0] == '/';
        bool self_closing = !tag.empty() && tag.back() == '/';
        std::string name = tag.substr(closing, tag.find_first_of(" \t\n/", closing) - closing);
        if (name.empty()) return "empty tag name at " + std::to_string(i);
        if (closing) {
            if (open.empty() || open.back() != name) return "unbalanced </" + name + "> at " + std::to_string(i);
            open.pop_back();
        } else if (!self_closing) {
            open.push_back(name);
        }
        i = end + 1;
    }
    return open.empty() ? "" : "unclosed <" + open.back() + ">";
}

std::vector<std::string> elements(const std::string& doc, const std::string& name) {
    std::vector<std::string> out;
    for (size_t i = doc.find("<" + name + " "); i != std::string::npos; i = doc.find("<" + name + " ", i + 1))
        out.push_back(doc.substr(i, doc.find('>', i) - i + 1));
    return out;
}

std::string attribute(const std::string& element, const std::string& name) {
    size_t at = element.find(" " + name + "=\"");
    if (at == std::string::npos) return "";
    size_t start = at + name.size() + 3;
    return element.substr(start, element.find('"', start) - start);
}

size_t point_count(const std::string& polyline) {
    std::string points = attribute(polyline, "points");
    return points.empty() ? 0 : static_cast<size_t>(std::count(points.begin(), points.end(), ' ')) + 1;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Every coordinate must lie inside the document, which also rules out nan and inf.
void check_points_inside(const std::string& doc, const std::string& polyline) {
    double width = std::stod(attribute(elements(doc, "svg")[0], "width"));
    double height = std::stod(attribute(elements(doc, "svg")[0], "height"));
    std::string points = attribute(polyline, "points");
    for (size_t i = 0; i < points.size();) {
        size_t comma = points.find(',', i);
        size_t space = points.find(' ', comma);
        double x = std::stod(points.substr(i, comma - i));
        double y = std::stod(points.substr(comma + 1, space - comma - 1));
        CHECK(x >= 0);
        CHECK(x <= width);
        CHECK(y >= 0);
        CHECK(y <= height);
        i = space == std::string::npos ? points.size() : space + 1;
    }
}

PlotSeries series(const std::string& label, const std::string& color, size_t x0, std::vector<float> y,
                  bool dashed = false) {
    PlotSeries s;
    s.label = label;
    s.color = color;
    s.dashed = dashed;
    s.x0 = x0;
    s.y = std::move(y);
    return s;
}

std::vector<PlotPanel> forecast_panels() {
    PlotPanel load{
        "load",
        {series("history", "#1f77b4", 0, {1, 2, 3, 2.5f, 2}), series("forecast", "#ff7f0e", 5, {2.2f, 2.4f, 2.1f}),
         series("truth", "#2ca02c", 5, {2.0f, 2.6f, 2.3f}, true)}};
    PlotPanel temp{
        "temp",
        {series("history", "#1f77b4", 0, {20, 21, 22, 21, 20}), series("forecast", "#ff7f0e", 5, {19.5f, 19, 18.7f})}};
    return {load, temp};
}

}  // namespace

TEST_CASE("svg: a forecast plot is a well-formed standalone document") {
    std::string doc = render_svg("Forecast", forecast_panels());
    CHECK(xml_problem(doc) == "");
    CHECK(doc.compare(0, 38, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>") == 0);
    std::vector<std::string> root = elements(doc, "svg");
    REQUIRE(root.size() == 1);
    CHECK(attribute(root[0], "xmlns") == "http://www.w3.org/2000/svg");
    CHECK(attribute(root[0], "version") == "1.1");
    CHECK(attribute(root[0], "viewBox") == "0 0 " + attribute(root[0], "width") + " " + attribute(root[0], "height"));
    CHECK(doc.find("<title>Forecast</title>") != std::string::npos);
    CHECK(doc.find(">load</text>") != std::string::npos);
    CHECK(doc.find(">temp</text>") != std::string::npos);
    CHECK(doc.find(">time step</text>") != std::string::npos);
    CHECK(lower(doc).find("nan") == std::string::npos);
    CHECK(lower(doc).find("inf") == std::string::npos);
}

TEST_CASE("svg: one polyline per series with one point per value") {
    std::string doc = render_svg("Forecast", forecast_panels());
    std::vector<std::string> lines = elements(doc, "polyline");
    REQUIRE(lines.size() == 5);
    CHECK(point_count(lines[0]) == 5);
    CHECK(point_count(lines[1]) == 3);
    CHECK(point_count(lines[2]) == 3);
    CHECK(attribute(lines[0], "stroke") == "#1f77b4");
    CHECK(attribute(lines[1], "stroke") == "#ff7f0e");
    CHECK(attribute(lines[2], "stroke-dasharray") != "");  // truth is dashed
    CHECK(attribute(lines[0], "stroke-dasharray") == "");  // history is solid
    for (const std::string& line : lines) check_points_inside(doc, line);

    // Forecast starts one step right of the last history point on the shared time axis.
    std::string history = attribute(lines[0], "points");
    std::string forecast = attribute(lines[1], "points");
    double last_history_x = std::stod(history.substr(history.rfind(' ') + 1));
    double first_forecast_x = std::stod(forecast);
    CHECK(first_forecast_x > last_history_x);
}

TEST_CASE("svg: legend lists each series once") {
    std::string doc = render_svg("Forecast", forecast_panels());
    for (const char* label : {"history", "forecast", "truth"}) {
        std::string text = std::string(">") + label + "</text>";
        size_t first = doc.find(text);
        CHECK(first != std::string::npos);
        CHECK(doc.find(text, first + 1) == std::string::npos);
    }
}

TEST_CASE("svg: y ticks are round 1-2-5 numbers") {
    auto y_labels = [](std::vector<float> y) {
        std::string doc = render_svg("t", {PlotPanel{"v", {series("s", "red", 0, std::move(y))}}});
        CHECK(xml_problem(doc) == "");
        std::vector<std::string> labels;
        for (size_t at = doc.find("text-anchor=\"end\">"); at != std::string::npos;
             at = doc.find("text-anchor=\"end\">", at + 1)) {
            size_t start = doc.find('>', at) + 1;
            labels.push_back(doc.substr(start, doc.find('<', start) - start));
        }
        return labels;
    };
    using Labels = std::vector<std::string>;
    CHECK(y_labels({0.0f, 0.93f, 0.41f}) == Labels{"0.0", "0.2", "0.4", "0.6", "0.8"});
    CHECK(y_labels({1200.0f, 4700.0f}) == Labels{"2000", "3000", "4000"});
    CHECK(y_labels({-0.013f, 0.004f}) == Labels{"-0.010", "-0.005", "0.000"});
    CHECK(y_labels({3, 3}) == Labels{"2.7", "2.8", "2.9", "3.0", "3.1", "3.2", "3.3"});  // widened around 3
    CHECK(y_labels({0, 0}) == Labels{"-1.0", "-0.5", "0.0", "0.5", "1.0"});
    CHECK(y_labels({-3e38f, 3e38f}) == Labels{"-3e+38", "-2e+38", "-1e+38", "0", "1e+38", "2e+38", "3e+38"});
    // Neighbouring floats: enough digits to tell the ticks apart.
    CHECK(y_labels({1.0f, 1.00000012f}) == Labels{"1.00000000e+00", "1.00000002e+00", "1.00000004e+00",
                                                  "1.00000006e+00", "1.00000008e+00", "1.00000010e+00",
                                                  "1.00000012e+00"});
}

TEST_CASE("svg: constant series, single points and empty input do not divide by zero") {
    PlotPanel constant{"flat", {series("s", "red", 0, {3, 3, 3, 3})}};
    PlotPanel zero{"zero", {series("s", "red", 0, {0, 0})}};
    PlotPanel single{"one", {series("s", "red", 7, {1.5f})}};
    PlotPanel empty{"empty", {series("s", "red", 0, {})}};
    PlotPanel none{"none", {}};
    std::string doc = render_svg("edge cases", {constant, zero, single, empty, none});
    CHECK(xml_problem(doc) == "");
    CHECK(lower(doc).find("nan") == std::string::npos);
    CHECK(lower(doc).find("inf") == std::string::npos);
    std::vector<std::string> lines = elements(doc, "polyline");
    REQUIRE(lines.size() == 2);
    CHECK(point_count(lines[0]) == 4);
    CHECK(point_count(lines[1]) == 2);
    for (const std::string& line : lines) check_points_inside(doc, line);
    CHECK(elements(doc, "circle").size() == 1);  // the single point is drawn as a dot

    std::string only_point = render_svg("one", {single});
    CHECK(xml_problem(only_point) == "");
    CHECK(lower(only_point).find("nan") == std::string::npos);

    std::string nothing = render_svg("nothing", {});
    CHECK(xml_problem(nothing) == "");
    CHECK(elements(nothing, "polyline").empty());
}

TEST_CASE("svg: non-finite values break the line and are never written") {
    float nan = std::nanf("");
    float inf = HUGE_VALF;
    PlotPanel p{"gaps", {series("s", "red", 0, {1, 2, nan, 3, 4, 5, inf, 6, -inf})}};
    std::string doc = render_svg("t", {p});
    CHECK(xml_problem(doc) == "");
    CHECK(lower(doc).find("nan") == std::string::npos);
    CHECK(lower(doc).find("inf") == std::string::npos);
    std::vector<std::string> lines = elements(doc, "polyline");
    REQUIRE(lines.size() == 2);
    CHECK(point_count(lines[0]) == 2);
    CHECK(point_count(lines[1]) == 3);
    CHECK(elements(doc, "circle").size() == 1);

    PlotPanel all_nan{"all nan", {series("s", "red", 0, {nan, nan})}};
    std::string nan_doc = render_svg("t", {all_nan});
    CHECK(xml_problem(nan_doc) == "");
    CHECK(elements(nan_doc, "polyline").empty());
}

TEST_CASE("svg: text is escaped") {
    PlotPanel p{"a < b & \"c\"", {series("x>y 'q'", "red\" onload=\"x", 0, {1, 2})}};
    std::string doc = render_svg("<script>&amp;", {p});
    CHECK(xml_problem(doc) == "");
    CHECK(doc.find("<script>") == std::string::npos);
    CHECK(doc.find("&lt;script&gt;&amp;amp;") != std::string::npos);
    CHECK(doc.find("a &lt; b &amp; &quot;c&quot;") != std::string::npos);
    CHECK(doc.find("x&gt;y &apos;q&apos;") != std::string::npos);
    CHECK(attribute(elements(doc, "polyline")[0], "stroke") == "red&quot; onload=&quot;x");

    // Invalid UTF-8 and control characters would make the document unreadable; UTF-8 text stays.
    PlotPanel bytes{"caf\xE9\x01 \xC3\xA9t\xC3\xA9", {series("s", "red", 0, {1, 2})}};
    std::string bytes_doc = render_svg("t", {bytes});
    CHECK(bytes_doc.find(">caf\xEF\xBF\xBD  \xC3\xA9t\xC3\xA9</text>") != std::string::npos);
}

TEST_CASE("svg: a missing colour comes from the palette") {
    PlotPanel p{"p", {series("a", "", 0, {1, 2}), series("b", "", 0, {2, 1})}};
    std::vector<std::string> lines = elements(render_svg("t", {p}), "polyline");
    REQUIRE(lines.size() == 2);
    CHECK(!attribute(lines[0], "stroke").empty());
    CHECK(attribute(lines[0], "stroke") != attribute(lines[1], "stroke"));
}

TEST_CASE("svg: write_svg") {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / "auspex_test_svg";
    fs::create_directories(dir);
    std::string path = (dir / "plot.svg").string();
    std::string doc = render_svg("t", forecast_panels());
    ax::tools::write_svg(path, doc);
    CHECK(fs::file_size(path) == doc.size());

    std::string bad = (dir / "no_such_dir" / "plot.svg").string();
    try {
        ax::tools::write_svg(bad, doc);
        FAIL("expected an error");
    } catch (const ax::tools::ToolError& e) {
        CHECK(std::string(e.what()) == "cannot write '" + bad + "': No such file or directory");
    }
    fs::remove_all(dir);
}

TEST_CASE("time ticks: round calendar steps with short labels, as few as fit") {
    auto hourly = [](size_t n, int start_hour) {
        std::vector<std::string> t;
        for (size_t i = 0; i < n; ++i) {
            const size_t h = static_cast<size_t>(start_hour) + i;
            char s[32];
            std::snprintf(s, sizeof s, "2026-03-%02zuT%02zu:00", 1 + h / 24, h % 24);
            t.push_back(s);
        }
        return t;
    };
    // A week of hours from 05:00: one tick a day at midnight (every 12 hours would be 14, more than 8 fit).
    const std::vector<ax::tools::TimeTick> week =
        ax::tools::time_ticks(hourly(168, 5), 8, false, ax::tools::DateOrder::unknown);
    REQUIRE(week.size() == 7);
    CHECK(week[0].index == 19);
    CHECK(week[0].label == "2026-03-02");
    // A day and a half: every 6 hours, labelled with month, day and time.
    const std::vector<ax::tools::TimeTick> day =
        ax::tools::time_ticks(hourly(36, 0), 8, false, ax::tools::DateOrder::unknown);
    REQUIRE(day.size() == 6);
    CHECK(day[1].label == "03-01 06:00");
    // Monthly data over six years: a tick each year's January.
    std::vector<std::string> months;
    for (int m = 0; m < 72; ++m) {
        char s[16];
        std::snprintf(s, sizeof s, "%04d-%02d-01", 2018 + m / 12, 1 + m % 12);
        months.push_back(s);
    }
    const std::vector<ax::tools::TimeTick> years =
        ax::tools::time_ticks(months, 8, false, ax::tools::DateOrder::unknown);
    REQUIRE(years.size() == 6);
    CHECK(years[1].label == "2019");
    // Numbers are no calendar: no ticks (the plot falls back to every n-th index).
    CHECK(ax::tools::time_ticks({"1", "2", "3"}, 8, false, ax::tools::DateOrder::unknown).empty());
}
