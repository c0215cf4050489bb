// The Transformer-VAE: a sequence of rows in, its reconstruction (teacher-forced, or decoded from z) out.
#include <memory>

#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"
#include "tools/convert/conversion_check.h"
#include "tools/families/family_common.h"
#include "tools/host/family_sessions.h"
#include "tools/import/tvae_import.h"

namespace ax::tools {

namespace {

const TvaeConfig& config(const LoadedModel& m) { return m.as<Tvae>().config(); }

Workload bench(const LoadedModel& m, const SessionSize& l, const Kernels& k) {
    const TvaeConfig& c = config(m);
    Workload w;
    auto session = std::make_shared<HostTvae>(m, k, l.first);
    const std::vector<float> x = bench_series(l.first * c.n_features, 0.0f);
    const size_t len = l.first;
    w.forward_label = "forward (teacher-forced, " + std::to_string(len) + " rows)";
    w.forward = [=] { session->run(x, len); };
    w.steps_label = "reconstruct (" + std::to_string(len) + " decoder steps, KV cache)";
    w.steps_json = "reconstruct_ms";
    w.steps = [=] { session->reconstruct(x, len); };
    w.arena = session->arena_bytes();
    return w;
}

std::vector<float> run_check(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    const TvaeConfig& c = config(m);
    if (p.src.cols != c.n_features)
        throw ToolError("check input has " + std::to_string(p.src.cols) + " column(s), the model takes " +
                        std::to_string(c.n_features) + " feature(s)");
    expect_shape(p, p.src.rows, c.n_features, "the teacher-forced reconstruction of the input");
    HostTvae session(m, k, p.src.rows);
    return session.run(p.src.values, p.src.rows);
}

// The anomaly score's path: encode, z = z_mean, decode from a zero row.
Table reconstructions(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    HostTvae session(m, k, p.src.rows);
    Table t;
    t.values = session.reconstruct(p.src.values, p.src.rows);
    t.rows = p.src.rows;
    t.cols = config(m).n_features;
    return t;
}

FamilyDescriptor describe() {
    FamilyDescriptor d;
    d.family = format::Family::tvae;
    d.commands = "reconstruct, generate, verify, bench, header";
    d.output_prefix = "feature";
    d.import = import_tvae;
    d.search_axes = stack_search_axes;
    d.open = open_as<Tvae>;
    d.lengths[0] = token_length("max-len", "max_len", "MAX_LEN", "sequence rows the arena is sized for");
    d.lengths_text = [](const SessionSize& l) { return "sequences up to " + std::to_string(l.first) + " rows"; };
    d.arena_bytes = [](const LoadedModel& m, const SessionSize& l) { return m.as<Tvae>().arena_bytes(l.first); };
    d.inspect_lines = [](const LoadedModel& m) -> std::vector<std::string> {
        const TvaeConfig& c = config(m);
        return {
            "io:       n_features " + std::to_string(c.n_features) + ", latent_size " + std::to_string(c.latent_size),
            "inputs:   positional_encoding " + enum_text(c.positional_encoding) + ", max_positions " +
                positions_text(c.max_positions)};
    };
    d.inspect_arena = [](const LoadedModel& m, const SessionSize& l, MemoryPlan* plan) {
        return one_length_arena(m.as<Tvae>(), plan_tvae_arena, l.first, position_limit(m), "sequence", "rows", plan);
    };
    d.header_macros = [](const LoadedModel& m) -> std::vector<HeaderMacro> {
        return {macro("N_FEATURES", config(m).n_features, "values per row"),
                macro("LATENT_SIZE", config(m).latent_size, "values of z_mean, z_log_var and z")};
    };
    d.bench = bench;
    d.read_check_inputs = [](const CheckFiles& files, CheckPair* p) {
        refuse_second_input(files, "tvae model");
        p->src = read_csv(files.input);
    };
    d.run_check = run_check;
    d.output_cols = [](const LoadedModel& m) { return config(m).n_features; };
    d.forward_label = "teacher-forced outputs";
    d.second_label = "reconstructions";
    d.second_outputs = reconstructions;
    return d;
}

}  // namespace

const FamilyDescriptor& tvae_family() {
    static const FamilyDescriptor d = describe();
    return d;
}

}  // namespace ax::tools
