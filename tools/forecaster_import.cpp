#include "tools/forecaster_import.h"

#include <cmath>
#include <cstring>
#include <regex>
#include <set>

#include "runtime/bytes.h"
#include "tools/tool_error.h"

namespace ax::tools {

namespace {

using format::ConfigKey;
using format::Role;

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// Hands out checkpoint tensors by name and remembers which were used, so leftovers can be reported.
class Checkpoint {
public:
    explicit Checkpoint(const TensorMap& tensors) : tensors_(tensors) {}

    bool has(const std::string& name) const { return tensors_.count(name) != 0; }

    const HostTensor& take(const std::string& name, std::vector<int64_t> expected) {
        auto it = tensors_.find(name);
        if (it == tensors_.end()) throw ToolError("checkpoint lacks tensor " + name);
        if (it->second.shape != expected)
            throw ToolError("tensor " + name + " has shape " + shape_text(it->second.shape) + ", the model needs " +
                            shape_text(expected));
        for (float v : it->second.data)
            if (!std::isfinite(v)) throw ToolError("tensor " + name + " holds NaN or Inf: the checkpoint is broken");
        used_.insert(name);
        return it->second;
    }

    void mark_used(const std::string& name) { used_.insert(name); }

    std::vector<std::string> unused() const {
        std::vector<std::string> out;
        for (const auto& [name, t] : tensors_)
            if (!used_.count(name)) out.push_back(name + " " + shape_text(t.shape));
        return out;
    }

