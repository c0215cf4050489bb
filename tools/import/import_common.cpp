#include "tools/import/import_common.h"

#include <cmath>
#include <cstring>
#include <algorithm>
#include <map>
#include <optional>

#include "runtime/bytes.h"
#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"
#include "tools/import/config_keys.h"

namespace ax::tools {

using format::ConfigKey;
using format::Role;

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::string name_list(const std::vector<std::string>& names) {
    std::string s;
    for (const auto& n : names) s += (s.empty() ? "" : ", ") + n;
    return s.empty() ? std::string("none") : s;
}

const std::vector<int64_t>& CheckpointTensors::shape(const std::string& name) const {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw ToolError("checkpoint lacks tensor " + name);
    return it->second.shape;
}

namespace {

// The tensors of one nn.TransformerEncoderLayer / TransformerDecoderLayer, after "...layers.N.".
const char* const kLayerTensors[] = {"self_attn.in_proj_weight",
                                     "self_attn.in_proj_bias",
                                     "self_attn.out_proj.weight",
                                     "self_attn.out_proj.bias",
                                     "multihead_attn.in_proj_weight",
                                     "multihead_attn.in_proj_bias",
                                     "multihead_attn.out_proj.weight",
                                     "multihead_attn.out_proj.bias",
                                     "linear1.weight",
                                     "linear1.bias",
                                     "linear2.weight",
                                     "linear2.bias",
                                     "norm1.weight",
                                     "norm1.bias",
                                     "norm2.weight",
                                     "norm2.bias",
                                     "norm3.weight",
                                     "norm3.bias"};

bool is_layer_tensor(const std::string& rest) {
    for (const char* t : kLayerTensors)
        if (rest == t) return true;
    return false;
}

}  // namespace

std::string CheckpointTensors::unmatched_near(const std::string& name) const {
    // The same layer's tensors when the name is inside a stack ("...layers.N."), else every one left.
    std::string scope;
    const size_t dot = name.find('.', name.rfind("layers.") == std::string::npos ? 0 : name.rfind("layers.") + 7);
    if (name.rfind("layers.") != std::string::npos && dot != std::string::npos) scope = name.substr(0, dot + 1);
    std::vector<std::string> left;
    for (const auto& [n, t] : tensors_)
        if (!used_.count(n) && n.compare(0, scope.size(), scope) == 0 &&
            (scope.empty() || !is_layer_tensor(n.substr(scope.size()))))
            left.push_back(n);
    std::string list;
    for (size_t i = 0; i < left.size() && i < 8; ++i) list += (i ? ", " : "") + left[i];
    if (left.size() > 8) list += ", ... (" + std::to_string(left.size()) + " in all)";
    return list.empty() ? std::string("none") : list;
}

std::string CheckpointTensors::missing_near(const std::string& name) const {
    const size_t at = name.rfind("layers.");
    const size_t dot = at == std::string::npos ? std::string::npos : name.find('.', at + 7);
    if (dot == std::string::npos) return name;
    const std::string scope = name.substr(0, dot + 1), rest = name.substr(dot + 1);
    // The module's family of names: "self_attn.", "multihead_attn.", "linear" (both Linears), "norm".
    std::string kind = rest.substr(0, rest.find('.') + 1);
    if (kind.rfind("linear", 0) == 0) kind = "linear";
    if (kind.rfind("norm", 0) == 0) kind = "norm";
    const bool decoder_layer = tensors_.count(scope + "multihead_attn.in_proj_weight") ||
                               rest.rfind("multihead_attn.", 0) == 0 || rest.rfind("norm3.", 0) == 0;
    std::vector<std::string> missing;
    for (const char* t : kLayerTensors) {
        const std::string canonical = t;
        if (canonical.rfind(kind, 0) != 0 || tensors_.count(scope + canonical)) continue;
        if (!decoder_layer && (canonical.rfind("multihead_attn.", 0) == 0 || canonical.rfind("norm3.", 0) == 0))
            continue;
        missing.push_back(scope + canonical);
    }
    return missing.empty() ? name : name_list(missing);
}

std::string CheckpointTensors::lacks_message(const std::string& what) const {
    return "checkpoint lacks " + missing_near(what) + "; tensors nothing matched there: " + unmatched_near(what) +
           " (a misspelt module name in the model, or a rename map line that does not fit them?)";
}

const HostTensor& CheckpointTensors::take(const std::string& name, const std::vector<int64_t>& expected) {
    auto it = tensors_.find(name);
    if (it == tensors_.end()) throw ToolError(lacks_message(name));
    if (it->second.shape != expected)
        throw ToolError("tensor " + name + " has shape " + shape_text(it->second.shape) + ", the model needs " +
                        shape_text(expected));
    for (float v : it->second.data)
        if (!std::isfinite(v)) throw ToolError("tensor " + name + " holds NaN or Inf: the checkpoint is broken");
    used_.insert(name);
    return it->second;
}

void CheckpointTensors::check_all_used(const std::string& family) const {
    std::vector<std::string> left;
    for (const auto& [name, t] : tensors_)
        if (!used_.count(name)) left.push_back(name + " " + shape_text(t.shape));
    if (left.empty()) return;
    // BatchNorm's running statistics: a norm the runtime does not have, named as such rather than as leftovers.
    for (const auto& [name, t] : tensors_) {
        if (used_.count(name)) continue;
        for (const char* stat : {".running_mean", ".running_var", ".num_batches_tracked"}) {
            const size_t n = std::char_traits<char>::length(stat);
            if (name.size() > n && name.compare(name.size() - n, n, stat) == 0)
                throw ToolError("BatchNorm outside the layers is not supported: " + name.substr(0, name.size() - n) +
                                " holds BatchNorm running statistics, and auspex folds BatchNorm1d only where a "
                                "layer's own norms are (norm1, norm2, norm3 of every layer); this " +
                                family + "'s other BatchNorm cannot be converted");
        }
    }
    std::string list;
    for (size_t i = 0; i < left.size() && i < 8; ++i) list += (i ? ", " : "") + left[i];
    if (left.size() > 8) list += ", ... (" + std::to_string(left.size()) + " in all)";
    throw ToolError("checkpoint tensors that fit no part of a " + family + ": " + list);
}

bool split_layer_name(const std::string& name, const std::string& suffix, std::string* prefix, size_t* index) {
    if (name.size() < suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
        return false;
    // name = prefix + digits + "." + suffix, where prefix ends with "layers."
    size_t digits_end = name.size() - suffix.size();
    if (digits_end == 0 || name[digits_end - 1] != '.') return false;
    --digits_end;
    size_t digits = digits_end;
    while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
    if (digits == digits_end || digits < 7 || name.compare(digits - 7, 7, "layers.") != 0) return false;
    if (digits_end - digits > 4) throw ToolError("tensor " + name + ": layer index too large");
    *prefix = name.substr(0, digits);
    *index = std::stoul(name.substr(digits, digits_end - digits));
    return true;
}

void find_layer_stacks(const TensorMap& tensors, std::vector<LayerStack>* encoders, std::vector<LayerStack>* decoders) {
    std::map<std::string, std::set<size_t>> stacks;
    for (const auto& [name, t] : tensors) {
        std::string prefix;
        size_t index = 0;
        if (split_layer_name(name, "self_attn.in_proj_weight", &prefix, &index)) stacks[prefix].insert(index);
    }
    for (const auto& [prefix, indices] : stacks) {
        LayerStack s{prefix, indices.size()};
        if (*indices.rbegin() + 1 != indices.size())
            throw ToolError("layers under " + prefix + " are not numbered 0.." + std::to_string(indices.size() - 1));
        (tensors.count(prefix + "0.multihead_attn.in_proj_weight") ? decoders : encoders)->push_back(s);
    }
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

void add_tensor(CheckpointTensors& ck, AxmModel& m, Role role, const std::string& name,
                const std::vector<int64_t>& shape, uint16_t layer) {
    m.tensors.push_back(make_tensor(role, layer, name, ck.take(name, shape)));
}

void add_linear(CheckpointTensors& ck, AxmModel& m, Role weight, const std::string& module, int64_t out, int64_t in,
                uint16_t layer) {
    add_tensor(ck, m, weight, module + ".weight", {out, in}, layer);
    add_tensor(ck, m, static_cast<Role>(static_cast<uint16_t>(weight) + 1), module + ".bias", {out}, layer);
}

void check_stated(const std::optional<int64_t>& stated, int64_t actual, format::ConfigKey key,
                  const std::string& tensor, const std::vector<int64_t>& shape) {
    check_stated(stated, actual, config_key_name(key).c_str(), tensor, shape);
}

void check_stated(const std::optional<int64_t>& stated, int64_t actual, const char* key, const std::string& tensor,
                  const std::vector<int64_t>& shape) {
    if (stated && *stated != actual)
        throw ToolError(std::string("config \"") + key + "\" = " + std::to_string(*stated) + " contradicts tensor " +
                        tensor + " of shape " + shape_text(shape) + " (which gives " + std::to_string(actual) + ")");
}

namespace {

std::string describe_stacks(const std::vector<LayerStack>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x.prefix;
    return s.empty() ? std::string("none") : s;
}

}  // namespace

namespace {

// Whether a layer's tensors hold PyTorch's initial values where training would move them: LayerNorm gains 1
// and shifts 0, attention biases 0. A layer the forward ran through in training has moved them all.
bool untouched_since_init(const TensorMap& tensors, const std::string& group) {
    for (const char* suffix : kLayerTensors) {
        auto it = tensors.find(group + suffix);
        if (it == tensors.end()) continue;
        const std::string s = suffix;
        const bool norm_gain = s.compare(0, 4, "norm") == 0 && s.find("weight") != std::string::npos;
        const bool zero = s.find("bias") != std::string::npos && s.compare(0, 6, "linear") != 0;
        if (!norm_gain && !zero) continue;
        for (float v : it->second.data)
            if (v != (norm_gain ? 1.0f : 0.0f)) return false;
    }
    return true;
}

}  // namespace

void leave_out_stray_layers(CheckpointTensors& ck, AxmModel& m) {
    std::set<std::string> groups;
    for (const auto& [name, t] : ck.all()) {
        const std::string suffix = "self_attn.in_proj_weight";
        std::string prefix;
        size_t index = 0;
        if (ck.used(name) || name.size() < suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
            split_layer_name(name, suffix, &prefix, &index))
            continue;
        groups.insert(name.substr(0, name.size() - suffix.size()));
    }
    for (const std::string& g : groups) {
        if (!untouched_since_init(ck.all(), g))
            throw ToolError("the checkpoint holds a Transformer layer " + g +
                            "* outside the layer stacks, trained "
                            "(its norms and biases moved from their initial values): auspex runs only the "
                            "nn.TransformerEncoder/Decoder stacks. If the forward does not use it, drop it with the "
                            "map line \"" +
                            g + "{rest*} -> -\"");
        size_t n = 0;
        for (const char* suffix : kLayerTensors)
            if (ck.has(g + suffix) && !ck.used(g + suffix)) {
                ck.mark_used(g + suffix);
                ++n;
            }
        m.notes.push_back("left out " + g + "* (" + std::to_string(n) +
                          " tensors): a Transformer layer outside the "
                          "layer stacks, at its initial values, that the forward cannot reach (a layer kept as an "
                          "attribute after nn.TransformerEncoder/Decoder copied it)");
    }
}

namespace {

// The value columns of attention `module` (every head's): d_model as nn.MultiheadAttention has them, or (attention
// written one head at a time with value heads of their own width) what its in_proj holds after the queries' and
// keys' 2 d_model rows, nhead heads of them, which its out_proj reads.
int64_t value_columns(const CheckpointTensors& ck, const std::string& module, int64_t d, int64_t nhead) {
    const std::string in = module + ".in_proj_weight", out = module + ".out_proj.weight";
    const int64_t values = ck.shape(in)[0] - 2 * d;
    if (values == d) return values;
    if (values % nhead != 0 || values > (int64_t{1} << 16))
        throw ToolError("tensor " + in + " has shape " + shape_text(ck.shape(in)) +
                        ", expected [3*d_model, d_model], or [2*d_model + nhead*value_dim, d_model] for value heads "
                        "of their own width (nhead " +
                        std::to_string(nhead) + ", nhead*value_dim at most 65536)");
    if (!ck.has(out) || ck.shape(out) != std::vector<int64_t>{d, values})
        throw ToolError("tensor " + in + " has shape " + shape_text(ck.shape(in)) + ": " + std::to_string(values) +
                        " value rows after the queries' and keys' (nhead " + std::to_string(nhead) +
                        " value heads of " + std::to_string(values / nhead) + "), so " + out + " must be [" +
                        std::to_string(d) + ", " + std::to_string(values) + "], not " +
                        (ck.has(out) ? shape_text(ck.shape(out)) : std::string("absent")));
    return values;
}

}  // namespace

StackShape import_stacks(CheckpointTensors& ck, AxmModel& m, const ConvertConfig& config, bool decoder_required,
                         bool decoder_allowed, const std::string& family) {
    std::vector<LayerStack> enc, dec;
    find_layer_stacks(ck.all(), &enc, &dec);
    const bool dec_ok = decoder_required ? dec.size() == 1 : decoder_allowed ? dec.size() <= 1 : dec.empty();
    if (enc.size() != 1 || !dec_ok)
        throw ToolError("a " + family + " needs one encoder layer stack" +
                        (decoder_required  ? std::string(" and one decoder layer stack")
                         : decoder_allowed ? std::string(" and at most one decoder layer stack")
                                           : std::string(" and no decoder")) +
                        " (tensors like encoder.layers.0.self_attn.in_proj_weight, "
                        "decoder.layers.0.multihead_attn.in_proj_weight); found encoder stacks: " +
                        describe_stacks(enc) + "; decoder stacks: " + describe_stacks(dec) +
                        " (a hand-written layout needs a rename map: convert --map FILE)");
    StackShape s;
    const LayerStack e = enc[0];
    const std::string first_in = e.prefix + "0.self_attn.in_proj_weight";
    const auto& in_shape = ck.shape(first_in);
    if (in_shape.size() != 2 || in_shape[1] < 1 || in_shape[0] <= 2 * in_shape[1])
        throw ToolError("tensor " + first_in + " has shape " + shape_text(in_shape) +
                        ", expected [3*d_model, d_model]");
    const int64_t d = in_shape[1];
    if (d < 1 || d > (1 << 16))
        throw ToolError("tensor " + first_in + " has shape " + shape_text(in_shape) + ": d_model must be 1..65536");
    check_stated(config.d_model, d, ConfigKey::d_model, first_in, in_shape);
    if (d % config.nhead != 0)
        throw ToolError("d_model " + std::to_string(d) + " (from " + first_in + ") is not a multiple of nhead " +
                        std::to_string(config.nhead));
    const int64_t values = value_columns(ck, e.prefix + "0.self_attn", d, config.nhead);
    check_stated(config.value_dim, values / config.nhead, ConfigKey::value_dim, first_in, in_shape);
    const std::string first_ff = e.prefix + "0.linear1.weight";
    if (!ck.has(first_ff) || ck.shape(first_ff).size() != 2)
        throw ToolError(ck.has(first_ff) ? "tensor " + first_ff + " has shape " + shape_text(ck.shape(first_ff)) +
                                               ", expected [dim_feedforward, d_model]"
                                         : ck.lacks_message(first_ff));
    const int64_t ff = ck.shape(first_ff)[0];
    if (ff < 1 || ff > (1 << 16))
        throw ToolError("tensor " + first_ff + " has shape " + shape_text(ck.shape(first_ff)) +
                        ": dim_feedforward must be 1..65536");
    check_stated(config.dim_feedforward, ff, ConfigKey::dim_feedforward, first_ff, ck.shape(first_ff));
    check_stated(config.num_encoder_layers, static_cast<int64_t>(e.count), ConfigKey::encoder_layers, first_in,
                 in_shape);
    s.d_model = d;
    s.values = values;
    s.dim_feedforward = ff;
    s.encoder_layers = e.count;
    s.encoder_root = e.root();
    if (!dec.empty()) {
        s.decoder_layers = dec[0].count;
        s.decoder_root = dec[0].root();
        check_stated(config.num_decoder_layers, static_cast<int64_t>(dec[0].count), ConfigKey::decoder_layers,
                     dec[0].prefix + "0.self_attn.in_proj_weight", in_shape);
    } else if (config.num_decoder_layers && *config.num_decoder_layers != 0) {
        throw ToolError("config \"num_decoder_layers\" = " + std::to_string(*config.num_decoder_layers) +
                        " but the checkpoint holds no decoder layers");
    }

    auto next = [](Role r, int k) { return static_cast<Role>(static_cast<uint16_t>(r) + k); };
    auto add_norm = [&](Role weight, uint16_t layer, const std::string& module) {
        add_tensor(ck, m, weight, module + ".weight", {d}, layer);
        add_tensor(ck, m, next(weight, 1), module + ".bias", {d}, layer);
    };
    // A layer's own norm: LayerNorm, or BatchNorm1d (custom layers such as mvts_transformer's keep the
    // names norm1/norm2). In evaluation mode BatchNorm is (x - mean) / sqrt(var + eps) * w + b per channel,
    // folded here into a scale (the gamma role) and a shift (the beta role); eps is layer_norm_eps.
    size_t batch_norms = 0, layer_norms = 0;
    auto add_layer_norm = [&](Role weight, uint16_t layer, const std::string& module) {
        if (!ck.has(module + ".running_mean")) {
            ++layer_norms;
            add_norm(weight, layer, module);
            return;
        }
        ++batch_norms;
        HostTensor scale = ck.take(module + ".weight", {d});
        HostTensor shift = ck.take(module + ".bias", {d});
        const HostTensor& mean = ck.take(module + ".running_mean", {d});
        const HostTensor& var = ck.take(module + ".running_var", {d});
        if (ck.has(module + ".num_batches_tracked")) ck.mark_used(module + ".num_batches_tracked");
        for (int64_t j = 0; j < d; ++j) {
            if (!(var.data[j] >= 0.0f))
                throw ToolError("BatchNorm " + module + ".running_var holds a negative or NaN variance");
            const double inv = 1.0 / std::sqrt(static_cast<double>(var.data[j]) + config.layer_norm_eps);
            const double w = scale.data[j];
            scale.data[j] = static_cast<float>(w * inv);
            shift.data[j] = static_cast<float>(shift.data[j] - mean.data[j] * w * inv);
        }
        m.tensors.push_back(make_tensor(weight, layer, module + ".weight", scale));
        m.tensors.push_back(make_tensor(next(weight, 1), layer, module + ".bias", shift));
    };
    auto add_attention = [&](Role in_weight, uint16_t layer, const std::string& module) {
        add_tensor(ck, m, in_weight, module + ".in_proj_weight", {2 * d + values, d}, layer);
        add_tensor(ck, m, next(in_weight, 1), module + ".in_proj_bias", {2 * d + values}, layer);
        add_linear(ck, m, next(in_weight, 2), module + ".out_proj", d, values, layer);
        // A stored attention scale (PatchTST's sdp_attn.scale, a Parameter frozen at head_dim ** -0.5 unless its
        // lsa option learns it) must be the scale the runtime uses.
        if (ck.has(module + ".scale")) {
            const HostTensor& scale = ck.take(module + ".scale", {});
            const double want = 1.0 / std::sqrt(static_cast<double>(d / config.nhead));
            if (!(std::fabs(scale.data[0] - want) <= 1e-6 * want))
                throw ToolError(module + ".scale is " + std::to_string(scale.data[0]) + ", not head_dim ** -0.5 = " +
                                std::to_string(want) + ": a learned attention scale (PatchTST's lsa) is not supported");
        }
    };
    s.encoder_final_norm = ck.has(s.encoder_root + "norm.weight");
    if (s.encoder_final_norm) add_norm(Role::encoder_norm_weight, format::kNoLayer, s.encoder_root + "norm");
    if (!dec.empty()) {
        s.decoder_final_norm = ck.has(s.decoder_root + "norm.weight");
        if (s.decoder_final_norm) add_norm(Role::decoder_norm_weight, format::kNoLayer, s.decoder_root + "norm");
    }
    for (size_t i = 0; i < s.encoder_layers; ++i) {
        const uint16_t L = static_cast<uint16_t>(i);
        const std::string p = e.prefix + std::to_string(i) + ".";
        add_attention(Role::enc_attn_in_weight, L, p + "self_attn");
        add_linear(ck, m, Role::enc_ff1_weight, p + "linear1", ff, d, L);
        add_linear(ck, m, Role::enc_ff2_weight, p + "linear2", d, ff, L);
        add_layer_norm(Role::enc_norm1_weight, L, p + "norm1");
        add_layer_norm(Role::enc_norm2_weight, L, p + "norm2");
    }
    for (size_t i = 0; i < s.decoder_layers; ++i) {
        const uint16_t L = static_cast<uint16_t>(i);
        const std::string p = dec[0].prefix + std::to_string(i) + ".";
        add_attention(Role::dec_attn_in_weight, L, p + "self_attn");
        add_attention(Role::dec_cross_in_weight, L, p + "multihead_attn");
        add_linear(ck, m, Role::dec_ff1_weight, p + "linear1", ff, d, L);
        add_linear(ck, m, Role::dec_ff2_weight, p + "linear2", d, ff, L);
        add_layer_norm(Role::dec_norm1_weight, L, p + "norm1");
        add_layer_norm(Role::dec_norm2_weight, L, p + "norm2");
        add_layer_norm(Role::dec_norm3_weight, L, p + "norm3");
    }
    if (batch_norms != 0 && layer_norms != 0)
        throw ToolError("the layers mix BatchNorm (" + std::to_string(batch_norms) +
                        " norms with running statistics) "
                        "and LayerNorm (" +
                        std::to_string(layer_norms) + "): auspex runs one kind in every layer");
    s.batch_norm = batch_norms != 0;
    leave_out_stray_layers(ck, m);
    return s;
}

void add_stack_config(AxmModel& m, const StackShape& s, const ConvertConfig& config) {
    auto u = [](int64_t v) { return static_cast<uint32_t>(v); };
    const std::vector<std::pair<ConfigKey, uint32_t>> records = {
        {ConfigKey::d_model, u(s.d_model)},
        {ConfigKey::nhead, u(config.nhead)},
        {ConfigKey::dim_feedforward, u(s.dim_feedforward)},
        {ConfigKey::encoder_layers, u(static_cast<int64_t>(s.encoder_layers))},
        {ConfigKey::decoder_layers, u(static_cast<int64_t>(s.decoder_layers))},
        {ConfigKey::activation, static_cast<uint32_t>(config.activation)},
        {ConfigKey::norm_first, config.norm_first ? 1u : 0u},
        {ConfigKey::layer_norm_eps, float_to_bits(static_cast<float>(config.layer_norm_eps))},
        {ConfigKey::encoder_final_norm, s.encoder_final_norm ? 1u : 0u},
        {ConfigKey::decoder_final_norm, s.decoder_final_norm ? 1u : 0u},
    };
    m.config.insert(m.config.end(), records.begin(), records.end());
    // Written only for BatchNorm layers, so that LayerNorm models read exactly as files from before the key.
    if (s.batch_norm) m.config.push_back({ConfigKey::layer_norms, 1u});
    // Written only for value heads of their own width: other models' files are as before the key, and a runtime
    // from before it refuses these (their projections' shapes are not [3 d_model, d_model], [d_model, d_model]).
    if (s.values != s.d_model) m.config.push_back({ConfigKey::value_dim, u(s.values / config.nhead)});
}

std::optional<int64_t> nhead_from_scale(const TensorMap& tensors) {
    const std::string suffix = ".self_attn.scale";
    for (const auto& [name, t] : tensors) {
        if (name.size() <= suffix.size() || name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0 ||
            t.data.size() != 1 || !(t.data[0] > 0.0f))
            continue;
        const auto weights = tensors.find(name.substr(0, name.size() - 5) + "in_proj_weight");
        if (weights == tensors.end() || weights->second.shape.size() != 2) continue;
        const int64_t d = weights->second.shape[1];
        const double head_dim = 1.0 / (static_cast<double>(t.data[0]) * t.data[0]);
        const int64_t rounded = std::llround(head_dim);
        if (rounded > 0 && std::fabs(head_dim - static_cast<double>(rounded)) < 1e-3 * head_dim && d % rounded == 0)
            return d / rounded;
    }
    return std::nullopt;
}

std::vector<std::string> find_linear_modules(const CheckpointTensors& ck) {
    std::vector<std::string> modules;
    for (const auto& [name, t] : ck.all()) {
        if (ck.used(name)) continue;
        const size_t dot = name.rfind(".weight");
        if (dot == std::string::npos || dot + 7 != name.size() || t.shape.size() != 2) continue;
        const std::string module = name.substr(0, dot);
        if (ck.has(module + ".bias") && ck.shape(module + ".bias").size() == 1) modules.push_back(module);
    }
    return modules;
}

bool is_sinusoidal_table(const HostTensor& t, int64_t d, bool* row0_zero, int64_t* rows) {
    if (t.shape.empty() || t.shape.back() != d || d < 2) return false;
    const int64_t n = static_cast<int64_t>(t.data.size()) / d;
    // [L, d], [L, 1, d] or [1, L, d] all store row p at p * d.
    for (size_t i = 0; i + 1 < t.shape.size(); ++i)
        if (t.shape[i] != n && t.shape[i] != 1) return false;
    if (n < 2) return false;
    auto pe = [&](int64_t pos, int64_t i) {
        const double div = std::exp(static_cast<double>(i - i % 2) * (-std::log(10000.0) / d));
        return i % 2 == 0 ? std::sin(pos * div) : std::cos(pos * div);
    };
    bool zero = true, pe0 = true;
    for (int64_t i = 0; i < d; ++i) {
        zero = zero && t.data[i] == 0.0f;
        pe0 = pe0 && std::fabs(t.data[i] - pe(0, i)) <= 1e-3;
    }
    if (!zero && !pe0) return false;
    for (int64_t pos = 1; pos < n && pos < 128; ++pos)
        for (int64_t i = 0; i < d; ++i)
            if (std::fabs(t.data[pos * d + i] - pe(pos, i)) > 1e-3) return false;
    *row0_zero = zero;
    *rows = n;
    return true;
}

bool name_has(const std::string& name, std::initializer_list<const char*> words) {
    for (const char* w : words)
        if (name.find(w) != std::string::npos) return true;
    return false;
}

float embed_scale_value(const ConvertConfig& config, int64_t d, float fallback) {
    if (config.embed_scale_sqrt_d) return static_cast<float>(std::sqrt(static_cast<double>(d)));
    if (config.embed_scale) return static_cast<float>(*config.embed_scale);
    return fallback;
}

uint32_t token_id(const std::optional<int64_t>& id, int64_t vocab, format::ConfigKey key) {
    if (!id) return format::kNoToken;
    if (*id >= vocab)
        throw ToolError("config \"" + config_key_name(key) + "\" = " + std::to_string(*id) +
                        " is outside the vocabulary of " + std::to_string(vocab) + " tokens");
    return static_cast<uint32_t>(*id);
}

const std::initializer_list<const char*> kSourceWords = {"src", "source", "enc", "input"};
const std::initializer_list<const char*> kTargetWords = {"tgt", "trg", "target", "dec", "output"};

int64_t TokenTables::sinusoidal_rows() const {
    int64_t rows = 0;
    for (const SinusoidalTable& t : sinusoidal)
        if (rows == 0 || t.rows < rows) rows = t.rows;
    return rows;
}

TokenTables find_token_tables(CheckpointTensors& ck, int64_t d) {
    TokenTables t;
    for (const auto& [name, tensor] : ck.all()) {
        if (ck.used(name) || tensor.shape.empty() || tensor.shape.back() != d) continue;
        const bool weight = name.size() > 7 && name.compare(name.size() - 7, 7, ".weight") == 0;
        const std::string module = weight ? name.substr(0, name.size() - 7) : name;
        if (weight && ck.has(module + ".bias")) continue;  // a Linear or LayerNorm
        SinusoidalTable table;
        if (is_sinusoidal_table(tensor, d, &table.row0_zero, &table.rows)) {
            table.name = name;
            table.embedding = weight && tensor.shape.size() == 2;
            if (!t.sinusoidal.empty() && t.sinusoidal[0].row0_zero != table.row0_zero)
                throw ToolError("sinusoidal tables " + t.sinusoidal[0].name + " and " + name +
                                " differ in row 0 (one is zero, the other PE(0)): the runtime gives both sides "
                                "one positional encoding");
            if (t.sinusoidal.size() == 2)
                throw ToolError("three sinusoidal tables: " + t.sinusoidal[0].name + ", " + t.sinusoidal[1].name +
                                " and " + name + " (at most one for the encoder and one for the decoder)");
            t.sinusoidal.push_back(table);
            ck.mark_used(name);
        } else if (weight && tensor.shape.size() == 2) {
            (name_has(module, {"pos"}) ? t.positions : t.tokens).push_back(name);
        }
    }
    return t;
}

std::string pick_by_words(const std::vector<std::string>& names, std::initializer_list<const char*> yes,
                          std::initializer_list<const char*> no) {
    std::string found;
    for (const std::string& n : names) {
        if (!name_has(n, yes) || name_has(n, no)) continue;
        if (!found.empty()) return "";
        found = n;
    }
    return found;
}

namespace {

// What each "positional_encoding" value means, for the messages that ask the user to choose.
const char* const kSinusoidalFrom0 =
    "\"sinusoidal\" (the first token gets row 0 = PE(0), as a `pe` buffer added as pe[:L])";
const char* const kSinusoidalFrom1 =
    "\"sinusoidal_pad0\" (tokens get rows 1..L and pads row 0, as nn.Embedding.from_pretrained("
    "get_sinusoid_encoding_table(n_seq + 1, d)) indexed with arange(1, L + 1) and pads set to 0)";

}  // namespace

format::PositionalEncoding decide_positions(const ConvertConfig& config, const TokenTables& t, int64_t d,
                                            size_t min_learned, size_t max_learned, int64_t* max_positions,
                                            std::vector<std::string>* unproven) {
    using PE = format::PositionalEncoding;
    const SinusoidalTable* table = t.sinusoidal.empty() ? nullptr : &t.sinusoidal[0];
    PE mode = PE::none;
    if (config.positional_encoding) {
        // The table's row 0 tells the two pads-at-row-0 variants apart; a config names either as pad0.
        mode =
            *config.positional_encoding == PE::sinusoidal_pad_pe0 ? PE::sinusoidal_pad0 : *config.positional_encoding;
    } else if (!t.positions.empty()) {
        mode = PE::learned;
    } else if (table && table->row0_zero) {
        mode = PE::sinusoidal_pad0;
    } else if (table) {
        for (const SinusoidalTable& s : t.sinusoidal)
            if (s.embedding)
                throw ToolError("tensor " + s.name +
                                " is a sinusoidal table held by an nn.Embedding: whether the "
                                "model looks it up from position 0 or from 1 cannot be told from its values. Say "
                                "which in the config: \"positional_encoding\": " +
                                kSinusoidalFrom0 + ", or " + kSinusoidalFrom1);
        mode = PE::sinusoidal;
    }
    auto refuse = [&](const std::string& what) {
        throw ToolError("the config says \"positional_encoding\": \"" + enum_text(mode) +
                        "\" but the checkpoint holds " + what);
    };
    *max_positions = 0;
    if (mode != PE::learned && !t.positions.empty())
        refuse("the learned position table " + t.positions[0] + " (\"learned\": rows 0..L-1 are added to the tokens)");
    if (table && mode != PE::sinusoidal && mode != PE::sinusoidal_pad0)
        refuse("the sinusoidal table " + table->name + "; the choices for it are " + kSinusoidalFrom0 + " and " +
               kSinusoidalFrom1);
    if (table && mode == PE::sinusoidal && table->row0_zero)
        refuse("the sinusoidal table " + table->name +
               " whose row 0 is zero, a padding row: a model indexing it "
               "from 0 would give its first token nothing; if the model looks it up from 1 with pads at 0, say " +
               kSinusoidalFrom1);
    if ((mode == PE::sinusoidal || mode == PE::sinusoidal_pad0) && d % 2 != 0)
        throw ToolError("sinusoidal positions need an even d_model, got " + std::to_string(d));
    if (mode == PE::sinusoidal && table && unproven)
        for (const SinusoidalTable& s : t.sinusoidal)
            if (s.embedding)
                unproven->push_back(
                    "the config says \"positional_encoding\": \"sinusoidal\" but the checkpoint holds " + s.name +
                    ", a sinusoidal table in an nn.Embedding: a table looked up by index is the layout of models "
                    "that give pads position 0, " +
                    kSinusoidalFrom1 +
                    "; its values cannot show a model that looks it up from 0 instead. Give a check pair "
                    "(--check-input, --check-output) to prove \"sinusoidal\", or --find-config to try both");
    if (mode == PE::sinusoidal) {
        *max_positions = t.sinusoidal_rows();
        return PE::sinusoidal;
    }
    if (mode == PE::sinusoidal_pad0) {
        *max_positions = table ? t.sinusoidal_rows() - 1 : 0;
        return table && !table->row0_zero ? PE::sinusoidal_pad_pe0 : PE::sinusoidal_pad0;
    }
    if (mode == PE::learned) {
        if (t.positions.size() < min_learned || t.positions.size() > max_learned)
            throw ToolError("learned positions need " + std::to_string(min_learned) +
                            (max_learned > min_learned ? " or " + std::to_string(max_learned) : std::string()) +
                            " position table(s) (nn.Embedding(max_len, d_model) named with \"pos\"); found " +
                            name_list(t.positions));
        return PE::learned;
    }
    return PE::none;
}

int64_t max_positions_of(const ConvertConfig& config, int64_t from_tables, const char* table) {
    if (!config.max_positions) return from_tables;
    if (from_tables != 0 && *config.max_positions != from_tables)
        throw ToolError("config \"max_positions\" = " + std::to_string(*config.max_positions) + " contradicts the " +
                        table + "'s " + std::to_string(from_tables) + " positions");
    return from_tables != 0 ? from_tables : *config.max_positions;
}

void set_key_record(AxmModel& m, const ConfigKeySpec& row, bool stated, uint32_t value) {
    const format::ConfigKey key = *row.record;
    bool written = stated && !(row.unwritten && *row.unwritten == value);
    if (row.unwritten_same_as)
        for (const auto& [k, v] : m.config) written = written && !(k == *row.unwritten_same_as && v == value);
    auto at = std::find_if(m.config.begin(), m.config.end(), [&](const auto& r) { return r.first == key; });
    if (!written) {
        if (at != m.config.end()) m.config.erase(at);
    } else if (at != m.config.end()) {
        at->second = value;
    } else {
        m.config.emplace_back(key, value);
    }
}

void write_described(const ConvertConfig& config, AxmModel& m) {
    for (const auto& [key, value] : config.described)
        set_key_record(m, *find_config_key(config_key_name(key)), true, value);
}

std::vector<uint8_t> config_record_bytes(const AxmModel& m) {
    std::vector<uint8_t> bytes;
    auto put = [&bytes](uint32_t v) {
        for (int i = 0; i < 4; ++i) bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
    };
    for (const auto& [key, value] : m.config) {
        put(static_cast<uint32_t>(key));
        put(value);
    }
    return bytes;
}

}  // namespace ax::tools
