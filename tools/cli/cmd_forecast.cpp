#include <cmath>
#include <cstdio>

#include "runtime/model_identity.h"
#include "tools/cli/chronos_bolt_cli.h"
#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/cli/history_header.h"
#include "tools/cli/known_inputs.h"
#include "tools/cli/unchecked_notes.h"
#include "tools/host/column_names.h"
#include "tools/text/csv.h"
#include "tools/host/forecast_report.h"
#include "tools/host/forecast_window.h"
#include "tools/host/host_session.h"
#include "tools/text/svg_plot.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

namespace {

// The history column each output continues: by name, else by position when the model predicts every
// feature; npos for an output the history does not hold.
size_t history_column(const tools::Table& history, const tools::Table& forecast, size_t c) {
    for (size_t i = 0; i < history.header.size(); ++i)
        if (c < forecast.header.size() && history.header[i] == forecast.header[c]) return i;
    return forecast.cols == history.cols ? c : std::string::npos;
}

std::string file_name(const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// The model as the plot names it: its stored name (convert --model-name), else its file name.
std::string plot_model_name(const tools::LoadedModel& m) {
    char name[format::kMaxModelNameBytes + 1];
    if (model_name(m.file, name, sizeof name) > 0) return name;
    return file_name(m.path);
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
}

// The x axis: the input's timestamps, continued by the forecast's, when it has them (and they are evenly
// spaced, so the forecast's are times too); the forecast starts at the last observed row.
tools::PlotAxis plot_axis(const tools::Table& history, const tools::Table& forecast, bool timed) {
    tools::PlotAxis axis;
    if (timed) {
        axis.labels = history.times;
        axis.labels.insert(axis.labels.end(), forecast.times.begin(), forecast.times.end());
        axis.caption = history.time_name.empty() ? "time" : history.time_name;
        axis.date_order = history.date_order;
    } else {
        axis.caption = "row of the window (the forecast continues it)";
    }
    axis.marker = static_cast<double>(history.rows - 1);
    axis.marker_label = "forecast starts";
    return axis;
}

void write_plot(const std::string& path, const tools::LoadedModel& m, const Args& args, const tools::Table& history,
                const tools::Table& forecast, bool timed, const tools::Table* truth) {
    const std::string model = plot_model_name(m);
    std::vector<tools::PlotPanel> panels;
    for (size_t c = 0; c < forecast.cols; ++c) {
        tools::PlotPanel p;
        p.title = c < forecast.header.size() ? forecast.header[c] : "output " + std::to_string(c);
        auto column = [](const tools::Table& t, size_t col, size_t rows) {
            std::vector<float> v;
            for (size_t r = 0; r < rows; ++r) v.push_back(t.at(r, col));
            return v;
        };
        const size_t h = history_column(history, forecast, c);
        // Forecast and truth start from the last observed point so the lines join the history.
        auto continued = [&](const tools::Table& t) {
            std::vector<float> v = column(t, c, t.rows);
            if (h != std::string::npos) v.insert(v.begin(), history.at(history.rows - 1, h));
            return v;
        };
        const size_t start = h != std::string::npos ? history.rows - 1 : history.rows;
        if (h != std::string::npos)
            p.series.push_back({"history (" + file_name(args.get("input")) + ")", "#1f77b4", false, 0,
                                column(history, h, history.rows)});
        if (truth)
            p.series.push_back(
                {"truth (" + file_name(args.get("truth")) + ")", "#2ca02c", true, start, continued(*truth)});
        p.series.push_back({"forecast by " + model, "#d62728", false, start, continued(forecast)});
        panels.push_back(p);
    }
    const std::string title = model + ": " + std::to_string(forecast.rows) + "-step forecast of " +
                              joined(forecast.header) + " from " + std::to_string(history.rows) + " rows";
    tools::write_svg(path, tools::render_svg(title, panels, plot_axis(history, forecast, timed)));
}

// The true values of the predicted columns: a CSV with the outputs' columns, picked by name when the model
// names its outputs (other columns, such as covariates and calendar columns, are left out), else by
// position: the outputs alone, or every feature of a model that predicts them all or names its outputs
// among them.
tools::Table read_truth(const Args& args, const ForecasterConfig& c, const std::vector<std::string>& features,
                        const std::vector<std::string>& outputs) {
    const std::string path = args.get("truth");
    tools::CsvOptions o = csv_options(args);
    if (o.columns.empty() && outputs.size() == c.n_outputs) o.features = outputs;
    tools::Table t = tools::read_csv(path, o);
    if (t.cols == c.n_outputs) return t;
    std::vector<size_t> picked;
    for (const std::string& name : outputs)
        for (size_t i = 0; i < features.size(); ++i)
            if (features[i] == name) picked.push_back(i);
    if (t.cols != c.n_features || (picked.size() != c.n_outputs && c.n_outputs != c.n_features))
        throw tools::ToolError(path + " has " + std::to_string(t.cols) + " column(s)" +
                               (t.times.empty() ? "" : " besides its time column") +
                               ": the truth of this forecast is " + "the model's " + std::to_string(c.n_outputs) +
                               " output(s)" + (outputs.empty() ? std::string() : " (" + joined(outputs) + ")"));
    if (picked.size() != c.n_outputs)
        for (size_t i = 0; i < c.n_outputs; ++i) picked.push_back(i);
    tools::Table only = t;
    only.cols = c.n_outputs;
    only.header = outputs;
    only.values.clear();
    for (size_t r = 0; r < t.rows; ++r)
        for (size_t i : picked) only.values.push_back(t.at(r, i));
    return only;
}

}  // namespace

int cmd_forecast(const Argv& argv) {
    const Args args(argv,
                    with_csv_options({"input", "horizon", "window", "output", "plot", "truth", "port", "future",
                                      "threads", "quantiles"}),
                    {"recompute"});
    args.expect_positionals(1, "one model (.axm)");
    if (is_chronos_bolt_model(args.positionals()[0])) return forecast_chronos_bolt(args);
    if (args.has("quantiles")) throw UsageError{"--quantiles is for models with quantile outputs (Chronos-Bolt)"};
    choose_threads(args);
    const auto m = tools::load_model(args.positionals()[0]);
    const ForecasterConfig& c = m->as<Forecaster>().config();
    const std::vector<std::string> features = tools::feature_names(m->file);
    const size_t horizon = args.get_size("horizon", tools::default_horizon(c), 1, kMaxSequenceLength);
    tools::check_horizon_fits(c, horizon, "--horizon " + std::to_string(horizon));
    // The encoder window; only its rows are read: a bad row above it does not stop the forecast.
    WindowChoice w = requested_window(args, c);
    tools::Table history = read_history(args, *m, features, w.window);
    const size_t window = settle_window(w, c, history.rows, args.get("input"));
    tools::keep_last_rows(history, window);  // the most recent rows are the encoder window
    tools::HostSession session(*m, choose_kernels(args), history.rows, horizon);
    tools::Table out;
    out.rows = horizon;
    out.cols = c.n_outputs;
    out.header = tools::output_header(m->file, feature_header(history, features), c.n_features, c.n_outputs);
    const bool timed = forecast_times(history, args.get("input"), out);
    const std::vector<float> future = read_future(args, *m, features, out, timed, horizon);
    const size_t future_rows = future.size() / c.n_features;
    out.values =
        args.has("recompute")
            ? session.forecast_recompute(history.values.data(), history.rows, horizon, future.data(), future_rows)
            : session.forecast(history.values.data(), history.rows, horizon, future.data(), future_rows);
    tools::AlignedTruth truth;
    if (args.has("truth")) {  // aligned before anything is written: a truth file that misses the forecast fails
        truth = tools::align_truth(out, timed, read_truth(args, c, features, out.header), args.get("truth"));
        if (truth.steps.size() < out.rows)
            std::fprintf(stderr, "note: %s holds %zu of the forecast's %zu steps; comparing those\n",
                         args.get("truth").c_str(), truth.steps.size(), out.rows);
    }
    const bool to_file = write_output(args, out);
    // Printed beside the forecast only when the forecast itself went to a file.
    if (args.has("truth") && to_file) std::fputs(tools::forecast_report(truth).c_str(), stdout);
    // The plot draws truth from the first step on, so only a truth that starts there and has no gaps.
    const bool plot_truth =
        args.has("truth") && truth.steps.front() == 0 && truth.steps.back() + 1 == truth.steps.size();
    if (args.has("plot"))
        write_plot(args.get("plot"), *m, args, history, out, timed, plot_truth ? &truth.truth : nullptr);
    note_unchecked_forecast(*m, horizon);
    return 0;
}

}  // namespace ax::cli
