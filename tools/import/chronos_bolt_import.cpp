#include "tools/import/chronos_bolt_import.h"

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <sys/stat.h>

#include "tools/common/tool_error.h"
#include "tools/text/json.h"

namespace ax::tools {
namespace {

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ToolError("cannot read " + path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool is_directory(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string shape_string(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

// The config's integer `key`, required, within [lo, hi].
size_t int_key(const JsonValue& obj, const std::string& key, const std::string& where, int64_t lo, int64_t hi) {
    const JsonValue* v = obj.find(key);
    if (!v) throw ToolError(where + " lacks \"" + key + "\", which a Chronos-Bolt config states");
    return static_cast<size_t>(v->as_int(where + " \"" + key + "\"", lo, hi));
}

// Hands out tensors by name with their shapes checked, and remembers which were taken.
class Taker {
public:
    explicit Taker(const TensorMap& t) : t_(t) {}
    HostTensor take(const std::string& name, std::vector<int64_t> shape) {
        auto it = t_.find(name);
        if (it == t_.end())
            throw ToolError("model.safetensors lacks " + name + " " + shape_string(shape) +
                            ", which every Chronos-Bolt checkpoint of this config holds: is the file complete and "
                            "from the same model as config.json?");
        if (it->second.shape != shape)
            throw ToolError("model.safetensors: " + name + " is " + shape_string(it->second.shape) +
                            ", config.json's "
                            "sizes make it " +
                            shape_string(shape) + ": the two files are from different models");
        for (float x : it->second.data)
            if (!std::isfinite(x)) throw ToolError("model.safetensors: " + name + " holds a NaN or infinite value");
        used_.insert(name);
        return it->second;
    }
    // Tied copies Hugging Face may write beside "shared.weight" (and the unused lm_head): taken if present.
    void allow(const std::string& name) { used_.insert(name); }
    void check_all_used() const {
        std::string left;
        size_t n = 0;
        for (const auto& [name, t] : t_) {
            if (used_.count(name)) continue;
            if (n++ < 8) left += (left.empty() ? "" : ", ") + name + " " + shape_string(t.shape);
        }
        if (n)
            throw ToolError("model.safetensors holds tensors that are no part of Chronos-Bolt: " + left +
                            (n > 8 ? ", ... (" + std::to_string(n) + " in all)" : std::string()) +
                            "; a model with other parts is another architecture");
    }

private:
    const TensorMap& t_;
    std::set<std::string> used_;
};

T5AttentionTensors take_attention(Taker& t, const std::string& p, const ChronosBoltConfig& c) {
    const auto d = static_cast<int64_t>(c.d_model), inner = static_cast<int64_t>(c.inner());
    T5AttentionTensors a;
    a.q = t.take(p + ".q.weight", {inner, d});
    a.k = t.take(p + ".k.weight", {inner, d});
    a.v = t.take(p + ".v.weight", {inner, d});
    a.o = t.take(p + ".o.weight", {d, inner});
    return a;
}

ResidualMlpTensors take_mlp(Taker& t, const std::string& p, size_t in, size_t hidden, size_t out) {
    const auto i = static_cast<int64_t>(in), h = static_cast<int64_t>(hidden), o = static_cast<int64_t>(out);
    ResidualMlpTensors m;
    m.hidden_weight = t.take(p + ".hidden_layer.weight", {h, i});
    m.hidden_bias = t.take(p + ".hidden_layer.bias", {h});
    m.output_weight = t.take(p + ".output_layer.weight", {o, h});
    m.output_bias = t.take(p + ".output_layer.bias", {o});
    m.residual_weight = t.take(p + ".residual_layer.weight", {o, i});
    m.residual_bias = t.take(p + ".residual_layer.bias", {o});
    return m;
}

}  // namespace

bool is_chronos_bolt_directory(const std::string& path) {
    if (!is_directory(path)) return false;
    std::ifstream probe(path + "/config.json");
    if (!probe) return false;
    try {
        const JsonValue root = parse_json(read_text(path + "/config.json"), path + "/config.json");
        const JsonValue* type = root.find("model_type");
        return type && type->is_string() && type->as_string("model_type") == "t5" && root.find("chronos_config");
    } catch (const ToolError&) {
        return false;
    }
}

ChronosBoltConfig parse_chronos_bolt_config(const std::string& json_text, const std::string& source) {
    const JsonValue root = parse_json(json_text, source);
    if (!root.is_object()) throw ToolError(source + ": expected a JSON object");
    const JsonValue* type = root.find("model_type");
    if (!type || !type->is_string() || type->as_string("model_type") != "t5")
        throw ToolError(source +
                        ": model_type is not \"t5\"; auspex reads Chronos-Bolt's published directory (a T5 "
                        "config with a chronos_config), not other Hugging Face models");
    const JsonValue* cc = root.find("chronos_config");
    if (!cc || !cc->is_object())
        throw ToolError(source + " has no chronos_config object: a plain T5 model, not Chronos-Bolt");
    if (const JsonValue* arch = root.find("architectures")) {
        bool bolt = false;
        for (const JsonValue& a : arch->as_array(source + " \"architectures\""))
            bolt = bolt || (a.is_string() && a.as_string("architectures") == "ChronosBoltModelForForecasting");
        if (!bolt)
            throw ToolError(source +
                            ": architectures does not name ChronosBoltModelForForecasting; the original "
                            "Chronos (token sampling, chronos-t5-*) is another model that auspex does not run");
    }
    const std::string ccw = source + " chronos_config";
    ChronosBoltConfig c;
    const bool gated = root.find("is_gated_act") && root.find("is_gated_act")->as_bool(source + " \"is_gated_act\"");
    std::string proj = root.find("feed_forward_proj") ? root.find("feed_forward_proj")->as_string("feed_forward_proj")
                                                      : std::string("relu");
    const bool gated_proj = proj.rfind("gated-", 0) == 0;
    // Transformers' T5Config: "gated-ACT" sets is_gated_act and dense_act_fn ACT ("gated-gelu": gelu_new).
    const std::string implied = proj == "gated-gelu" ? "gelu_new" : gated_proj ? proj.substr(6) : proj;
    std::string act = root.find("dense_act_fn") ? root.find("dense_act_fn")->as_string("dense_act_fn") : implied;
    if (gated != gated_proj || (gated && act != implied))
        throw ToolError(source + ": feed_forward_proj \"" + proj + "\", is_gated_act " + (gated ? "true" : "false") +
                        " and dense_act_fn \"" + act +
                        "\" disagree: a gated feed-forward states \"gated-ACT\", true and ACT (gated-gelu: gelu_new)");
    c.gated = gated;
    if (act == "relu")
        c.activation = format::Activation::relu;
    else if (act == "gelu")
        c.activation = format::Activation::gelu;
    else if (act == "gelu_new" || act == "gelu_pytorch_tanh")
        c.activation = format::Activation::gelu_tanh;
    else
        throw ToolError(source + ": dense_act_fn \"" + act + "\" is not one auspex computes (relu, gelu, gelu_new)");
    c.d_model = int_key(root, "d_model", source, 1, 1 << 14);
    c.d_ff = int_key(root, "d_ff", source, 1, 1 << 16);
    c.d_kv = int_key(root, "d_kv", source, 1, 1 << 12);
    c.num_heads = int_key(root, "num_heads", source, 1, 256);
    c.encoder_layers = int_key(root, "num_layers", source, 1, 256);
    c.decoder_layers =
        root.find("num_decoder_layers") ? int_key(root, "num_decoder_layers", source, 1, 256) : c.encoder_layers;
    c.num_buckets = int_key(root, "relative_attention_num_buckets", source, 4, 4096);
    c.max_distance = int_key(root, "relative_attention_max_distance", source, 2, 1 << 20);
    if (c.num_buckets % 4 != 0 || c.max_distance <= c.num_buckets / 4)
        throw ToolError(source + ": relative_attention_num_buckets " + std::to_string(c.num_buckets) +
                        " must be a multiple of 4 and relative_attention_max_distance " +
                        std::to_string(c.max_distance) + " above a quarter of it (T5's bucket rule)");
    if (const JsonValue* e = root.find("layer_norm_epsilon")) {
        const double eps = e->as_number(source + " \"layer_norm_epsilon\"");
        if (!(eps > 0 && eps < 1)) throw ToolError(source + ": layer_norm_epsilon must be in (0, 1)");
        c.eps = static_cast<float>(eps);
    }
    c.decoder_start_token_id =
        root.find("decoder_start_token_id") ? int_key(root, "decoder_start_token_id", source, 0, 1) : 0;
    c.context_length = int_key(*cc, "context_length", ccw, 1, 1 << 16);
    c.patch_size = int_key(*cc, "input_patch_size", ccw, 1, 4096);
    const size_t stride = int_key(*cc, "input_patch_stride", ccw, 1, 4096);
    if (stride != c.patch_size)
        throw ToolError(ccw + ": input_patch_stride " + std::to_string(stride) + " differs from input_patch_size " +
                        std::to_string(c.patch_size) + "; auspex runs non-overlapping patches only");
    c.prediction_length = int_key(*cc, "prediction_length", ccw, 1, 1 << 16);
    if (c.prediction_length > c.context_length)
        throw ToolError(ccw + ": prediction_length " + std::to_string(c.prediction_length) +
                        " exceeds context_length " + std::to_string(c.context_length) +
                        ": forecasts past one block append a block to the context, which must hold it");
    const JsonValue* qs = cc->find("quantiles");
    if (!qs) throw ToolError(ccw + " lacks \"quantiles\"");
    for (const JsonValue& q : qs->as_array(ccw + " \"quantiles\"")) {
        const double v = q.as_number(ccw + " \"quantiles\"");
        if (!(v > 0 && v < 1) || (!c.quantiles.empty() && v <= c.quantiles.back()))
            throw ToolError(ccw + ": quantiles must rise strictly within (0, 1)");
        c.quantiles.push_back(static_cast<float>(v));
    }
    if (c.quantiles.empty() || c.quantiles.size() > 64)
        throw ToolError(ccw + ": between 1 and 64 quantiles, found " + std::to_string(c.quantiles.size()));
    if (const JsonValue* r = cc->find("use_reg_token")) c.use_reg_token = r->as_bool(ccw + " \"use_reg_token\"");
    // The authors' model sets the [REG] token's id to 1 whenever it has one, whatever the config says.
    c.reg_token_id = 1;
    if (!c.use_reg_token && c.decoder_start_token_id != 0)
        throw ToolError(source + ": decoder_start_token_id must be 0 when there is no [REG] token (vocabulary of 1)");
    return c;
}

ChronosBoltCheckpoint chronos_bolt_from(const ChronosBoltConfig& c, const TensorMap& tensors) {
    Taker t(tensors);
    ChronosBoltCheckpoint out;
    out.config = c;
    ChronosBoltTensors& w = out.tensors;
    const auto d = static_cast<int64_t>(c.d_model), ff = static_cast<int64_t>(c.d_ff);
    const int64_t vocab = c.use_reg_token ? 2 : 1;
    w.shared = t.take("shared.weight", {vocab, d});
    for (const char* tied : {"encoder.embed_tokens.weight", "decoder.embed_tokens.weight", "lm_head.weight"})
        if (tensors.count(tied)) t.allow(tied);
    w.input_embedding = take_mlp(t, "input_patch_embedding", 2 * c.patch_size, c.d_ff, c.d_model);
    w.output_embedding =
        take_mlp(t, "output_patch_embedding", c.d_model, c.d_ff, c.quantiles.size() * c.prediction_length);
    const auto nb = static_cast<int64_t>(c.num_buckets), nh = static_cast<int64_t>(c.num_heads);
    w.encoder_relative_bias = t.take("encoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", {nb, nh});
    w.decoder_relative_bias = t.take("decoder.block.0.layer.0.SelfAttention.relative_attention_bias.weight", {nb, nh});
    for (size_t i = 0; i < c.encoder_layers; ++i) {
        const std::string p = "encoder.block." + std::to_string(i) + ".layer.";
        T5EncoderLayerTensors l;
        l.attention_norm = t.take(p + "0.layer_norm.weight", {d});
        l.self_attention = take_attention(t, p + "0.SelfAttention", c);
        l.ff_norm = t.take(p + "1.layer_norm.weight", {d});
        if (c.gated) {
            l.wi = t.take(p + "1.DenseReluDense.wi_0.weight", {ff, d});
            l.wi_gate = t.take(p + "1.DenseReluDense.wi_1.weight", {ff, d});
        } else {
            l.wi = t.take(p + "1.DenseReluDense.wi.weight", {ff, d});
        }
        l.wo = t.take(p + "1.DenseReluDense.wo.weight", {d, ff});
        w.encoder.push_back(std::move(l));
    }
    w.encoder_final_norm = t.take("encoder.final_layer_norm.weight", {d});
    for (size_t i = 0; i < c.decoder_layers; ++i) {
        const std::string p = "decoder.block." + std::to_string(i) + ".layer.";
        T5DecoderLayerTensors l;
        l.self_norm = t.take(p + "0.layer_norm.weight", {d});
        l.self_attention = take_attention(t, p + "0.SelfAttention", c);
        l.cross_norm = t.take(p + "1.layer_norm.weight", {d});
        l.cross_attention = take_attention(t, p + "1.EncDecAttention", c);
        l.ff_norm = t.take(p + "2.layer_norm.weight", {d});
        if (c.gated) {
            l.wi = t.take(p + "2.DenseReluDense.wi_0.weight", {ff, d});
            l.wi_gate = t.take(p + "2.DenseReluDense.wi_1.weight", {ff, d});
        } else {
            l.wi = t.take(p + "2.DenseReluDense.wi.weight", {ff, d});
        }
        l.wo = t.take(p + "2.DenseReluDense.wo.weight", {d, ff});
        w.decoder.push_back(std::move(l));
    }
    w.decoder_final_norm = t.take("decoder.final_layer_norm.weight", {d});
    t.check_all_used();
    return out;
}

ChronosBoltCheckpoint read_chronos_bolt(const std::string& directory) {
    if (!is_directory(directory)) throw ToolError(directory + " is not a directory");
    const std::string config_path = directory + "/config.json";
    const std::string weights_path = directory + "/model.safetensors";
    if (!std::ifstream(config_path))
        throw ToolError(directory +
                        " has no config.json: give the directory as published (config.json and "
                        "model.safetensors)");
    if (!std::ifstream(weights_path))
        throw ToolError(directory +
                        " has no model.safetensors (a pytorch_model.bin is not read here: save the "
                        "model with safe_serialization=True)");
    const ChronosBoltConfig c = parse_chronos_bolt_config(read_text(config_path), config_path);
    return chronos_bolt_from(c, read_safetensors(weights_path));
}

}  // namespace ax::tools