    const TensorMap& all() const { return tensors_; }

private:
    const TensorMap& tensors_;
    std::set<std::string> used_;
};

struct LayerStack {
    std::string prefix;  // ends with "layers."
    size_t count = 0;
};

// Finds the encoder and decoder layer stacks: prefixes P with P + "N.self_attn.in_proj_weight"; a decoder
// stack also has "N.multihead_attn.in_proj_weight".
void find_stacks(const TensorMap& tensors, LayerStack* encoder, LayerStack* decoder) {
    static const std::regex pattern(R"(^(.*layers\.)(\d+)\.self_attn\.in_proj_weight$)");
    std::map<std::string, std::set<size_t>> stacks;
    for (const auto& [name, t] : tensors) {
        std::smatch m;
        if (std::regex_match(name, m, pattern)) {
            if (m[2].length() > 4) throw ToolError("tensor " + name + ": layer index too large");
            stacks[m[1]].insert(std::stoul(m[2]));
        }
    }
    std::vector<LayerStack> enc, dec;
    for (const auto& [prefix, indices] : stacks) {
        LayerStack s{prefix, indices.size()};
        if (*indices.rbegin() + 1 != indices.size())
            throw ToolError("layers under " + prefix + " are not numbered 0.." + std::to_string(indices.size() - 1));
        (tensors.count(prefix + "0.multihead_attn.in_proj_weight") ? dec : enc).push_back(s);
    }
    auto describe = [](const std::vector<LayerStack>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x.prefix;
        return s.empty() ? std::string("none") : s;
    };
    if (enc.size() != 1 || dec.size() != 1)
        throw ToolError("a forecaster needs one encoder and one decoder layer stack (tensors like "
                        "encoder.layers.0.self_attn.in_proj_weight); found encoder stacks: " + describe(enc) +
                        "; decoder stacks: " + describe(dec));
    *encoder = enc[0];
    *decoder = dec[0];
}

AxmTensor make_tensor(Role role, uint16_t layer, const std::string& name, const HostTensor& t) {
    AxmTensor out;
    out.role = role;
    out.layer = layer;
    out.source_name = name;
    for (int64_t d : t.shape) out.dims.push_back(static_cast<uint32_t>(d));
    out.data.resize(t.data.size() * sizeof(float));
    std::memcpy(out.data.data(), t.data.data(), out.data.size());
    return out;
}

AxmTensor vector_tensor(Role role, const std::string& name, const std::vector<float>& values) {
    HostTensor t;
    t.shape = {static_cast<int64_t>(values.size())};
    t.data = values;
    return make_tensor(role, format::kNoLayer, name, t);
}

bool name_has(const std::string& name, std::initializer_list<const char*> words) {
    for (const char* w : words)
        if (name.find(w) != std::string::npos) return true;
    return false;
}

struct LinearNames {
    std::string src, tgt, generator;  // module prefixes, e.g. "embedding_src"
};

// Top-level nn.Linear modules (X.weight rank 2 + X.bias) outside the layer stacks, told apart by name and
// shape: the input embeddings map features to d_model, the generator maps d_model to outputs.
LinearNames find_linears(const Checkpoint& ck, const LayerStack& enc, const LayerStack& dec, int64_t d) {
    std::vector<std::string> modules;
    for (const auto& [name, t] : ck.all()) {
        if (name.rfind(enc.prefix, 0) == 0 || name.rfind(dec.prefix, 0) == 0) continue;
        const size_t dot = name.rfind(".weight");
        if (dot == std::string::npos || dot + 7 != name.size() || t.shape.size() != 2) continue;
        const std::string module = name.substr(0, dot);
        if (ck.has(module + ".bias")) modules.push_back(module);
    }
    LinearNames n;
    std::vector<std::string> rest;
    for (const std::string& m : modules) {
        const auto& shape = ck.all().at(m + ".weight").shape;
        if (shape[0] == d && name_has(m, {"src", "encoder_input", "enc_in", "source"}) && n.src.empty())
            n.src = m;
        else if (shape[0] == d && name_has(m, {"tgt", "trg", "decoder_input", "dec_in", "target"}) && n.tgt.empty())
            n.tgt = m;
        else
            rest.push_back(m);
    }
    std::vector<std::string> gen;
    for (const std::string& m : rest)
        if (ck.all().at(m + ".weight").shape[1] == d) gen.push_back(m);
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
// computes the table).
void check_pe_buffers(Checkpoint& ck, const ConvertConfig& config, int64_t d, bool* present) {
    *present = false;
    for (const auto& [name, t] : ck.all()) {
        const bool is_pe = name == "pe" || (name.size() > 3 && name.compare(name.size() - 3, 3, ".pe") == 0);
        if (!is_pe) continue;
        *present = true;
        ck.mark_used(name);
        if (config.positional_encoding && *config.positional_encoding == "none")
            throw ToolError("checkpoint holds a positional-encoding buffer " + name +
                            " but the config says \"positional_encoding\": \"none\"");
        if (t.shape.empty() || t.shape.back() != d)
            throw ToolError("positional-encoding buffer " + name + " has shape " + shape_text(t.shape) +
                            ", expected [max_len, 1, " + std::to_string(d) + "] or similar");
        const int64_t rows = static_cast<int64_t>(t.data.size()) / d;
        for (int64_t pos = 0; pos < rows && pos < 128; ++pos) {
            for (int64_t i = 0; i < d; ++i) {
                const double div = std::exp(static_cast<double>(i - i % 2) * (-std::log(10000.0) / d));
                const double want = i % 2 == 0 ? std::sin(pos * div) : std::cos(pos * div);
                if (std::fabs(t.data[pos * d + i] - want) > 1e-3)
                    throw ToolError("positional-encoding buffer " + name + " is not the sinusoidal table " +
                                    "PE[pos,2i]=sin(pos/10000^(2i/d)), PE[pos,2i+1]=cos(...) (differs at position " +
                                    std::to_string(pos) + ", column " + std::to_string(i) + ")");
            }
        }
    }
}

void check_stated(const std::optional<int64_t>& stated, int64_t actual, const char* key, const std::string& tensor,
                  const std::vector<int64_t>& shape) {
    if (stated && *stated != actual)
        throw ToolError(std::string("config \"") + key + "\" = " + std::to_string(*stated) + " contradicts tensor " +
                        tensor + " of shape " + shape_text(shape) + " (which gives " + std::to_string(actual) + ")");
}

}  // namespace

AxmModel import_forecaster(const TensorMap& tensors, const ConvertConfig& config) {
    if (config.arch != "forecaster") throw ToolError("config arch \"" + config.arch + "\" is not \"forecaster\"");
    Checkpoint ck(tensors);
    LayerStack enc, dec;
    find_stacks(tensors, &enc, &dec);

    const std::string first_in = enc.prefix + "0.self_attn.in_proj_weight";
    const auto& in_shape = tensors.at(first_in).shape;
    if (in_shape.size() != 2 || in_shape[1] < 1 || in_shape[0] != 3 * in_shape[1])
        throw ToolError("tensor " + first_in + " has shape " + shape_text(in_shape) + ", expected [3*d_model, d_model]");
    const int64_t d = in_shape[1];
    check_stated(config.d_model, d, "d_model", first_in, in_shape);
    if (d % config.nhead != 0)
        throw ToolError("d_model " + std::to_string(d) + " (from " + first_in + ") is not a multiple of nhead " +
                        std::to_string(config.nhead));
    const std::string first_ff = enc.prefix + "0.linear1.weight";
    if (!ck.has(first_ff) || ck.all().at(first_ff).shape.size() != 2)
        throw ToolError("checkpoint lacks a 2-D tensor " + first_ff);
    const int64_t ff = ck.all().at(first_ff).shape[0];
    check_stated(config.dim_feedforward, ff, "dim_feedforward", first_ff, ck.all().at(first_ff).shape);
    check_stated(config.num_encoder_layers, static_cast<int64_t>(enc.count), "num_encoder_layers", first_in, in_shape);
    check_stated(config.num_decoder_layers, static_cast<int64_t>(dec.count), "num_decoder_layers",
                 dec.prefix + "0.self_attn.in_proj_weight", in_shape);

    const LinearNames lin = find_linears(ck, enc, dec, d);
    const auto& src_shape = tensors.at(lin.src + ".weight").shape;
    const auto& gen_shape = tensors.at(lin.generator + ".weight").shape;
    const int64_t nf = src_shape[1];
    const int64_t no = gen_shape[0];
    check_stated(config.n_features, nf, "n_features", lin.src + ".weight", src_shape);
    check_stated(config.n_outputs, no, "n_outputs", lin.generator + ".weight", gen_shape);

    bool pe_buffer = false;
    check_pe_buffers(ck, config, d, &pe_buffer);
    const bool sinusoidal = config.positional_encoding ? *config.positional_encoding == "sinusoidal" : pe_buffer;
    if (sinusoidal && d % 2 != 0) throw ToolError("sinusoidal positions need an even d_model, got " + std::to_string(d));

    AxmModel m;
    m.family = format::Family::forecaster;
    auto add = [&](Role role, uint16_t layer, const std::string& name, std::vector<int64_t> shape) {
        m.tensors.push_back(make_tensor(role, layer, name, ck.take(name, std::move(shape))));
    };
    auto add_linear = [&](Role weight, uint16_t layer, const std::string& module, int64_t out, int64_t in) {
        add(weight, layer, module + ".weight", {out, in});
        add(static_cast<Role>(static_cast<uint16_t>(weight) + 1), layer, module + ".bias", {out});
    };
    auto add_norm = [&](Role weight, uint16_t layer, const std::string& module) {
        add(weight, layer, module + ".weight", {d});
        add(static_cast<Role>(static_cast<uint16_t>(weight) + 1), layer, module + ".bias", {d});
    };
    auto add_attention = [&](Role in_weight, uint16_t layer, const std::string& module) {
        add(in_weight, layer, module + ".in_proj_weight", {3 * d, d});
        add(static_cast<Role>(static_cast<uint16_t>(in_weight) + 1), layer, module + ".in_proj_bias", {3 * d});
        add_linear(static_cast<Role>(static_cast<uint16_t>(in_weight) + 2), layer, module + ".out_proj", d, d);
    };

    add_linear(Role::src_embed_weight, format::kNoLayer, lin.src, d, nf);
    add_linear(Role::tgt_embed_weight, format::kNoLayer, lin.tgt, d, nf);
    add_linear(Role::generator_weight, format::kNoLayer, lin.generator, no, d);
    const std::string enc_root = enc.prefix.substr(0, enc.prefix.size() - 7);  // strip "layers."
    const std::string dec_root = dec.prefix.substr(0, dec.prefix.size() - 7);
    const bool enc_norm = ck.has(enc_root + "norm.weight");
    const bool dec_norm = ck.has(dec_root + "norm.weight");
    if (enc_norm) add_norm(Role::encoder_norm_weight, format::kNoLayer, enc_root + "norm");
    if (dec_norm) add_norm(Role::decoder_norm_weight, format::kNoLayer, dec_root + "norm");

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

    for (size_t i = 0; i < enc.count; ++i) {
        const uint16_t L = static_cast<uint16_t>(i);
        const std::string p = enc.prefix + std::to_string(i) + ".";
        add_attention(Role::enc_attn_in_weight, L, p + "self_attn");
        add_linear(Role::enc_ff1_weight, L, p + "linear1", ff, d);
        add_linear(Role::enc_ff2_weight, L, p + "linear2", d, ff);
        add_norm(Role::enc_norm1_weight, L, p + "norm1");
        add_norm(Role::enc_norm2_weight, L, p + "norm2");
    }
    for (size_t i = 0; i < dec.count; ++i) {
        const uint16_t L = static_cast<uint16_t>(i);
        const std::string p = dec.prefix + std::to_string(i) + ".";
        add_attention(Role::dec_attn_in_weight, L, p + "self_attn");
        add_attention(Role::dec_cross_in_weight, L, p + "multihead_attn");
        add_linear(Role::dec_ff1_weight, L, p + "linear1", ff, d);
        add_linear(Role::dec_ff2_weight, L, p + "linear2", d, ff);
        add_norm(Role::dec_norm1_weight, L, p + "norm1");
        add_norm(Role::dec_norm2_weight, L, p + "norm2");
        add_norm(Role::dec_norm3_weight, L, p + "norm3");
    }
    const std::vector<std::string> left = ck.unused();
    if (!left.empty()) {
        std::string list;
        for (size_t i = 0; i < left.size() && i < 8; ++i) list += (i ? ", " : "") + left[i];
        if (left.size() > 8) list += ", ... (" + std::to_string(left.size()) + " in all)";
        throw ToolError("checkpoint tensors that fit no part of a forecaster: " + list);
    }

    auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
    m.config = {
        {ConfigKey::d_model, u(d)},
        {ConfigKey::nhead, u(config.nhead)},
        {ConfigKey::dim_feedforward, u(ff)},
        {ConfigKey::encoder_layers, u(static_cast<int64_t>(enc.count))},
        {ConfigKey::decoder_layers, u(static_cast<int64_t>(dec.count))},
        {ConfigKey::n_features, u(nf)},
        {ConfigKey::n_outputs, u(no)},
        {ConfigKey::activation, config.activation == "gelu" ? 1u : 0u},
        {ConfigKey::norm_first, config.norm_first ? 1u : 0u},
        {ConfigKey::layer_norm_eps, float_to_bits(static_cast<float>(config.layer_norm_eps))},
        {ConfigKey::positional_encoding, sinusoidal ? 1u : 0u},
        {ConfigKey::memory_mask, config.memory_mask == "tril" ? 1u : 0u},
        {ConfigKey::encoder_final_norm, enc_norm ? 1u : 0u},
        {ConfigKey::decoder_final_norm, dec_norm ? 1u : 0u},
        {ConfigKey::normalization, norm.mode == "global" ? 1u : norm.mode == "last_value" ? 2u : 0u},
    };
    return m;
}

}  // namespace ax::tools
