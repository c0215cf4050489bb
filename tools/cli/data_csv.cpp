#include "tools/cli/data_csv.h"

#include <algorithm>
#include <cstdio>

#include "tools/common/tool_error.h"
#include "tools/family/family_descriptor.h"
#include "tools/text/csv_records.h"
#include "tools/text/csv_time.h"

namespace ax::cli {

std::set<std::string> with_csv_options(std::set<std::string> options) {
    options.insert({"delimiter", "columns", "fill", "time-format"});
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
    if (args.has("time-format") && !tools::parse_date_order(args.get("time-format"), o.date_order))
        throw UsageError{"--time-format is dd/mm/yyyy or mm/dd/yyyy, got \"" + args.get("time-format") + "\""};
    const std::string fill = args.get("fill", "none");
    if (fill == "previous")
        o.fill = tools::Fill::previous;
    else if (fill == "linear")
        o.fill = tools::Fill::linear;
    else if (fill != "none")
        throw UsageError{"--fill is previous, linear or none, got \"" + fill + "\""};
    return o;
}

namespace {

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ",") + n;
    return out;
}

// --columns against the model's stored feature names. The model reads its inputs by position, so columns
// that are its features are put in its order; a name that is a feature in another place beside names that
// are not is refused (which column feeds which input cannot be meant); names that are none of the features
// (a file whose header names them otherwise) feed the features in the order given, said in a note.
void order_columns(std::vector<std::string>& columns, const std::vector<std::string>& features,
                   const std::string& path) {
    if (columns.empty() || features.empty() || columns == features) return;
    size_t known = 0;
    for (const std::string& c : columns) known += std::find(features.begin(), features.end(), c) != features.end();
    if (known == columns.size() && columns.size() == features.size()) {
        std::fprintf(stderr, "note: %s: --columns %s read in the model's feature order %s\n", path.c_str(),
                     joined(columns).c_str(), joined(features).c_str());
        columns = features;
        return;
    }
    for (size_t i = 0; i < columns.size(); ++i) {
        const auto at = std::find(features.begin(), features.end(), columns[i]);
        if (at != features.end() && static_cast<size_t>(at - features.begin()) != i)
            throw UsageError{"--columns " + joined(columns) + ": '" + columns[i] + "' is the model's feature " +
                             std::to_string(at - features.begin() + 1) + " but would feed its input " +
                             std::to_string(i + 1) + " ('" + (i < features.size() ? features[i] : "none") +
                             "'); the model's features are " + joined(features) + ", in that order"};
    }
    if (known < columns.size() && columns.size() == features.size()) {
        std::string pairs;
        for (size_t i = 0; i < columns.size(); ++i)
            if (columns[i] != features[i]) pairs += (pairs.empty() ? "" : ", ") + columns[i] + " -> " + features[i];
        std::fprintf(stderr, "note: %s: --columns feeds %s (the model's feature names)\n", path.c_str(), pairs.c_str());
    }
}

}  // namespace

tools::Table read_data_csv(const Args& args, const std::string& option, size_t n_features,
                           const std::vector<std::string>& features, size_t last_rows) {
    tools::CsvOptions o = csv_options(args);
    o.features = features;
    o.last_rows = last_rows;
    const std::string path = args.require(option);
    order_columns(o.columns, features, path);
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

void same_style(const tools::Table& from, tools::Table& to) {
    to.delimiter = from.delimiter;
    to.decimal_comma = from.decimal_comma;
    to.crlf = from.crlf;
    to.date_order = from.date_order;
}

void same_times(const tools::Table& from, tools::Table& to) {
    to.time_name = from.time_name;
    to.times = from.times;
    same_style(from, to);
}

namespace {

// `next` (the timestamps after `given`) when they are regular, else the rows numbered 1..N under "step".
void extrapolated_times(const tools::Table& given, const tools::NextTimes& next, std::vector<std::string> kept,
                        const std::string& source, const char* what, tools::Table& out) {
    if (next.regular) {
        out.time_name = given.time_name;
        out.times = std::move(kept);
        out.times.insert(out.times.end(), next.times.begin(), next.times.end());
        return;
    }
    std::fprintf(stderr, "note: %s: the timestamps are not evenly spaced (%s); %s rows are numbered 1..%zu\n",
                 source.c_str(), next.why.c_str(), what, out.rows);
    out.time_name = "step";
    out.times.clear();
    for (size_t i = 1; i <= out.rows; ++i) out.times.push_back(std::to_string(i));
}

}  // namespace

void predicted_times(const tools::Table& decoder_input, const std::string& source, tools::Table& out) {
    same_style(decoder_input, out);
    if (decoder_input.times.empty()) return;
    extrapolated_times(decoder_input,
                       tools::next_times(decoder_input.times, 1, decoder_input.decimal_comma, decoder_input.date_order),
                       std::vector<std::string>(decoder_input.times.begin() + 1, decoder_input.times.end()), source,
                       "the output's", out);
}

bool forecast_times(const tools::Table& history, const std::string& source, tools::Table& forecast) {
    same_style(history, forecast);
    if (history.times.empty()) return false;
    const tools::NextTimes next =
        tools::next_times(history.times, forecast.rows, history.decimal_comma, history.date_order);
    extrapolated_times(history, next, {}, source, "the forecast's", forecast);
    return next.regular;
}

}  // namespace ax::cli
