#include "tools/import/forecaster_import.h"

#include "runtime/bytes.h"
#include "tools/import/import_common.h"
#include "tools/common/enum_text.h"
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
        throw ToolError(
            "cannot tell the forecaster's input embeddings and generator apart: expected Linear modules "
            "named like embedding_src [d_model, n_features], embedding_tgt [d_model, n_features] and "
            "generator [n_outputs, d_model] (d_model " +
            std::to_string(d) + "); found Linear modules: " + (found.empty() ? std::string("none") : found) +
            ". Name each with a map line (convert --map FILE): \"MODULE.{p} -> embedding_src.{p}\", "
            "\"MODULE.{p} -> embedding_tgt.{p}\", \"MODULE.{p} -> generator.{p}\"");
    }
    return n;
}

// The `pe` buffer of a tutorial PositionalEncoding module: recognised, checked and dropped (the runtime
// computes the table). Returns its rows (the fewest, should there be several), 0 when there is none.
int64_t check_pe_buffers(CheckpointTensors& ck, const ConvertConfig& config, int64_t d, std::string* buffer_name) {
    int64_t fewest = 0;
    for (const auto& [name, t] : ck.all()) {
        const bool is_pe = name == "pe" || (name.size() > 3 && name.compare(name.size() - 3, 3, ".pe") == 0);
        if (!is_pe) continue;
        ck.mark_used(name);
        if (config.positional_encoding == format::PositionalEncoding::none)
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
        if (fewest == 0 || rows < fewest) {
            fewest = rows;
            *buffer_name = name;
        }
    }
    return fewest;
}

// The positions' limit: the `pe` buffer's rows (PyTorch cannot index past them), or the config's statement
// when there is no buffer. The config's "window" must fit in it.
int64_t decide_max_positions(const ConvertConfig& config, int64_t pe_rows, const std::string& pe_name) {
    if (config.max_positions && pe_rows != 0 && *config.max_positions != pe_rows)
        throw ToolError("config \"max_positions\" = " + std::to_string(*config.max_positions) + " contradicts the " +
                        std::to_string(pe_rows) + " rows of the positional-encoding buffer " + pe_name);
    const int64_t limit = pe_rows != 0 ? pe_rows : config.max_positions.value_or(0);
    if (config.window && limit != 0 && *config.window > limit)
        throw ToolError("config \"window\" = " + std::to_string(*config.window) + " is longer than the model's " +
                        std::to_string(limit) + " positions (" +
                        (pe_rows != 0 ? "the rows of its positional-encoding buffer " + pe_name
                                      : std::string("config \"max_positions\"")) +
                        "): PyTorch cannot run that window either; state the window the model was trained on");
    return limit;
}

}  // namespace

AxmModel import_forecaster(const TensorMap& tensors, const ConvertConfig& config) {
    if (config.arch != format::Family::forecaster)
        throw ToolError("config arch \"" + enum_text(config.arch) + "\" is not \"forecaster\"");
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

    std::string pe_name;
    const int64_t pe_rows = check_pe_buffers(ck, config, d, &pe_name);
    const bool sinusoidal = config.positional_encoding
                                ? *config.positional_encoding == format::PositionalEncoding::sinusoidal
                                : pe_rows != 0;
    const int64_t max_positions = decide_max_positions(config, pe_rows, pe_name);
    if (sinusoidal && d % 2 != 0)
        throw ToolError("sinusoidal positions need an even d_model, got " + std::to_string(d));

    add_linear(ck, m, Role::src_embed_weight, lin.src, d, nf);
    add_linear(ck, m, Role::tgt_embed_weight, lin.tgt, d, nf);
    add_linear(ck, m, Role::generator_weight, lin.generator, no, d);

    const NormalizationSpec& norm = config.normalization;
    const bool global = norm.mode == format::Normalization::global;
    if (norm.mode != format::Normalization::none) {
        if (no != nf)
            throw ToolError("normalization needs n_outputs == n_features (the generator gives " + std::to_string(no) +
                            " outputs for " + std::to_string(nf) + " features)");
        if (static_cast<int64_t>(norm.scale.size()) != nf || (global && static_cast<int64_t>(norm.mean.size()) != nf))
            throw ToolError("normalization mean/scale need one value per feature (" + std::to_string(nf) + ")");
        if (global) m.tensors.push_back(vector_tensor(Role::input_mean, "normalization.mean", norm.mean));
        m.tensors.push_back(vector_tensor(Role::input_scale, "normalization.scale", norm.scale));
    }
    ck.check_all_used("forecaster");

    add_stack_config(m, s, config);
    auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
    m.config.insert(m.config.end(), {
                                        {ConfigKey::n_features, u(nf)},
                                        {ConfigKey::n_outputs, u(no)},
                                        {ConfigKey::positional_encoding,
                                         static_cast<uint32_t>(sinusoidal ? format::PositionalEncoding::sinusoidal
                                                                          : format::PositionalEncoding::none)},
                                        {ConfigKey::memory_mask, static_cast<uint32_t>(config.memory_mask)},
                                        {ConfigKey::normalization, static_cast<uint32_t>(norm.mode)},
                                    });
    // Written only when known, so that a model without them reads exactly as files from before the keys.
    if (max_positions != 0) m.config.push_back({ConfigKey::max_positions, u(max_positions)});
    if (config.window) m.config.push_back({ConfigKey::window, u(*config.window)});
    return m;
}

}  // namespace ax::tools
