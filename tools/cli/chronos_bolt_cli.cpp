#include "tools/cli/chronos_bolt_cli.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "models/forecaster/chronos_bolt_file.h"
#include "runtime/model_file.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/cli/chronos_bolt_loaded.h"
#include "tools/cli/data_csv.h"
#include "tools/cli/fit_report.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"
#include "tools/convert/chronos_bolt_convert.h"
#include "tools/convert/quantize.h"
#include "tools/host/chronos_bolt_host.h"
#include "tools/host/cpu_description.h"
#include "tools/host/median.h"
#include "tools/import/chronos_bolt_import.h"
#include "tools/host/forecast_report.h"
#include "tools/text/svg_plot.h"

namespace ax::cli {
namespace {

// The rows of --quantiles among the model's levels (all of them without the option).
std::vector<size_t> chosen_levels(const Args& args, const float* levels, size_t n) {
    std::vector<size_t> rows;
    if (!args.has("quantiles")) {
        for (size_t i = 0; i < n; ++i) rows.push_back(i);
        return rows;
    }
    std::string have;
    for (size_t i = 0; i < n; ++i) have += (i ? "," : "") + level_name(levels[i]).substr(1);
    const std::string list = args.get("quantiles");
    size_t start = 0;
    for (;;) {
        const size_t comma = list.find(',', start);
        const std::string item = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char* end = nullptr;
        const float q = std::strtof(item.c_str(), &end);
        if (item.empty() || end == item.c_str() || *end != '\0')
            throw UsageError{"--quantiles takes levels separated by commas, e.g. 0.1,0.5,0.9; got \"" + list + "\""};
        size_t found = n;
        for (size_t i = 0; i < n; ++i)
            if (std::fabs(levels[i] - q) < 1e-6f) found = i;
        if (found == n)
            throw tools::ToolError("--quantiles " + item + ": the model forecasts the levels " + have +
                                   " only (levels between them are not interpolated)");
        rows.push_back(found);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return rows;
}

// What the file's weight matrices are stored as, its narrowest storage named: "int4", "int8", "f16" or "float32".
const char* weight_storage(const ModelFile& file) {
    bool i8 = false, f16 = false;
    for (uint32_t i = 0; i < file.tensor_count(); ++i) {
        const format::DType d = file.tensor(i).dtype;
        if (d == format::DType::i4) return "int4";
        i8 = i8 || d == format::DType::i8;
        f16 = f16 || d == format::DType::f16;
    }
    return i8 ? "int8" : f16 ? "f16" : "float32";
}

// History, the median and the band between the lowest and highest levels asked for, and the truth.
void write_band_plot(const Args& args, const tools::Table& history, const tools::Table& out, size_t mid, bool timed,
                     const tools::Table& truth, const std::vector<size_t>& truth_at) {
    const size_t start = history.rows - 1;  // the forecast's lines start from the last observed value
    tools::PlotPanel p;
    p.title = history.header.empty() ? "series" : history.header[0];
    p.series.push_back({"history", "#1f77b4", false, 0, history.values});
    const auto column = [&](size_t c) {
        std::vector<float> v{history.values.back()};
        for (size_t t = 0; t < out.rows; ++t) v.push_back(out.at(t, c));
        return v;
    };
    if (out.cols > 1) {
        p.series.push_back({out.header.front() + " (band)", "#ff7f0e", true, start, column(0)});
        p.series.push_back({out.header.back() + " (band)", "#ff7f0e", true, start, column(out.cols - 1)});
    }
    p.series.push_back({out.header[mid] + " (median)", "#d62728", false, start, column(mid)});
    if (!truth_at.empty() && truth_at.front() == 0 && truth_at.back() + 1 == truth_at.size()) {
        std::vector<float> v{history.values.back()};
        for (size_t i = 0; i < truth.rows; ++i) v.push_back(truth.at(i, 0));
        p.series.push_back({"truth", "#2ca02c", true, start, v});
    }
    tools::PlotAxis axis;
    if (timed) {
        axis.labels = history.times;
        axis.labels.insert(axis.labels.end(), out.times.begin(), out.times.end());
        axis.caption = history.time_name.empty() ? "time" : history.time_name;
        axis.date_order = history.date_order;
    }
    axis.marker = static_cast<double>(start);
    axis.marker_label = "forecast starts";
    tools::write_svg(args.get("plot"),
                     tools::render_svg("Chronos-Bolt: " + std::to_string(out.rows) + "-step quantile forecast from " +
                                           std::to_string(history.rows) + " values",
                                       {p}, axis));
}

}  // namespace

bool is_chronos_bolt_model(const std::string& path) {
    if (tools::is_chronos_bolt_directory(path)) return true;
    std::vector<uint8_t> bytes;
    try {
        bytes = tools::read_file_bytes(path);
    } catch (const tools::ToolError&) {
        return false;  // the caller's own path reports it
    }
    const tools::AlignedBuffer a(bytes);
    ModelFile f;
    return ModelFile::open(a.data(), a.size(), Checksum::skip, &f) && is_chronos_bolt(f);
}

int convert_chronos_bolt(const Args& args) {
    for (const char* other :
         {"config", "map", "calib", "calib-window", "calib-horizon", "state-dict-key", "check-input", "check-target",
          "check-output", "find-config", "kv-cache", "integer-only", "model-name", "model-version"})
        if (args.has(other))
            throw UsageError{std::string("--") + other +
                             " does not apply to a Chronos-Bolt directory: its config.json states the model, and "
                             "it converts as it is (convert DIR -o model.axm)"};
    const format::DType dtype = tools::parse_dtype(args.get("dtype", "f32"));
    const std::string output = args.require("output");
    std::vector<std::string> notes;
    const std::vector<uint8_t> bytes = tools::convert_chronos_bolt(args.positionals()[0], dtype, &notes);
    tools::write_file_atomic(output, bytes.data(), bytes.size());
    std::printf("wrote %s: %zu bytes, weights %s\n", output.c_str(), bytes.size(), tools::dtype_name(dtype));
    for (const std::string& n : notes) std::printf("note: %s\n", n.c_str());
    return 0;
}

int inspect_chronos_bolt(const Args& args) {
    if (args.has("window"))
        throw UsageError{
            "--window does not apply to a Chronos-Bolt model: it reads any context, cut to its own length"};
    MemoryBudget budget;
    const bool fit = read_memory_budget(args, &budget);  // before opening, so a malformed size fails first
    const std::string path = args.positionals()[0];
    const LoadedBolt loaded(path);
    if (fit && !loaded.is_file())  // refused before anything is printed
        throw UsageError{
            "--board, --flash and --ram check a converted model: convert the directory first "
            "(auspex convert DIR -o model.axm --dtype int8)"};
    const ChronosBoltWeights& w = loaded.weights();
    const ChronosBoltShape& s = w.shape;
    const size_t horizon = args.get_size("horizon", s.prediction_length, 1, 1u << 16);
    std::printf("model:    %s (Chronos-Bolt%s)\n", path.c_str(), loaded.is_file() ? "" : ", published directory");
    if (loaded.is_file()) {
        size_t i4 = 0, i8 = 0, f16 = 0, f32 = 0;
        for (uint32_t i = 0; i < loaded.file().tensor_count(); ++i) {
            const TensorView t = loaded.file().tensor(i);
            (t.dtype == format::DType::i4    ? i4
             : t.dtype == format::DType::i8  ? i8
             : t.dtype == format::DType::f16 ? f16
                                             : f32) += t.numel;
        }
        const std::string four = i4 ? std::to_string(i4) + " int4 (scales per 32), " : std::string();
        const std::string half = f16 ? std::to_string(f16) + " f16, " : std::string();
        std::printf("file:     %llu bytes; %s%s%zu int8 and %zu float32 values\n",
                    static_cast<unsigned long long>(loaded.file().file_size()), four.c_str(), half.c_str(), i8, f32);
    }
    std::printf(
        "t5:       d_model %zu, %zu heads of %zu, d_ff %zu (%s), %zu+%zu layers, %zu relative buckets up to %zu\n",
        s.stack.d_model, s.stack.nhead, s.stack.d_kv, s.stack.d_ff, format::enum_name(s.stack.activation),
        s.encoder_layers, s.decoder_layers, s.stack.num_buckets, s.stack.max_distance);
    if (loaded.is_file()) {
        // The file's description: the forecaster's blocks and their options.
        const ForecasterConfig& c = loaded.config();
        std::printf(
            "blocks:   normalization %s, input_embedding %s, positional_encoding %s, layer_kind %s%s, "
            "decoding %s, head %s\n",
            format::enum_name(c.normalizer.kind), format::enum_name(c.input.kind),
            format::enum_name(c.positions.encoder), format::enum_name(c.stacks.kind),
            c.stacks.gated ? " (gated feed-forward)" : "", format::enum_name(c.decoding.mode),
            format::enum_name(c.head.kind));
    }
    std::string levels;
    for (size_t i = 0; i < s.quantiles; ++i) levels += (i ? "," : "") + level_name(w.quantile_levels[i]).substr(1);
    std::printf("forecast: the last %zu values in patches of %zu%s; %zu steps per call, quantiles %s\n",
                s.context_length, s.patch_size, s.reg_token ? " and a [REG] token" : "", s.prediction_length,
                levels.c_str());
    const size_t work = loaded.arena_bytes(s.context_length, horizon);
    std::printf("memory:   %zu bytes of working memory for a %zu-step forecast from %zu values%s\n", work, horizon,
                s.context_length, loaded.is_file() ? " (the session's arena, planned by its blocks)" : "");
    if (fit)
        print_chronos_bolt_fit(budget, loaded.file().file_size(), work,
                               "context " + std::to_string(s.context_length) + ", horizon " + std::to_string(horizon));
    return 0;
}

int bench_chronos_bolt(const Args& args) {
    for (const char* other : {"window", "threads", "stages"})
        if (args.has(other))
            throw UsageError{std::string("--") + other +
                             " is not available for a Chronos-Bolt model: bench times its forecast from a context of "
                             "the model's own length on one thread (--horizon, --runs, --port, --json apply)"};
    const std::string path = args.positionals()[0];
    const LoadedBolt loaded(path);
    const ChronosBoltWeights& w = loaded.weights();
    const ChronosBoltShape& s = w.shape;
    const size_t horizon = args.get_size("horizon", s.prediction_length, 1, 1u << 16);
    const size_t runs = args.get_size("runs", 20, 1, 100000);
    const Kernels& k = choose_kernels(args);
    // A context of the model's own length: a daily cycle of 24 steps with a trend (latency does not depend on
    // the values, only on the length, which is cut to the model's anyway).
    std::vector<float> context(s.context_length);
    for (size_t t = 0; t < context.size(); ++t)
        context[t] =
            50.0f + 8.0f * std::sin(6.2831853f * static_cast<float>(t) / 24.0f) + 0.02f * static_cast<float>(t);
    std::vector<float> work(chronos_bolt_forecast_floats(s, horizon));
    std::vector<float> out(s.quantiles * horizon);
    const auto run = [&] {
        chronos_bolt_forecast(k, w, context.data(), context.size(), horizon, out.data(), work.data());
    };
    run();  // warm-up: caches, the pages of the working memory
    std::vector<double> times;
    for (size_t i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    const double ms = tools::median(times);
    const char* weights = loaded.is_file() ? weight_storage(loaded.file()) : "float32";
    const unsigned long long model_bytes = loaded.is_file() ? loaded.file().file_size() : 0;
    const size_t work_bytes = work.size() * sizeof(float);
    const std::string cpu = tools::cpu_description();
    if (args.has("json")) {
        std::string cpu_json;
        for (char c : cpu) cpu_json += c == '"' || c == '\\' ? std::string("\\") + c : std::string(1, c);
        std::printf(
            "{\"model\": \"%s\", \"family\": \"chronos_bolt\", \"weights\": \"%s\", \"port\": \"%s\", "
            "\"cpu\": \"%s\", \"context\": %zu, \"horizon\": %zu, \"quantiles\": %zu, \"runs\": %zu, "
            "\"forecast_ms\": %.4f, \"model_bytes\": %llu, \"work_bytes\": %zu}\n",
            path.c_str(), weights, k.name, cpu_json.c_str(), context.size(), horizon, s.quantiles, runs, ms,
            model_bytes, work_bytes);
        return 0;
    }
    std::printf("model %s (Chronos-Bolt, %s weights), port %s, context %zu, horizon %zu, median of %zu runs\n",
                path.c_str(), weights, k.name, context.size(), horizon, runs);
    std::printf("  cpu: %s\n", cpu.c_str());
    std::printf("  forecast (%zu quantiles x %zu steps, one thread): %9.3f ms\n", s.quantiles, horizon, ms);
    std::printf("  model bytes: %llu, working memory bytes: %zu\n", model_bytes, work_bytes);
    return 0;
}

int forecast_chronos_bolt(const Args& args) {
    const std::string path = args.positionals()[0];
    for (const char* other : {"window", "future", "recompute"})
        if (args.has(other))
            throw UsageError{std::string("--") + other + " is not available for a Chronos-Bolt model yet"};
    const LoadedBolt loaded(path);
    const ChronosBoltWeights* weights = &loaded.weights();
    const ChronosBoltShape& shape = weights->shape;
    const size_t horizon = args.get_size("horizon", shape.prediction_length, 1, 1u << 16);
    if (!args.has("input")) throw UsageError{"forecast needs --input series.csv (one column: the context)"};
    tools::CsvOptions o = csv_options(args);
    o.missing_as_nan = true;
    tools::Table history = tools::read_csv(args.get("input"), o);
    if (history.cols != 1)
        throw tools::ToolError(args.get("input") + " has " + std::to_string(history.cols) +
                               " value columns: Chronos-Bolt forecasts one series (pick it with --columns NAME)");
    if (horizon > shape.prediction_length)
        std::fprintf(stderr,
                     "note: --horizon %zu is past the model's %zu steps per call: the later steps come from the "
                     "quantile paths of its own forecast, as the authors' pipeline extends it (quality may degrade)\n",
                     horizon, shape.prediction_length);
    const std::vector<size_t> rows = chosen_levels(args, weights->quantile_levels, shape.quantiles);
    const std::vector<float> q = loaded.forecast(choose_kernels(args), history.values, horizon);
    tools::Table out;
    out.rows = horizon;
    out.cols = rows.size();
    for (size_t r : rows) out.header.push_back(level_name(weights->quantile_levels[r]));
    forecast_times(history, args.get("input"), out);
    for (size_t t = 0; t < horizon; ++t)
        for (size_t r : rows) out.values.push_back(q[r * horizon + t]);
    const bool timed = !out.times.empty();
    // The median (or the level nearest it) is what --truth scores and the plot's line.
    size_t mid = 0;
    for (size_t i = 0; i < rows.size(); ++i)
        if (std::fabs(weights->quantile_levels[rows[i]] - 0.5f) < std::fabs(weights->quantile_levels[rows[mid]] - 0.5f))
            mid = i;
    tools::Table median = out;
    median.cols = 1;
    median.header = {out.header[mid]};
    median.values.clear();
    for (size_t t = 0; t < horizon; ++t) median.values.push_back(out.at(t, mid));
    std::string report;
    tools::Table truth_steps;
    std::vector<size_t> truth_at;
    if (args.has("truth")) {  // read and aligned before anything is written
        tools::CsvOptions to = csv_options(args);
        tools::Table truth = tools::read_csv(args.get("truth"), to);
        if (truth.cols != 1)
            throw tools::ToolError(args.get("truth") + " has " + std::to_string(truth.cols) +
                                   " value columns: the truth of this forecast is one series (pick it with --columns)");
        truth.header = median.header;
        const tools::AlignedTruth a = tools::align_truth(median, timed, truth, args.get("truth"));
        double abs_sum = 0.0, loss = 0.0;
        for (size_t i = 0; i < a.steps.size(); ++i) {
            const size_t t = a.steps[i];
            const double y = a.truth.at(i, 0);
            abs_sum += std::fabs(y - out.at(t, mid));
            for (size_t j = 0; j < rows.size(); ++j) {
                const double q = out.at(t, j), level = weights->quantile_levels[rows[j]];
                loss += 2.0 * std::fabs((y - q) * ((y <= q ? 1.0 : 0.0) - level));
            }
        }
        const double n = static_cast<double>(a.steps.size());
        char text[256];
        std::snprintf(text, sizeof text,
                      "truth: %zu of %zu steps; %s mean absolute error %.6g; quantile loss %.6g (mean over steps and "
                      "the %zu levels of 2|(y - q)(1[y <= q] - level)|)\n",
                      a.steps.size(), horizon, median.header[0].c_str(), abs_sum / n, loss / (n * rows.size()),
                      rows.size());
        report = text;
        truth_steps = a.truth;
        truth_at = a.steps;
    }
    const bool to_file = write_output(args, out);
    if (!report.empty()) std::fputs(report.c_str(), to_file ? stdout : stderr);
    if (args.has("plot")) write_band_plot(args, history, out, mid, timed, truth_steps, truth_at);
    return 0;
}

}  // namespace ax::cli
