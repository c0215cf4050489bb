#include "tools/import/convert_config.h"

#include <cmath>

#include "tools/common/did_you_mean.h"
#include "tools/import/config_scope.h"
#include "tools/text/json.h"
#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

template <typename E>
E one_of(const JsonValue& v, const std::string& context) {
    return parse_enum_text<E>(v.as_string(context), context);
}

std::vector<float> float_list(const JsonValue& v, const std::string& context) {
    std::vector<float> out;
    for (const JsonValue& item : v.as_array(context)) {
        const double x = item.as_number(context);
        if (!std::isfinite(x) || std::fabs(x) > 3.0e38) throw ToolError(context + ": values must be finite floats");
        out.push_back(static_cast<float>(x));
    }
    return out;
}

// Names that a CSV header can hold and a model stores: non-empty, unique, without line breaks or control
// characters, not padded with spaces (the CSV reader trims those).
std::vector<std::string> feature_list(const JsonValue& v, const std::string& context) {
    std::vector<std::string> out;
    for (const JsonValue& item : v.as_array(context)) {
        const std::string& name = item.as_string(context);
        if (name.empty() || name.front() == ' ' || name.back() == ' ')
            throw ToolError(context + ": \"" + name + "\" is empty or starts or ends with a space");
        for (char ch : name)
            if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7F)
                throw ToolError(context + ": \"" + name + "\" holds a control character or line break");
        for (const std::string& earlier : out)
            if (earlier == name) throw ToolError(context + ": \"" + name + "\" is listed twice");
        out.push_back(name);
    }
    if (out.empty()) throw ToolError(context + ": the list is empty");
    return out;
}

NormalizationSpec parse_normalization(const JsonValue& v, const std::string& context) {
    NormalizationSpec n;
    for (const auto& [key, value] : v.as_object(context)) {
        const std::string where = context + "." + key;
        if (key == "mode")
            n.mode = one_of<format::Normalization>(value, where);
        else if (key == "mean")
            n.mean = float_list(value, where);
        else if (key == "scale")
            n.scale = float_list(value, where);
        else
            throw ToolError(context + ": unknown key \"" + key + "\"" + did_you_mean(key, {"mode", "mean", "scale"}) +
                            " (expected mode, mean, scale)");
    }
    if (n.mode == format::Normalization::global && (n.mean.empty() || n.scale.empty()))
        throw ToolError(context + ": mode \"global\" needs \"mean\" and \"scale\" lists");
    if (n.mode == format::Normalization::last_value && (n.scale.empty() || !n.mean.empty()))
        throw ToolError(context + ": mode \"last_value\" needs \"scale\" and takes no \"mean\"");
    for (float s : n.scale)
        if (s == 0.0f) throw ToolError(context + ".scale: a scale of 0 would divide by zero");
    return n;
}

}  // namespace

