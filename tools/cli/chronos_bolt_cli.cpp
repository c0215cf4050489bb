#include "tools/cli/chronos_bolt_cli.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "models/forecaster/chronos_bolt_file.h"
#include "runtime/model_file.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/cli/data_csv.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"
#include "tools/convert/chronos_bolt_convert.h"
#include "tools/convert/quantize.h"
#include "tools/host/chronos_bolt_host.h"
#include "tools/import/chronos_bolt_import.h"

namespace ax::cli {
namespace {

// "q0.1": a level as the header names it (shortest form that reads back as the same float).
std::string level_name(float q) {
    char text[32];
    for (int digits = 1; digits <= 9; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(q));
        if (std::strtof(text, nullptr) == q) break;
    }
    return std::string("q") + text;
}

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

int forecast_chronos_bolt(const Args& args) {
    const std::string path = args.positionals()[0];
    for (const char* other : {"window", "future", "plot", "truth", "recompute"})
        if (args.has(other))
            throw UsageError{std::string("--") + other + " is not available for a Chronos-Bolt model yet"};
    // The weights: a converted file, or the published directory read directly.
    std::unique_ptr<tools::ChronosBoltHost> directory;
    tools::AlignedBuffer file_bytes;
    ModelFile file;
    ChronosBoltModel opened;
    const ChronosBoltWeights* weights = nullptr;
    if (tools::is_chronos_bolt_directory(path)) {
        directory = std::make_unique<tools::ChronosBoltHost>(tools::read_chronos_bolt(path));
        weights = &directory->weights();
    } else {
        file_bytes = tools::AlignedBuffer(tools::read_file_bytes(path));
        Status s = ModelFile::open(file_bytes.data(), file_bytes.size(), Checksum::verify, &file);
        if (s) s = chronos_bolt_open(file, &opened);
        if (!s) throw tools::ToolError(path + ": " + s.message());
        weights = &opened.weights;
    }
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
    const std::vector<float> q =
        tools::chronos_bolt_forecast_host(choose_kernels(args), *weights, history.values, horizon);
    tools::Table out;
    out.rows = horizon;
    out.cols = rows.size();
    for (size_t r : rows) out.header.push_back(level_name(weights->quantile_levels[r]));
    forecast_times(history, args.get("input"), out);
    for (size_t t = 0; t < horizon; ++t)
        for (size_t r : rows) out.values.push_back(q[r * horizon + t]);
    write_output(args, out);
    return 0;
}

}  // namespace ax::cli
