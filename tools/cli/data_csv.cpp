#include "tools/cli/data_csv.h"

#include <cstdio>

#include "tools/common/tool_error.h"
#include "tools/family/family_descriptor.h"
#include "tools/text/csv_records.h"
#include "tools/text/csv_time.h"

namespace ax::cli {

std::set<std::string> with_csv_options(std::set<std::string> options) {
    options.insert({"delimiter", "columns", "fill"});
    return options;
}

tools::CsvOptions csv_options(const Args& args) {
    tools::CsvOptions o;
    try {
        if (args.has("delimiter")) o.delimiter = tools::parse_delimiter(args.get("delimiter"));
    } catch (const tools::ToolError& e) {
        throw UsageError{e.what()};
    }
    if (args.has("columns")) {
        const std::string list = args.get("columns");
        size_t start = 0;
        for (;;) {
            const size_t comma = list.find(',', start);
            const std::string name = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
            if (name.empty()) throw UsageError{"--columns takes names separated by commas, got \"" + list + "\""};
            o.columns.push_back(name);
            if (comma == std::string::npos) break;
            start = comma + 1;
        }
    }
    const std::string fill = args.get("fill", "none");
    if (fill == "previous")
        o.fill = tools::Fill::previous;
    else if (fill == "linear")
        o.fill = tools::Fill::linear;
    else if (fill != "none")
        throw UsageError{"--fill is previous, linear or none, got \"" + fill + "\""};
    return o;
}

tools::Table read_data_csv(const Args& args, const std::string& option, size_t n_features,
                           const std::vector<std::string>& features) {
    tools::CsvOptions o = csv_options(args);
    o.features = features;
    const std::string path = args.require(option);
    tools::Table t = tools::read_csv(path, o);
    if (t.cols != n_features)
        throw tools::ToolError("the model takes " + std::to_string(n_features) + " feature column(s), " + path +
                               " has " + std::to_string(t.cols) + (o.columns.empty() ? "" : " (--columns)") +
                               (t.times.empty() ? "" : " besides its time column"));
    if (!t.ignored.empty() && o.columns.empty()) {
        std::string names;
        for (const std::string& n : t.ignored) names += (names.empty() ? "" : ", ") + n;
        std::fprintf(stderr, "note: %s: ignoring column(s) %s (the model's features are the others)\n", path.c_str(),
                     names.c_str());
    }
    if (t.filled) std::fprintf(stderr, "note: %s: filled %zu empty cell(s)\n", path.c_str(), t.filled);
    return t;
}

std::vector<std::string> feature_header(const tools::Table& input, const std::vector<std::string>& stored) {
    if (!input.header.empty()) return input.header;
    if (stored.size() == input.cols) return stored;
    return {};
}

std::vector<std::string> numbered_names(const std::string& prefix, size_t n) {
    std::vector<std::string> names(n);
    for (size_t i = 0; i < n; ++i) names[i] = prefix + "_" + std::to_string(i);
    return names;
}

const char* output_prefix(format::Family family) { return tools::family_descriptor(family).output_prefix; }

void same_times(const tools::Table& from, tools::Table& to) {
    to.time_name = from.time_name;
    to.times = from.times;
    to.delimiter = from.delimiter;
    to.decimal_comma = from.decimal_comma;
}

void forecast_times(const tools::Table& history, const std::string& source, tools::Table& forecast) {
    if (history.times.empty()) return;
    const tools::NextTimes next = tools::next_times(history.times, forecast.rows, history.decimal_comma);
    forecast.delimiter = history.delimiter;
    forecast.decimal_comma = history.decimal_comma;
    if (next.regular) {
        forecast.time_name = history.time_name;
        forecast.times = next.times;
        return;
    }
    std::fprintf(stderr,
                 "note: %s: the timestamps are not evenly spaced (%s); the forecast's rows are numbered 1..%zu\n",
                 source.c_str(), next.why.c_str(), forecast.rows);
    forecast.time_name = "step";
    forecast.times.clear();
    for (size_t i = 1; i <= forecast.rows; ++i) forecast.times.push_back(std::to_string(i));
}

}  // namespace ax::cli
