// verify: how far a model's outputs are from a reference, for every family. Against another conversion
// (--against: a quantized model against its float32 original) on the same inputs, or against what PyTorch
// returned for them (--expected: the outputs a `convert --check-output` file holds).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

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
        if (const char* q = quantized_weights(model))
            std::printf(
                "note: the tolerance is float32's, the bound for a faithful float32 conversion; this model's "
                "weights are %s, so its difference from PyTorch is mostly quantization, not a wrong config. "
                "verify the float32 conversion with --expected to prove the config, and this model --against it "
                "to measure what quantization costs\n",
                q);
        return 0;
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
    const auto model = tools::open_model(args.positionals()[0]);
    const int status = model->family == format::Family::forecaster && args.has("against") && !args.has("target")
                           ? verify_forecasts(args, model.get())
                           : verify_pair(args, *model);
    warn_if_unproven(*model);
    return status;
}

}  // namespace ax::cli
