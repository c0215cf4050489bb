#include "tools/import/tvae_import.h"

#include "runtime/bytes.h"
#include "tools/import/import_common.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

using format::ConfigKey;
using format::Role;

struct VaeLinears {
    std::string seq, z_mean, z_log_var, z_embed, r_seq;
};

// Five nn.Linear modules outside the stacks: three read d_model (z_mean and z_log_var [latent, d] and
// r_seq_embedding [n_features, d]), two write it (seq_embedding [d, n_features] and z_embedding [d, latent]).
// Shapes decide where they differ; names (mean/mu, var/sigma, z) where they do not.
VaeLinears find_vae_linears(const CheckpointTensors& ck, int64_t d) {
    const std::vector<std::string> all = find_linear_modules(ck);
    std::vector<std::string> from_d, to_d;
    for (const std::string& l : all) {
        const auto& s = ck.shape(l + ".weight");
        if (s[1] == d && s[0] != d)
            from_d.push_back(l);
        else if (s[0] == d && s[1] != d)
            to_d.push_back(l);
        else if (s[0] == d && s[1] == d)
            (name_has(l, {"seq_emb", "z_emb", "embed", "input"}) ? to_d : from_d).push_back(l);
    }
    VaeLinears v;
    auto fail = [&]() -> VaeLinears {
        throw ToolError(
            "cannot find the Transformer-VAE's linear layers: expected seq_embedding [d_model, n_features], "
            "z_mean and z_log_var [latent, d_model], z_embedding [d_model, latent] and r_seq_embedding "
            "[n_features, d_model] (d_model " +
            std::to_string(d) + "); found Linear modules: " + name_list(all) +
            "; name each with a map line \"MODULE.{p} -> z_log_var.{p}\" (and so on for the others)");
    };
    if (from_d.size() != 3 || to_d.size() != 2) return fail();
    v.z_log_var = pick_by_words(from_d, {"log_var", "logvar", "var", "sigma", "std"}, {});
    if (v.z_log_var.empty()) return fail();
    std::vector<std::string> rest;
    for (const std::string& l : from_d)
        if (l != v.z_log_var) rest.push_back(l);
    const auto& var_shape = ck.shape(v.z_log_var + ".weight");
    std::vector<std::string> same;
    for (const std::string& l : rest)
        if (ck.shape(l + ".weight") == var_shape) same.push_back(l);
    if (same.size() == 1) {
        v.z_mean = same[0];
    } else if (same.size() == 2) {  // n_features == latent: the names decide
        v.z_mean = pick_by_words(rest, {"mean", "mu"}, {});
    }
    for (const std::string& l : rest)
        if (l != v.z_mean) v.r_seq = l;
    if (v.z_mean.empty() || v.r_seq.empty()) return fail();
    const int64_t latent = var_shape[0];
    const int64_t features = ck.shape(v.r_seq + ".weight")[0];
    for (const std::string& l : to_d) {
        const int64_t in = ck.shape(l + ".weight")[1];
        const bool z_named = name_has(l, {"z_", "latent"});
        if (in == latent && (in != features || z_named)) {
            if (!v.z_embed.empty()) return fail();
            v.z_embed = l;
        } else if (in == features) {
            if (!v.seq.empty()) return fail();
            v.seq = l;
        }
    }
    if (v.seq.empty() || v.z_embed.empty()) return fail();
    return v;
}

}  // namespace

AxmModel import_tvae(const TensorMap& tensors, const ConvertConfig& config) {
    // Keys of other families were refused by check_config_scope (tools/import/config_scope.h), their one home.
    if (config.positional_encoding && *config.positional_encoding != format::PositionalEncoding::sinusoidal &&
        *config.positional_encoding != format::PositionalEncoding::none)
        throw ToolError("a tvae model's \"positional_encoding\" is \"sinusoidal\" or \"none\"");
    CheckpointTensors ck(tensors);
    AxmModel m;
    m.family = format::Family::tvae;
    const StackShape s = import_stacks(ck, m, config, true, true, "Transformer-VAE");
    const int64_t d = s.d_model;
    TokenTables tables = find_token_tables(ck, d);  // only a sinusoidal `pe` buffer may be here
    if (!tables.tokens.empty() || !tables.positions.empty() ||
        (!tables.sinusoidal.empty() && tables.sinusoidal[0].row0_zero))
        throw ToolError("a Transformer-VAE has no embedding tables; found " +
                        name_list(tables.tokens.empty() ? tables.positions : tables.tokens));
    int64_t max_positions = 0;
    const format::PositionalEncoding pe = decide_positions(config, tables, d, 0, 0, &max_positions, &m.unproven);
    max_positions = max_positions_of(config, max_positions, "positional table");

    const VaeLinears v = find_vae_linears(ck, d);
    const int64_t latent = ck.shape(v.z_mean + ".weight")[0];
    const int64_t features = ck.shape(v.r_seq + ".weight")[0];
    check_stated(config.latent_size, latent, ConfigKey::latent_size, v.z_mean + ".weight",
                 ck.shape(v.z_mean + ".weight"));
    check_stated(config.n_features, features, ConfigKey::n_features, v.r_seq + ".weight",
                 ck.shape(v.r_seq + ".weight"));
    add_linear(ck, m, Role::seq_embed_weight, v.seq, d, features);
    add_linear(ck, m, Role::z_mean_weight, v.z_mean, latent, d);
    add_linear(ck, m, Role::z_log_var_weight, v.z_log_var, latent, d);
    add_linear(ck, m, Role::z_embed_weight, v.z_embed, d, latent);
    add_linear(ck, m, Role::r_seq_embed_weight, v.r_seq, features, d);
    ck.check_all_used("Transformer-VAE");
    add_stack_config(m, s, config);
    m.config.insert(m.config.end(), {
                                        {ConfigKey::n_features, static_cast<uint32_t>(features)},
                                        {ConfigKey::latent_size, static_cast<uint32_t>(latent)},
                                        {ConfigKey::positional_encoding, static_cast<uint32_t>(pe)},
                                        {ConfigKey::max_positions, static_cast<uint32_t>(max_positions)},
                                    });
    return m;
}

}  // namespace ax::tools
