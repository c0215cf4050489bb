#include "tools/import/forecaster_import.h"

#include "runtime/bytes.h"
#include "tools/import/import_common.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

using format::ConfigKey;
using format::Role;

AxmTensor vector_tensor(Role role, const std::string& name, const std::vector<float>& values) {
    HostTensor t;
    t.shape = {static_cast<int64_t>(values.size())};
    t.data = values;
    return make_tensor(role, format::kNoLayer, name, t);
}

struct LinearNames {
    std::string src, tgt, generator;  // module prefixes, e.g. "embedding_src"
};

// The Linear modules left once the layer stacks are taken, told apart by name and shape: the input
// embeddings map features to d_model, the generator maps d_model to outputs.
LinearNames find_linears(const CheckpointTensors& ck, int64_t d) {
    const std::vector<std::string> modules = find_linear_modules(ck);
    LinearNames n;
    std::vector<std::string> rest;
    for (const std::string& m : modules) {
        const auto& shape = ck.shape(m + ".weight");
        if (shape[0] == d && name_has(m, {"src", "encoder_input", "enc_in", "source"}) && n.src.empty())
            n.src = m;
        else if (shape[0] == d && name_has(m, {"tgt", "trg", "decoder_input", "dec_in", "target"}) && n.tgt.empty())
            n.tgt = m;
        else
            rest.push_back(m);
    }
    std::vector<std::string> gen;
    for (const std::string& m : rest)
        if (ck.shape(m + ".weight")[1] == d) gen.push_back(m);
    if (gen.size() == 1) n.generator = gen[0];
    if (n.src.empty() || n.tgt.empty() || n.generator.empty()) {
        std::string found;
        for (const std::string& m : modules) found += (found.empty() ? "" : ", ") + m;
        throw ToolError("cannot tell the forecaster's input embeddings and generator apart: expected Linear modules "
                        "named like embedding_src [d_model, n_features], embedding_tgt [d_model, n_features] and "
                        "generator [n_outputs, d_model] (d_model " + std::to_string(d) + "); found Linear modules: " +
                        (found.empty() ? std::string("none") : found));
    }
    return n;
}

// The `pe` buffer of a tutorial PositionalEncoding module: recognised, checked and dropped (the runtime
// computes the table). Returns whether there was one.
bool check_pe_buffers(CheckpointTensors& ck, const ConvertConfig& config, int64_t d) {
    bool present = false;
    for (const auto& [name, t] : ck.all()) {
        const bool is_pe = name == "pe" || (name.size() > 3 && name.compare(name.size() - 3, 3, ".pe") == 0);
        if (!is_pe) continue;
        present = true;
        ck.mark_used(name);
        if (config.positional_encoding && *config.positional_encoding == "none")
            throw ToolError("checkpoint holds a positional-encoding buffer " + name +
                            " but the config says \"positional_encoding\": \"none\"");
        if (t.shape.empty() || t.shape.back() != d)
            throw ToolError("positional-encoding buffer " + name + " has shape " + shape_text(t.shape) +
                            ", expected [max_len, 1, " + std::to_string(d) + "] or similar");
        int64_t rows = 0;
        bool row0_zero = false;
        if (!is_sinusoidal_table(t, d, &row0_zero, &rows) || row0_zero)
            throw ToolError("positional-encoding buffer " + name + " is not the sinusoidal table " +
                            "PE[pos,2i]=sin(pos/10000^(2i/d)), PE[pos,2i+1]=cos(...)");
    }
    return present;
}

}  // namespace

AxmModel import_forecaster(const TensorMap& tensors, const ConvertConfig& config) {
    if (config.arch != "forecaster") throw ToolError("config arch \"" + config.arch + "\" is not \"forecaster\"");
    CheckpointTensors ck(tensors);
    AxmModel m;
    m.family = format::Family::forecaster;
    const StackShape s = import_stacks(ck, m, config, true, true, "forecaster");
    const int64_t d = s.d_model;

    const LinearNames lin = find_linears(ck, d);
    const auto& src_shape = ck.shape(lin.src + ".weight");
    const auto& gen_shape = ck.shape(lin.generator + ".weight");
    const int64_t nf = src_shape[1];
    const int64_t no = gen_shape[0];
    check_stated(config.n_features, nf, "n_features", lin.src + ".weight", src_shape);
    check_stated(config.n_outputs, no, "n_outputs", lin.generator + ".weight", gen_shape);

    const bool pe_buffer = check_pe_buffers(ck, config, d);
    const bool sinusoidal = config.positional_encoding ? *config.positional_encoding == "sinusoidal" : pe_buffer;
    if (sinusoidal && d % 2 != 0) throw ToolError("sinusoidal positions need an even d_model, got " + std::to_string(d));

    auto add_linear = [&](Role weight, const std::string& module, int64_t out, int64_t in) {
        m.tensors.push_back(make_tensor(weight, format::kNoLayer, module + ".weight", ck.take(module + ".weight", {out, in})));
        m.tensors.push_back(make_tensor(static_cast<Role>(static_cast<uint16_t>(weight) + 1), format::kNoLayer,
                                        module + ".bias", ck.take(module + ".bias", {out})));
    };
    add_linear(Role::src_embed_weight, lin.src, d, nf);
    add_linear(Role::tgt_embed_weight, lin.tgt, d, nf);
    add_linear(Role::generator_weight, lin.generator, no, d);

    const NormalizationSpec& norm = config.normalization;
    if (norm.mode != "none") {
        if (no != nf)
            throw ToolError("normalization needs n_outputs == n_features (the generator gives " + std::to_string(no) +
                            " outputs for " + std::to_string(nf) + " features)");
        if (static_cast<int64_t>(norm.scale.size()) != nf ||
            (norm.mode == "global" && static_cast<int64_t>(norm.mean.size()) != nf))
            throw ToolError("normalization mean/scale need one value per feature (" + std::to_string(nf) + ")");
        if (norm.mode == "global") m.tensors.push_back(vector_tensor(Role::input_mean, "normalization.mean", norm.mean));
        m.tensors.push_back(vector_tensor(Role::input_scale, "normalization.scale", norm.scale));
    }
    ck.check_all_used("forecaster");

    add_stack_config(m, s, config);
    auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
    m.config.insert(m.config.end(), {
        {ConfigKey::n_features, u(nf)},
        {ConfigKey::n_outputs, u(no)},
        {ConfigKey::positional_encoding, sinusoidal ? 1u : 0u},
        {ConfigKey::memory_mask, config.memory_mask == "tril" ? 1u : 0u},
        {ConfigKey::normalization, norm.mode == "global" ? 1u : norm.mode == "last_value" ? 2u : 0u},
    });
    return m;
}

}  // namespace ax::tools
