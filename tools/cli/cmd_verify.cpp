// verify: how far a model's outputs are from a reference, for every family. Against another conversion
// (--against: a quantized model against its float32 original) on the same inputs, or against what PyTorch
// returned for them (--expected: the outputs a `convert --check-output` file holds).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/instance_norm.h"
#include "tools/cli/chronos_bolt_cli.h"
#include "tools/cli/chronos_bolt_loaded.h"
#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/cli/known_inputs.h"
#include "tools/cli/signatures.h"
#include "tools/cli/unchecked_notes.h"
#include "tools/convert/conversion_check.h"
#include "tools/family/family_descriptor.h"
#include "tools/host/column_names.h"
#include "tools/text/csv.h"
#include "tools/host/forecast_window.h"
#include "tools/host/host_session.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

namespace {

// Error of one output column over every compared value. Relative errors are L1/L-inf ratios against the
// reference (sum|a-b| / sum|b| and max|a-b| / max|b|), which stay meaningful where values cross zero.
struct ColumnError {
    double max_abs = 0, sum_abs = 0, sum_ref = 0, max_ref = 0;
    size_t count = 0;
    void add(double got, double ref) {
        const double e = std::fabs(got - ref);
        max_abs = std::fmax(max_abs, e);
        sum_abs += e;
        sum_ref += std::fabs(ref);
        max_ref = std::fmax(max_ref, std::fabs(ref));
        ++count;
    }
    double mean_abs() const { return count ? sum_abs / count : 0; }
    double mean_rel() const { return sum_ref > 0 ? sum_abs / sum_ref : 0; }
    double max_rel() const { return max_ref > 0 ? max_abs / max_ref : 0; }
};

// More columns than this (a seq2seq model's logits) are reported as one row over all of them.
constexpr size_t kMaxColumnRows = 16;

void print_errors(const char* what, std::vector<ColumnError> columns, const std::vector<std::string>& names) {
    if (columns.size() > kMaxColumnRows) {
        ColumnError all;
        const size_t per_column = columns[0].count;
        for (const ColumnError& c : columns) {
            all.max_abs = std::fmax(all.max_abs, c.max_abs);
            all.sum_abs += c.sum_abs;
            all.sum_ref += c.sum_ref;
            all.max_ref = std::fmax(all.max_ref, c.max_ref);
            all.count += c.count;
        }
        std::printf("%s (%zu values of each of %zu outputs)\n", what, per_column, columns.size());
        std::printf("  %-16s %12s %12s %12s %12s\n", "outputs", "max abs", "mean abs", "max rel", "mean rel");
        std::printf("  %-16s %12.4g %12.4g %12.4g %12.4g\n", ("all " + std::to_string(columns.size())).c_str(),
                    all.max_abs, all.mean_abs(), all.max_rel(), all.mean_rel());
        return;
    }
    std::printf("%s (%zu values per output)\n", what, columns.empty() ? 0 : columns[0].count);
    std::printf("  %-16s %12s %12s %12s %12s\n", "output", "max abs", "mean abs", "max rel", "mean rel");
    for (size_t c = 0; c < columns.size(); ++c) {
        const std::string name = c < names.size() ? names[c] : "output " + std::to_string(c);
        const ColumnError& e = columns[c];
        std::printf("  %-16s %12.4g %12.4g %12.4g %12.4g\n", name.c_str(), e.max_abs, e.mean_abs(), e.max_rel(),
                    e.mean_rel());
    }
}

// A forecaster against another conversion on a data CSV in raw units: teacher-forced passes and forecasts
// from every `stride` rows.
int verify_forecasts(const Args& args, const tools::LoadedModel* model) {
    const auto reference = tools::open_model(args.require("against"));
    tools::require_family(*reference, format::Family::forecaster);
    const ForecasterConfig& c = model->as<Forecaster>().config();
    const ForecasterConfig& rc = reference->as<Forecaster>().config();
    if (c.n_features != rc.n_features || c.n_outputs != rc.n_outputs)
        throw tools::ToolError("the two models take different inputs or give different outputs");
    const tools::Table data = read_history(args, *model, tools::feature_names(model->file), 0, "input", false);
    const size_t horizon = args.get_size("horizon", tools::default_horizon(c), 1, kMaxSequenceLength);
    if (data.rows < horizon + 2)
        throw tools::ToolError(args.get("input") + " has " + std::to_string(data.rows) + " rows: need more than the " +
                               "horizon (" + std::to_string(horizon) + ") plus 1");
    const size_t window =
        args.get_size("window", std::min(tools::default_window(c), data.rows - horizon), 1, data.rows - horizon);
    for (const ForecasterConfig* config : {&c, &rc}) {
        tools::check_window_fits(*config, window, "--window " + std::to_string(window));
        tools::check_horizon_fits(*config, horizon, "--horizon " + std::to_string(horizon));
    }
    if (args.has("window")) {
        const std::string note = tools::window_note(c, window, "--window " + std::to_string(window));
        if (!note.empty()) std::fprintf(stderr, "note: %s\n", note.c_str());
    }
    const std::string past = tools::horizon_note(c, horizon, "--horizon " + std::to_string(horizon));
    if (!past.empty()) std::fprintf(stderr, "note: %s\n", past.c_str());
    const size_t stride = args.get_size("stride", horizon, 1, kMaxSequenceLength);

    const Kernels& k = choose_kernels(args);
    tools::HostSession a(*model, k, window, horizon), b(*reference, k, window, horizon);
    std::vector<ColumnError> run_err(c.n_outputs), fc_err(c.n_outputs);
    // Outputs fed back must be inputs; inputs known ahead come from the rows after the window.
    const bool can_forecast = c.one_pass() || c.n_outputs <= c.n_features;
    const Forecaster& f = model->as<Forecaster>();
    std::vector<float> tgt(horizon * c.decoder_features);
    for (size_t start = 0; start + window + horizon <= data.rows + 1 && start + window + horizon - 1 <= data.rows;
         start += stride) {
        const float* src = data.values.data() + start * data.cols;
        // Teacher forcing as in training: the decoder sees the last observed row, then the true rows (the
        // columns it reads).
        for (size_t r = 0; r < horizon; ++r)
            for (size_t j = 0; j < c.decoder_features; ++j)
                tgt[r * c.decoder_features + j] = src[(window - 1 + r) * data.cols + f.decoder_column(j)];
        const std::vector<float> ra = a.run(src, window, tgt.data(), horizon, InputSpace::raw);
        const std::vector<float> rb = b.run(src, window, tgt.data(), horizon, InputSpace::raw);
        for (size_t i = 0; i < ra.size(); ++i) run_err[i % c.n_outputs].add(ra[i], rb[i]);
        if (!can_forecast) continue;
        const float* future = src + window * data.cols;
        const size_t future_rows = data.rows - start - window;
        const std::vector<float> fa = a.forecast(src, window, horizon, future, future_rows);
        const std::vector<float> fb = b.forecast(src, window, horizon, future, future_rows);
        for (size_t i = 0; i < fa.size(); ++i) fc_err[i % c.n_outputs].add(fa[i], fb[i]);
    }
    std::printf("verify %s against %s: window %zu, horizon %zu, stride %zu, port %s\n", model->path.c_str(),
                reference->path.c_str(), window, horizon, stride, k.name);
    // The stored output names, else the input's column names (outputs in the features' places).
    std::vector<std::string> names = tools::output_names(model->file);
    if (names.empty()) names = data.header;
    print_errors("teacher-forced outputs", run_err, names);
    if (can_forecast) print_errors("forecasts", fc_err, names);
    return 0;
}

// The output columns' names: the model's own (config "outputs"), else the expected CSV's header, the model's
// feature names where its outputs are its features, else what they are.
std::vector<std::string> output_names(const tools::LoadedModel& m, const tools::Table& expected, size_t cols) {
    std::vector<std::string> stored = tools::output_names(m.file);
    if (stored.size() == cols) return stored;
    if (expected.header.size() == cols) return expected.header;
    const std::vector<std::string> features = tools::feature_names(m.file);
    if (features.size() == cols) return features;
    return numbered_names(tools::family_descriptor(m.family).output_prefix, cols);
}

// "int8", "int4" or "f16" when the model's weights are quantized (any tensor stored so), else null.
const char* quantized_weights(const tools::LoadedModel& m) {
    const char* kind = nullptr;
    for (uint32_t i = 0; i < m.file.tensor_count(); ++i) {
        const format::DType d = m.file.tensor(i).dtype;
        if (d == format::DType::i8) return "int8";
        if (d == format::DType::i4) return "int4";
        if (d == format::DType::f16) kind = "f16";
    }
    return kind;
}

// verify --expected's exit code: a float32 model beyond the tolerance is a wrong conversion (a config that does not
// describe the module), which a script must not take for a pass; a quantized model's difference is reported only.
int expected_verdict(const tools::CheckResult& r, bool quantized, const std::string& model,
                     const std::string& expected) {
    if (r.passed || quantized) return 0;
    std::fprintf(
        stderr,
        "auspex verify: error: %s does not reproduce %s: its float32 outputs differ beyond the tolerance, so "
        "the conversion computes another model (check the config against the module, docs/importing-models.md)\n",
        model.c_str(), expected.c_str());
    return 1;
}

void add_errors(std::vector<ColumnError>& errors, const tools::Table& got, const std::vector<float>& ref) {
    for (size_t i = 0; i < got.values.size() && i < ref.size(); ++i) errors[i % got.cols].add(got.values[i], ref[i]);
}

// Any family on one input (the --check-* layout: token lines, a sequence CSV, or a forecaster's src/tgt
// pair in model units) against another conversion or against PyTorch's outputs.
int verify_pair(const Args& args, const tools::LoadedModel& model) {
    for (const char* option : {"window", "horizon", "stride", "delimiter", "columns", "fill", "time-format"})
        if (args.has(option))
            throw UsageError{std::string("--") + option + " is for verify --against of a forecaster (a data CSV)"};
    const tools::FamilyDescriptor& family = tools::family_descriptor(model.family);
    const bool two_inputs = tools::takes_check_target(model);
    if (two_inputs && !args.has("target"))
        throw UsageError{std::string("a ") + tools::family_name(model.family) +
                         " takes --target too: " + family.check_target};
    if (!two_inputs && args.has("target"))
        throw UsageError{std::string("--target does not apply to a ") + tools::family_name(model.family) +
                         " model (its forward takes one input)"};
    tools::CheckFiles files{args.require("input"), args.get("target"), args.get("expected")};
    files.input_option = "--input";
    files.target_option = "--target";
    tools::CheckPair pair = tools::read_check_inputs(files, model.family);
    if (args.has("expected")) {
        pair.want = tools::read_csv(args.get("expected"));
        pair.want_name = args.get("expected");
    }
    const Kernels& k = choose_kernels(args);
    const tools::Table got = tools::run_check_inputs(model, pair, k);
    const std::vector<std::string> names = output_names(model, pair.want, got.cols);
    std::vector<ColumnError> errors(got.cols);
    if (args.has("expected")) {
        add_errors(errors, got, pair.want.values);
        std::printf("verify %s against %s (PyTorch's outputs): %zu x %zu outputs, port %s\n", model.path.c_str(),
                    pair.want_name.c_str(), got.rows, got.cols, k.name);
        print_errors("outputs", errors, names);
        const tools::CheckResult r = tools::compare_outputs(got.values, pair.want);
        std::printf("%s\n", tools::describe_difference(r).c_str());
        const char* q = quantized_weights(model);
        if (q)
            std::printf(
                "note: the tolerance is float32's, the bound for a faithful float32 conversion; this model's "
                "weights are %s, so its difference from PyTorch is mostly quantization, not a wrong config. "
                "verify the float32 conversion with --expected to prove the config, and this model --against it "
                "to measure what quantization costs\n",
                q);
        return expected_verdict(r, q != nullptr, model.path, pair.want_name);
    }
    const auto reference = tools::open_model(args.get("against"));
    tools::require_family(*reference, model.family);
    const tools::Table ref = tools::run_check_inputs(*reference, pair, k);
    if (ref.cols != got.cols)
        throw tools::ToolError("the two models give different outputs (" + std::to_string(got.cols) + " and " +
                               std::to_string(ref.cols) + " per row)");
    add_errors(errors, got, ref.values);
    std::printf("verify %s against %s: %zu x %zu outputs, port %s\n", model.path.c_str(), reference->path.c_str(),
                got.rows, got.cols, k.name);
    print_errors(family.forward_label, errors, names);
    if (family.compare_line) std::printf("%s\n", family.compare_line(model, *reference, pair, k).c_str());
    if (family.second_outputs) {
        const tools::Table second = family.second_outputs(model, pair, k);
        std::vector<ColumnError> second_errors(second.cols);
        add_errors(second_errors, second, family.second_outputs(*reference, pair, k).values);
        print_errors(family.second_label, second_errors, names);
    }
    return 0;
}

// Chronos-Bolt: its quantile forecasts of one series against another conversion's (--against) or against a
// reference's quantile CSV (--expected, the layout `forecast` writes: one qLEVEL column per level).
int verify_chronos_bolt(const Args& args) {
    if (args.has("target"))
        throw UsageError{"--target does not apply to a Chronos-Bolt model: it reads one series (--input)"};
    const LoadedBolt model(args.positionals()[0]);
    const ChronosBoltShape& shape = model.weights().shape;
    const float* levels = model.weights().quantile_levels;
    const size_t nq = shape.quantiles;
    if (!args.has("input"))
        throw UsageError{"verify of a Chronos-Bolt model needs --input series.csv (one column: the series)"};
    tools::CsvOptions o = csv_options(args);
    o.missing_as_nan = true;  // read as missing, as forecast reads them
    const tools::Table series = tools::read_csv(args.get("input"), o);
    if (series.cols != 1)
        throw tools::ToolError(args.get("input") + " has " + std::to_string(series.cols) +
                               " value columns: Chronos-Bolt forecasts one series (pick it with --columns NAME)");
    const Kernels& k = choose_kernels(args);
    const std::string& path = args.positionals()[0];

    if (args.has("expected")) {
        for (const char* option : {"window", "stride"})
            if (args.has(option))
                throw UsageError{std::string("--") + option +
                                 " is for verify --against: with --expected the whole --input is the context, as "
                                 "forecast reads it"};
        const tools::Table want = tools::read_csv(args.get("expected"));
        if (want.header.size() != want.cols || want.rows == 0)
            throw tools::ToolError(args.get("expected") +
                                   ": needs a header of quantile columns (q0.1,...,q0.9, as forecast writes) and "
                                   "one row per step");
        std::vector<size_t> rows;  // the model's level of each column
        for (const std::string& name : want.header) {
            size_t found = nq;
            for (size_t q = 0; q < nq; ++q)
                if (level_name(levels[q]) == name) found = q;
            if (found == nq) {
                std::string have;
                for (size_t q = 0; q < nq; ++q) have += (q ? "," : "") + level_name(levels[q]);
                throw tools::ToolError(args.get("expected") + ": column \"" + name +
                                       "\" is none of the model's levels (" + have + ")");
            }
            rows.push_back(found);
        }
        const size_t horizon = want.rows;
        if (args.has("horizon") && args.get_size("horizon", horizon, 1, 1u << 16) != horizon)
            throw UsageError{"--horizon: " + args.get("expected") + " holds " + std::to_string(horizon) +
                             " steps, the horizon compared (leave --horizon out)"};
        const std::vector<float> q = model.forecast(k, series.values, horizon);
        std::vector<float> got;
        std::vector<ColumnError> errors(want.cols);
        for (size_t t = 0; t < horizon; ++t)
            for (size_t c = 0; c < want.cols; ++c) {
                got.push_back(q[rows[c] * horizon + t]);
                errors[c].add(got.back(), want.at(t, c));
            }
        std::printf(
            "verify %s against %s (the reference's quantiles): %zu steps x %zu levels from %zu values, port %s\n",
            path.c_str(), args.get("expected").c_str(), horizon, want.cols, std::min(series.rows, shape.context_length),
            k.name);
        print_errors("quantile forecast", errors, want.header);
        const tools::CheckResult r = tools::compare_outputs(got, want);
        std::printf("%s\n", tools::describe_difference(r).c_str());
        bool quantized = false;
        for (uint32_t i = 0; model.is_file() && i < model.file().tensor_count(); ++i)
            quantized = quantized || model.file().tensor(i).dtype != format::DType::f32;
        if (quantized)
            std::printf(
                "note: the tolerance is float32's; this model's weights are quantized, so its difference is mostly "
                "quantization: verify the float32 conversion with --expected, and this model --against it\n");
        return expected_verdict(r, quantized, path, args.get("expected"));
    }

    const std::string against = args.get("against");
    if (!is_chronos_bolt_model(against))
        throw tools::ToolError(against + " is not a Chronos-Bolt model: verify compares " + path +
                               " with another conversion of the same model");
    const LoadedBolt reference(against);
    if (reference.weights().shape.quantiles != nq)
        throw tools::ToolError("the two models forecast different quantile levels");
    for (size_t q = 0; q < nq; ++q)
        if (reference.weights().quantile_levels[q] != levels[q])
            throw tools::ToolError("the two models forecast different quantile levels");
    const size_t horizon = args.get_size("horizon", shape.prediction_length, 1, 1u << 16);
    // As for other forecasters: contexts of `window` values every `stride` values, the values after each the
    // truth both forecasts are scored against (where the series holds them).
    const size_t n = series.rows;
    const size_t fit = n > horizon ? n - horizon : n;
    const size_t window = args.get_size("window", std::min(shape.context_length, fit), 1, n);
    const size_t stride = args.get_size("stride", horizon, 1, kMaxSequenceLength);
    size_t mid = 0;  // the median, or the level nearest it
    for (size_t q = 0; q < nq; ++q)
        if (std::fabs(levels[q] - 0.5f) < std::fabs(levels[mid] - 0.5f)) mid = q;
    std::vector<ColumnError> errors(nq);
    double median_gap = 0.0, median_gap_std = 0.0, loss_a = 0.0, loss_b = 0.0;
    size_t forecasts = 0, scored = 0;
    for (size_t start = 0; start + window <= n; start += stride) {
        const std::vector<float> context(series.values.begin() + static_cast<std::ptrdiff_t>(start),
                                         series.values.begin() + static_cast<std::ptrdiff_t>(start + window));
        const std::vector<float> a = model.forecast(k, context, horizon);
        const std::vector<float> b = reference.forecast(k, context, horizon);
        const double sd = instance_scale(context.data(), context.size(), 1e-5f).scale;
        for (size_t q = 0; q < nq; ++q)
            for (size_t t = 0; t < horizon; ++t) errors[q].add(a[q * horizon + t], b[q * horizon + t]);
        for (size_t t = 0; t < horizon; ++t) {
            const double gap = std::fabs(static_cast<double>(a[mid * horizon + t]) - b[mid * horizon + t]);
            median_gap += gap;
            median_gap_std += gap / sd;
            if (start + window + t >= n || std::isnan(series.values[start + window + t])) continue;
            const double y = series.values[start + window + t];
            for (size_t q = 0; q < nq; ++q) {
                const double ya = a[q * horizon + t], yb = b[q * horizon + t];
                loss_a += 2.0 * std::fabs((y - ya) * ((y <= ya ? 1.0 : 0.0) - levels[q]));
                loss_b += 2.0 * std::fabs((y - yb) * ((y <= yb ? 1.0 : 0.0) - levels[q]));
            }
            ++scored;
        }
        ++forecasts;
    }
    std::vector<std::string> names;
    for (size_t q = 0; q < nq; ++q) names.push_back(level_name(levels[q]));
    std::printf("verify %s against %s: %zu forecasts of %zu steps from %zu values every %zu, port %s\n", path.c_str(),
                against.c_str(), forecasts, horizon, window, stride, k.name);
    print_errors("quantile forecasts", errors, names);
    const double steps = static_cast<double>(forecasts * horizon);
    std::printf("median (%s): mean |difference| %.4g, %.4g x each context's standard deviation\n", names[mid].c_str(),
                median_gap / steps, median_gap_std / steps);
    if (scored == 0) {
        std::printf(
            "quantile loss: not scored, %s holds no values after the contexts (a series longer than --window + "
            "--horizon scores both models against what followed)\n",
            args.get("input").c_str());
        return 0;
    }
    const double per = static_cast<double>(scored * nq);
    std::printf(
        "quantile loss against the %zu values that followed (mean over them and the %zu levels of "
        "2|(y - q)(1[y <= q] - level)|): %s %.6g, %s %.6g, difference %+.3g\n",
        scored, nq, path.c_str(), loss_a / per, against.c_str(), loss_b / per, (loss_a - loss_b) / per);
    return 0;
}

}  // namespace

int cmd_verify(const Argv& argv) {
    const Args args(argv,
                    with_csv_options({"against", "expected", "input", "target", "window", "horizon", "stride", "port",
                                      "threads", "public"}),
                    {});
    args.expect_positionals(1, "the model to check (.axm)");
    if (args.has("public")) return verify_signature(args, args.positionals()[0]);
    choose_threads(args);
    if (args.has("against") == args.has("expected"))
        throw UsageError{
            "give one reference: --against REFERENCE.axm (another conversion of the model) or "
            "--expected OUTPUTS.csv (what PyTorch returned for --input)"};
    if (is_chronos_bolt_model(args.positionals()[0])) return verify_chronos_bolt(args);
    const auto model = tools::open_model(args.positionals()[0]);
    const int status = model->family == format::Family::forecaster && args.has("against") && !args.has("target")
                           ? verify_forecasts(args, model.get())
                           : verify_pair(args, *model);
    warn_if_unproven(*model);
    return status;
}

}  // namespace ax::cli
