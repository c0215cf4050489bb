#include "tools/cli/known_inputs.h"

#include <cmath>
#include <cstdio>
#include <limits>

#include "models/forecaster/forecaster.h"
#include "tools/cli/data_csv.h"
#include "tools/cli/window_times.h"
#include "tools/common/tool_error.h"
#include "tools/host/calendar.h"
#include "tools/text/csv_time.h"

namespace ax::cli {

namespace {

std::string column_name(const std::vector<std::string>& features, size_t i) {
    return i < features.size() ? "\"" + features[i] + "\"" : "input column " + std::to_string(i);
}

}  // namespace

tools::Table read_model_rows(const Args& args, const std::string& option, const tools::LoadedModel& m,
                             const std::vector<size_t>& columns, const std::vector<std::string>& features,
                             size_t last_rows, bool on_grid) {
    std::vector<std::string> calendar = tools::calendar_of(m.file);
    std::vector<std::string> names, read;
    for (size_t column : columns) {
        if (column < features.size()) names.push_back(features[column]);
        const bool computed = column < calendar.size() && !calendar[column].empty();
        if (!computed && column < features.size()) read.push_back(features[column]);
    }
    const bool named = names.size() == columns.size();
    const size_t n_read = named ? read.size() : columns.size();
    const std::string path = args.require(option);
    tools::Table t = read_data_csv(args, option, n_read, named ? read : std::vector<std::string>{}, last_rows);
    if (on_grid) settle_window_times(t, args, option, reads_times(m));
    if (n_read == columns.size()) {
        if (named) t.header = names;
        return t;
    }
    std::vector<std::string> kinds(columns.size());
    for (size_t i = 0; i < columns.size(); ++i) kinds[i] = columns[i] < calendar.size() ? calendar[columns[i]] : "";
    return tools::with_calendar(t, kinds, names, path);
}

tools::Table read_history(const Args& args, const tools::LoadedModel& m, const std::vector<std::string>& features,
                          size_t last_rows, const std::string& option, bool on_grid) {
    const ForecasterConfig& c = m.as<Forecaster>().config();
    std::vector<size_t> columns(c.n_features);
    for (size_t i = 0; i < columns.size(); ++i) columns[i] = i;
    return read_model_rows(args, option, m, columns, features, last_rows, on_grid);
}

std::vector<float> read_future(const Args& args, const tools::LoadedModel& m, const std::vector<std::string>& features,
                               const tools::Table& forecast, bool timed, size_t horizon) {
    const Forecaster& model = m.as<Forecaster>();
    const ForecasterConfig& c = model.config();
    const size_t steps = model.future_rows(horizon);
    if (steps == 0) {
        if (args.has("future"))
            std::fprintf(stderr, "note: %s is not read: the model's decoder reads no input known ahead%s\n",
                         args.get("future").c_str(), c.known_inputs != 0 ? " after a one-step forecast" : "");
        return {};
    }
    const size_t n = c.n_features;
    std::vector<std::string> calendar = tools::calendar_of(m.file);
    calendar.resize(n);
    // The known columns: read by the decoder, predicted by no output.
    std::vector<size_t> from_file, computed;
    for (size_t j = 0; j < c.decoder_features; ++j) {
        if (!model.known_decoder_column(j)) continue;
        const size_t column = model.decoder_column(j);
        (calendar[column].empty() ? from_file : computed).push_back(column);
    }
    std::vector<float> future(steps * n, std::numeric_limits<float>::quiet_NaN());
    tools::Table given;
    std::string path;
    if (args.has("future")) {
        path = args.get("future");
        std::vector<std::string> names;
        for (size_t column : from_file) {
            if (column >= features.size())
                throw tools::ToolError("--future: the model stores no feature names, so its known input column " +
                                       std::to_string(column) + " cannot be found by name (convert with \"features\")");
            names.push_back(features[column]);
        }
        if (!names.empty())
            given = read_data_csv(args, "future", names.size(), names);
        else
            given = tools::read_csv(path, csv_options(args));
    } else if (!from_file.empty()) {
        std::string list;
        for (size_t column : from_file) list += (list.empty() ? "" : ", ") + column_name(features, column);
        const char* verb = from_file.size() == 1 ? "its" : "their";
        throw tools::ToolError(std::string(c.encoder_only() ? "each row the model appends to its window holds "
                                                            : "the model's decoder reads ") +
                               list + ", which it does not predict: give " + verb +
                               " values for the forecast's steps with --future FILE (a CSV with a time column and "
                               "those columns)");
    }
    // Row of `given` for each forecast step: by timestamp when the forecast's steps have them. Rows in file
    // order only when neither file has a time column (nothing could say they are out of step).
    std::vector<size_t> row_of(steps);
    const bool match_times = args.has("future") && timed;
    if (args.has("future")) {
        if (timed && given.times.empty())
            throw tools::ToolError(path + " has no time column: its rows cannot be matched to the forecast's steps (" +
                                   forecast.times.front() + " on); give it the time column the input has");
        if (!timed && !given.times.empty())
            throw tools::ToolError(path + " has a time column but the forecast's steps have no timestamps (" +
                                   args.get("input") +
                                   " has no time column): its rows cannot be matched to them; give the input its "
                                   "time column");
    }
    for (size_t t = 0; t < steps; ++t) {
        row_of[t] = t;
        if (match_times) {
            tools::TimePoint want;
            tools::time_point(forecast.times[t], forecast.decimal_comma, want, forecast.date_order);
            size_t r = 0, found = given.rows;
            for (; r < given.rows; ++r) {
                tools::TimePoint p;
                if (!tools::time_point(given.times[r], given.decimal_comma, p, given.date_order) || !(p == want))
                    continue;
                if (found != given.rows)
                    throw tools::ToolError(path + " has two rows for " + forecast.times[t] + ", forecast step " +
                                           std::to_string(t + 1) + ": '" + given.times[found] + "' and '" +
                                           given.times[r] + "'");
                found = r;
            }
            if (found == given.rows) {
                // Times with and without a UTC offset never match: say so when that is why.
                tools::TimePoint first;
                const bool other_kind =
                    given.rows > 0 && tools::time_point(given.times[0], given.decimal_comma, first, given.date_order) &&
                    first.iso && want.iso && first.zoned != want.zoned;
                throw tools::ToolError(
                    path + " has no row for " + forecast.times[t] + ", forecast step " + std::to_string(t + 1) +
                    " (the known inputs of " + std::to_string(steps) + " steps are read)" +
                    (other_kind ? std::string("; its timestamps ") + (first.zoned ? "give" : "give no") +
                                      " UTC offset and the input's " + (want.zoned ? "do" : "do not") +
                                      ": write both the same way"
                                : std::string()));
            }
            row_of[t] = found;
        } else if (args.has("future") && t >= given.rows) {
            throw tools::ToolError(path + " holds " + std::to_string(given.rows) + " row(s); a forecast of " +
                                   std::to_string(horizon) + " steps reads the known inputs of " +
                                   std::to_string(steps) + " steps");
        }
    }
    for (size_t t = 0; t < steps; ++t)
        for (size_t k = 0; k < from_file.size(); ++k) future[t * n + from_file[k]] = given.at(row_of[t], k);
    if (!computed.empty()) {
        std::vector<std::string> only(n);
        for (size_t column : computed) only[column] = calendar[column];
        if (timed) {
            tools::fill_calendar(only, forecast, steps, n, "the forecast's timestamps", future.data());
        } else if (!given.times.empty()) {
            tools::Table ordered = given;
            ordered.times.clear();
            for (size_t t = 0; t < steps; ++t) ordered.times.push_back(given.times[row_of[t]]);
            tools::fill_calendar(only, ordered, steps, n, path, future.data());
        } else {
            throw tools::ToolError(
                "the model computes calendar features for the forecast's steps from timestamps: "
                "give the input evenly spaced timestamps, or --future FILE with a time column");
        }
    }
    return future;
}

}  // namespace ax::cli
