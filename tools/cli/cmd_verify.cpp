// verify: how far a quantized model's outputs and forecasts are from its float32 original on real data.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/host/feature_names.h"
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

void print_errors(const char* what, const std::vector<ColumnError>& columns, const std::vector<std::string>& names) {
    std::printf("%s (%zu values per output)\n", what, columns.empty() ? 0 : columns[0].count);
    std::printf("  %-16s %12s %12s %12s %12s\n", "output", "max abs", "mean abs", "max rel", "mean rel");
    for (size_t c = 0; c < columns.size(); ++c) {
        const std::string name = c < names.size() ? names[c] : "output " + std::to_string(c);
        const ColumnError& e = columns[c];
        std::printf("  %-16s %12.4g %12.4g %12.4g %12.4g\n", name.c_str(), e.max_abs, e.mean_abs(), e.max_rel(),
                    e.mean_rel());
    }
}

}  // namespace

int cmd_verify(const Argv& argv) {
    const Args args(argv, with_csv_options({"against", "input", "window", "horizon", "stride", "port"}), {});
    args.expect_positionals(1, "the model to check (.axm)");
    const auto model = tools::load_model(args.positionals()[0]);
    const auto reference = tools::load_model(args.require("against"));
    const ForecasterConfig& c = model->forecaster.config();
    const ForecasterConfig& rc = reference->forecaster.config();
    if (c.n_features != rc.n_features || c.n_outputs != rc.n_outputs)
        throw tools::ToolError("the two models take different inputs or give different outputs");
    const tools::Table data = read_data_csv(args, "input", c.n_features, tools::feature_names(model->file));
    const size_t horizon = args.get_size("horizon", tools::kDefaultHorizon, 1, kMaxSequenceLength);
    if (data.rows < horizon + 2)
        throw tools::ToolError(args.get("input") + " has " + std::to_string(data.rows) + " rows: need more than the " +
                               "horizon (" + std::to_string(horizon) + ") plus 1");
    const size_t window =
        args.get_size("window", std::min(tools::default_window(c), data.rows - horizon), 1, data.rows - horizon);
    for (const ForecasterConfig* config : {&c, &rc}) {
        tools::check_window_fits(*config, window, "--window " + std::to_string(window));
        tools::check_horizon_fits(*config, horizon, "--horizon " + std::to_string(horizon));
    }
    const size_t stride = args.get_size("stride", horizon, 1, kMaxSequenceLength);

    const Kernels& k = choose_kernels(args);
    tools::HostSession a(*model, k, window, horizon), b(*reference, k, window, horizon);
    std::vector<ColumnError> run_err(c.n_outputs), fc_err(c.n_outputs);
    const bool can_forecast = c.n_outputs == c.n_features;
    for (size_t start = 0; start + window + horizon <= data.rows + 1 && start + window + horizon - 1 <= data.rows;
         start += stride) {
        const float* src = data.values.data() + start * data.cols;
        // Teacher forcing as in training: the decoder sees the last observed row, then the true rows.
        const float* tgt = src + (window - 1) * data.cols;
        const std::vector<float> ra = a.run(src, window, tgt, horizon, InputSpace::raw);
        const std::vector<float> rb = b.run(src, window, tgt, horizon, InputSpace::raw);
        for (size_t i = 0; i < ra.size(); ++i) run_err[i % c.n_outputs].add(ra[i], rb[i]);
        if (!can_forecast) continue;
        const std::vector<float> fa = a.forecast(src, window, horizon);
        const std::vector<float> fb = b.forecast(src, window, horizon);
        for (size_t i = 0; i < fa.size(); ++i) fc_err[i % c.n_outputs].add(fa[i], fb[i]);
    }
    std::printf("verify %s against %s: window %zu, horizon %zu, stride %zu, port %s\n", model->path.c_str(),
                reference->path.c_str(), window, horizon, stride, k.name);
    print_errors("teacher-forced outputs", run_err, data.header);
    if (can_forecast) print_errors("forecasts", fc_err, data.header);
    return 0;
}

}  // namespace ax::cli
