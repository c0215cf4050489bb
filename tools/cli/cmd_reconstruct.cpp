// reconstruct: a Transformer-VAE in eval mode on one sequence (encode, z = z_mean or a sample, decode from a
// zero row for the input's length); prints the reconstruction error, the anomaly score. --latent writes the
// encoder's z_mean and z_log_var.
#include <cstdio>

#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/host/column_names.h"
#include "tools/text/csv.h"
#include "tools/host/family_sessions.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

namespace {

// One row per latent dimension, the columns z_mean and z_log_var (always named: they are not features), in
// the input's separator and decimal mark.
void write_latent(const std::string& path, const std::vector<float>& mean, const std::vector<float>& log_var,
                  const tools::Table& input) {
    tools::Table t;
    t.header = {"z_mean", "z_log_var"};
    t.rows = mean.size();
    t.cols = 2;
    for (size_t i = 0; i < mean.size(); ++i) {
        t.values.push_back(mean[i]);
        t.values.push_back(log_var[i]);
    }
    same_style(input, t);
    tools::write_csv(path, t);
}

}  // namespace

int cmd_reconstruct(const Argv& argv) {
    const Args args(argv, with_csv_options({"input", "output", "latent", "seed", "port"}), {"sample"});
    args.expect_positionals(1, "one tvae model (.axm)");
    const auto m = tools::open_model(args.positionals()[0]);
    tools::require_family(*m, format::Family::tvae);
    const TvaeConfig& c = m->as<Tvae>().config();
    if (args.has("seed") && !args.has("sample")) throw UsageError{"--seed goes with --sample"};
    const std::vector<std::string> features = tools::feature_names(m->file);
    const tools::Table in = read_data_csv(args, "input", c.n_features, features);
    tools::HostTvae session(*m, choose_kernels(args), in.rows);
    tools::Table out;
    out.rows = in.rows;
    out.cols = in.cols;
    out.header = feature_header(in, features);
    same_times(in, out);
    std::vector<float> mean, log_var;
    if (args.has("sample") || args.has("latent")) session.encode(in.values, in.rows, &mean, &log_var);
    if (args.has("latent")) write_latent(args.get("latent"), mean, log_var, in);
    if (args.has("sample")) {
        const uint64_t seed = args.get_size("seed", 0, 0, SIZE_MAX);
        out.values = session.generate(tools::sample_latent(mean, log_var, seed), in.rows);
    } else {
        out.values = session.reconstruct(in.values, in.rows);
    }
    const double mse = tools::mean_squared_error(out.values, in.values);
    // On stderr when stdout carries the CSV.
    std::fprintf(write_output(args, out) ? stdout : stderr, "reconstruction error (mean squared): %.9g\n", mse);
    return 0;
}

}  // namespace ax::cli