ConvertConfig parse_convert_config(const JsonValue& root, const std::string& source) {
    ConvertConfig c;
    bool have_nhead = false, have_arch = false;
    constexpr int64_t kBig = 1 << 20;
    for (const auto& [key, v] : root.as_object(source)) {
        const std::string where = source + ": \"" + key + "\"";
        c.stated.insert(key);
        c.keys.push_back(key);
        if (key == "arch") {
            c.arch = one_of<format::Family>(v, where);
            have_arch = true;
        } else if (key == "nhead") {
            c.nhead = v.as_int(where, 1, kBig);
            have_nhead = true;
        } else if (key == "activation") {
            c.activation = one_of<format::Activation>(v, where);
        } else if (key == "norm_first") {
            c.norm_first = v.as_bool(where);
        } else if (key == "layer_norm_eps") {
            c.layer_norm_eps = v.as_number(where);
            if (!(c.layer_norm_eps > 0.0) || c.layer_norm_eps > 1.0) throw ToolError(where + " must be in (0, 1]");
        } else if (key == "positional_encoding") {
            c.positional_encoding = one_of<format::PositionalEncoding>(v, where);
        } else if (key == "memory_mask") {
            c.memory_mask = one_of<format::MemoryMask>(v, where);
        } else if (key == "normalization") {
            c.normalization = parse_normalization(v, where);
        } else if (key == "d_model") {
            c.d_model = v.as_int(where, 1, kBig);
        } else if (key == "dim_feedforward") {
            c.dim_feedforward = v.as_int(where, 1, kBig);
        } else if (key == "num_encoder_layers") {
            c.num_encoder_layers = v.as_int(where, 1, 256);
        } else if (key == "num_decoder_layers") {
            c.num_decoder_layers = v.as_int(where, 0, 256);
        } else if (key == "n_features") {
            c.n_features = v.as_int(where, 1, kBig);
        } else if (key == "n_outputs") {
            c.n_outputs = v.as_int(where, 1, kBig);
        } else if (key == "pad_id") {
            c.pad_id = v.as_int(where, 0, kBig);
        } else if (key == "bos_id") {
            c.bos_id = v.as_int(where, 0, kBig);
        } else if (key == "eos_id") {
            c.eos_id = v.as_int(where, 0, kBig);
        } else if (key == "start_id") {
            c.start_id = v.as_int(where, 0, kBig);
        } else if (key == "embed_scale") {
            if (v.is_string()) {
                if (v.as_string(where) != "sqrt_d_model")
                    throw ToolError(where + ": \"" + v.as_string(where) + "\" is not one of \"sqrt_d_model\"");
                c.embed_scale_sqrt_d = true;
            } else {
                c.embed_scale = v.as_number(where);
                if (!(*c.embed_scale > 0.0) || *c.embed_scale > 1e6)
                    throw ToolError(where + " must be \"sqrt_d_model\" or a number in (0, 1e6]");
            }
        } else if (key == "pooling") {
            c.pooling = one_of<format::Pooling>(v, where);
        } else if (key == "decode_mask_pads") {
            c.decode_mask_pads = v.as_bool(where);
        } else if (key == "output_activation") {
            c.output_activation = one_of<format::OutputActivation>(v, where);
        } else if (key == "src_vocab") {
            c.src_vocab = v.as_int(where, 1, kBig);
        } else if (key == "tgt_vocab") {
            c.tgt_vocab = v.as_int(where, 1, kBig);
        } else if (key == "n_labels") {
            c.n_labels = v.as_int(where, 1, kBig);
        } else if (key == "latent_size") {
            c.latent_size = v.as_int(where, 1, kBig);
        } else if (key == "max_positions") {
            c.max_positions = v.as_int(where, 1, kBig);
        } else if (key == "window") {
            c.window = v.as_int(where, 1, kBig);
        } else if (key == "features") {
            c.features = feature_list(v, where);
        } else if (key == "outputs") {
            c.outputs = feature_list(v, where);
        } else if (key == "decoder_positional_encoding") {
            c.decoder_positional_encoding = one_of<format::PositionalEncoding>(v, where);
        } else if (key == "head") {
            c.head = one_of<format::ForecastHead>(v, where);
        } else if (key == "encoder_mask") {
            c.encoder_mask = one_of<format::EncoderMask>(v, where);
        } else if (key == "input_embedding") {
            c.input_embedding = one_of<format::InputEmbedding>(v, where);
        } else if (key == "decoding") {
            c.decoding = one_of<format::Decoding>(v, where);
        } else if (key == "placeholder") {
            c.placeholder = one_of<format::Placeholder>(v, where);
        } else if (key == "head_activation") {
            c.head_activation = one_of<format::Activation>(v, where);
        } else if (key == "horizon") {
            c.horizon = v.as_int(where, 1, kBig);
        } else if (key == "label_len") {
            c.label_len = v.as_int(where, 0, kBig);
        } else if (key == "dropout" || key == "batch_first" || key == "comment") {
            // Training-only or informational: accepted so that configs written for PyTorch still load.
        } else {
            throw ToolError(source + ": unknown config key \"" + key + "\"" + did_you_mean(key, known_config_keys()));
        }
    }
    if (!have_arch) throw ToolError(source + ": missing \"arch\" (e.g. \"forecaster\")");
    if (!have_nhead) throw ToolError(source + ": missing \"nhead\" (it cannot be read off the tensor shapes)");
    return c;
}

ConvertConfig read_convert_config(const std::string& path) { return parse_convert_config(parse_json_file(path), path); }

}  // namespace ax::tools
