#include "tools/import/config_keys.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <type_traits>

#include "runtime/bytes.h"
#include "tools/common/did_you_mean.h"
#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"
#include "tools/text/json.h"

namespace ax::tools {

namespace {

using format::ConfigKey;
using format::Family;

constexpr int64_t kBig = 1 << 20;
constexpr FamilySet kForecaster = family_bit(Family::forecaster), kSeq2Seq = family_bit(Family::seq2seq),
                    kClassifier = family_bit(Family::classifier), kTvae = family_bit(Family::tvae);
constexpr FamilySet kTokenFamilies = kSeq2Seq | kClassifier;

const char* const kFromTensors = "read off the tensors (a stated value must agree)";

template <typename T>
struct Plain {
    using type = T;
};
template <typename T>
struct Plain<std::optional<T>> {
    using type = T;
};

struct Range {
    int64_t lo = 1, hi = kBig;
};

// A field's value from JSON, by the field's type: true/false, one of an enum's names, a number, an integer.
template <typename T>
void read_value(const JsonValue& v, const std::string& where, Range r, T* out) {
    using P = typename Plain<T>::type;
    if constexpr (std::is_same_v<P, bool>)
        *out = v.as_bool(where);
    else if constexpr (std::is_enum_v<P>)
        *out = parse_enum_text<P>(v.as_string(where), where);
    else if constexpr (std::is_same_v<P, double>)
        *out = v.as_number(where);
    else
        *out = v.as_int(where, r.lo, r.hi);
}

template <typename T>
std::string kind_of(Range r) {
    using P = typename Plain<T>::type;
    if constexpr (std::is_same_v<P, bool>)
        return "true or false";
    else if constexpr (std::is_enum_v<P>)
        return enum_choices<P>();
    else if constexpr (std::is_same_v<P, double>)
        return "a number";
    else
        return "an integer " + std::to_string(r.lo) + ".." + std::to_string(r.hi);
}

std::string float_text(uint32_t bits) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", static_cast<double>(bits_to_float(bits)));
    return text;
}

// A record's value written as the config would state it, by the field's type.
template <typename T>
std::string record_text_of(uint32_t v) {
    using P = typename Plain<T>::type;
    if constexpr (std::is_same_v<P, bool>) {
        return v ? "true" : "false";
    } else if constexpr (std::is_enum_v<P>) {
        const char* name = format::enum_name(static_cast<P>(v));
        return name ? "\"" + std::string(name) + "\"" : std::to_string(v);
    } else if constexpr (std::is_same_v<P, double>) {
        return float_text(v);
    } else {
        return v == format::kNoToken ? "none" : std::to_string(v);
    }
}

// A value as its record holds it: an enum's number, 0 or 1, a float's bits, an integer.
template <typename P>
uint32_t record_value_of(P v) {
    if constexpr (std::is_same_v<P, bool>)
        return v ? 1u : 0u;
    else if constexpr (std::is_enum_v<P>)
        return static_cast<uint32_t>(v);
    else if constexpr (std::is_same_v<P, double>)
        return float_to_bits(static_cast<float>(v));
    else if constexpr (std::is_integral_v<P>)
        return static_cast<uint32_t>(v);
    else
        return 0;
}

// The type a described key's value has (Row(key, Described<T>{}, ...)).
template <typename T>
struct Described {};

// One row, built field by field: Row(name or record, &ConvertConfig::field, families, default, doc) reads the
// key by the field's type; the setters add what only some keys have.
class Row {
public:
    template <typename T>
    Row(const char* name, T ConvertConfig::*field, FamilySet families, const char* default_text, const char* doc,
        Range range = {}) {
        init(name, families, default_text, doc);
        s_.kind = kind_of<T>(range);
        s_.read = [field, range](const JsonValue& v, const std::string& where, ConvertConfig* c) {
            read_value(v, where, range, &(c->*field));
        };
        s_.record_text = record_text_of<T>;
        s_.record_value = [range](const JsonValue& v, const std::string& where) {
            typename Plain<T>::type value{};
            read_value(v, where, range, &value);
            return record_value_of(value);
        };
        if constexpr (!std::is_same_v<T, typename Plain<T>::type>)
            s_.is_set = [field](const ConvertConfig& c) { return (c.*field).has_value(); };
    }
    // A key of a model description's option (a block's record): its value, read by type, lands in
    // ConvertConfig::described as its record holds it, with no field of its own.
    template <typename P>
    Row(ConfigKey key, Described<P>, FamilySet families, const char* default_text, const char* doc, Range range = {}) {
        init(format::enum_name(key), families, default_text, doc);
        s_.kind = kind_of<P>(range);
        s_.record = key;
        s_.record_value = [range](const JsonValue& v, const std::string& where) {
            P value{};
            read_value(v, where, range, &value);
            return record_value_of(value);
        };
        s_.read = [key, range](const JsonValue& v, const std::string& where, ConvertConfig* c) {
            P value{};
            read_value(v, where, range, &value);
            c->described[key] = record_value_of(value);
        };
        s_.is_set = [key](const ConvertConfig& c) { return c.described.count(key) != 0; };
        s_.record_text = record_text_of<P>;
    }
    // A key read by its own reader.
    Row(const char* name, const char* kind, FamilySet families, const char* default_text, const char* doc,
        std::function<void(const JsonValue&, const std::string&, ConvertConfig*)> read) {
        init(name, families, default_text, doc);
        s_.kind = kind;
        s_.read = std::move(read);
    }
    // A key named as the model record its value lands in: the name is the record's (format::kConfigKeyNames,
    // which the runtime's messages use too), so it is spelled once. Keys whose config name differs from the
    // record's ("num_encoder_layers") take a name and .record().
    template <typename T>
    Row(ConfigKey key, T ConvertConfig::*field, FamilySet families, const char* default_text, const char* doc,
        Range range = {})
        : Row(format::enum_name(key), field, families, default_text, doc, range) {
        s_.record = key;
    }
    Row(ConfigKey key, const char* kind, FamilySet families, const char* default_text, const char* doc,
        std::function<void(const JsonValue&, const std::string&, ConvertConfig*)> read)
        : Row(format::enum_name(key), kind, families, default_text, doc, std::move(read)) {
        s_.record = key;
    }

    Row& record(ConfigKey key) {
        s_.record = key;
        return *this;
    }
    Row& record_text(std::string (*text)(uint32_t)) {
        s_.record_text = text;
        return *this;
    }
    Row& record_value(uint32_t (*value)(const JsonValue&, const std::string&)) {
        s_.record_value = value;
        return *this;
    }
    template <typename E>
    Row& unwritten(E value) {
        s_.unwritten = static_cast<uint32_t>(value);
        return *this;
    }
    Row& unwritten_same_as(ConfigKey other) {
        s_.unwritten_same_as = other;
        return *this;
    }
    Row& is_set(bool (*set)(const ConvertConfig&)) {
        s_.is_set = set;
        return *this;
    }
    Row& required(const char* missing) {
        s_.missing = missing;
        return *this;
    }
    Row& noted_when_assumed(const char* note = "") {
        s_.noted_when_assumed = true;
        s_.assumed_note = note;
        return *this;
    }
    Row& neutral(bool (*is_neutral)(const ConvertConfig&)) {
        s_.neutral = is_neutral;
        return *this;
    }
    operator ConfigKeySpec() const { return s_; }

private:
    void init(const char* name, FamilySet families, const char* default_text, const char* doc) {
        s_.name = name;
        s_.families = families;
        s_.default_text = default_text;
        s_.doc = doc;
    }
    ConfigKeySpec s_;
};

void ignore(const JsonValue&, const std::string&, ConvertConfig*) {}

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
std::vector<std::string> name_list(const JsonValue& v, const std::string& context) {
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

void read_features(const JsonValue& v, const std::string& context, ConvertConfig* c) {
    c->features = name_list(v, context);
}

void read_outputs(const JsonValue& v, const std::string& context, ConvertConfig* c) {
    c->outputs = name_list(v, context);
}

void read_decoder_features(const JsonValue& v, const std::string& context, ConvertConfig* c) {
    c->decoder_features = name_list(v, context);
}

void read_calendar(const JsonValue& v, const std::string& context, ConvertConfig* c) {
    c->calendar.clear();
    for (const auto& [feature, kind] : v.as_object(context))
        c->calendar.emplace_back(feature, kind.as_string(context + "." + feature));
    if (c->calendar.empty()) throw ToolError(context + ": the object is empty");
}

void read_normalization(const JsonValue& v, const std::string& context, ConvertConfig* c) {
    NormalizationSpec n;
    for (const auto& [key, value] : v.as_object(context)) {
        const std::string where = context + "." + key;
        if (key == "mode")
            n.mode = parse_enum_text<format::Normalization>(value.as_string(where), where);
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
    c->normalization = n;
}

void read_layer_norm_eps(const JsonValue& v, const std::string& where, ConvertConfig* c) {
    c->layer_norm_eps = v.as_number(where);
    if (!(c->layer_norm_eps > 0.0) || c->layer_norm_eps > 1.0) throw ToolError(where + " must be in (0, 1]");
}

void read_embed_scale(const JsonValue& v, const std::string& where, ConvertConfig* c) {
    if (v.is_string()) {
        if (v.as_string(where) != "sqrt_d_model")
            throw ToolError(where + ": \"" + v.as_string(where) + "\" is not one of \"sqrt_d_model\"");
        c->embed_scale_sqrt_d = true;
        return;
    }
    c->embed_scale = v.as_number(where);
    if (!(*c->embed_scale > 0.0) || *c->embed_scale > 1e6)
        throw ToolError(where + " must be \"sqrt_d_model\" or a number in (0, 1e6]");
}

void read_head_flatten(const JsonValue& v, const std::string& where, ConvertConfig* c) {
    const std::string text = v.as_string(where);
    if (text != "rows" && text != "d_model_first")
        throw ToolError(where + ": \"" + text + "\" is not \"rows\" or \"d_model_first\"");
    c->head_flatten = text;
}

void read_padding_patch(const JsonValue& v, const std::string& where, ConvertConfig* c) {
    const std::string text = v.is_null() ? "none" : v.as_string(where);
    if (text != "end" && text != "none") throw ToolError(where + ": \"" + text + "\" is not one of \"end\", \"none\"");
    c->padding_patch = text;
}

void read_revin_eps(const JsonValue& v, const std::string& where, ConvertConfig* c) {
    c->revin_eps = v.as_number(where);
    if (!(*c->revin_eps > 0.0) || *c->revin_eps > 1.0) throw ToolError(where + " must be in (0, 1]");
}

std::vector<ConfigKeySpec> make_table() {
    const Range layers{1, 256}, ids{0, kBig};
    return {
        Row("arch", &ConvertConfig::arch, kAllFamilies, "required", "the model family")
            .required("(e.g. \"forecaster\")"),
        Row(ConfigKey::nhead, &ConvertConfig::nhead, kAllFamilies, "required",
            "attention heads: no tensor shape tells them, --find-config tries every divisor of d_model")
            .required("(it cannot be read off the tensor shapes)"),
        Row(ConfigKey::activation, &ConvertConfig::activation, kAllFamilies, "`\"relu\"`",
            "the feed-forward activation of every layer")
            .noted_when_assumed(),
        Row(ConfigKey::norm_first, &ConvertConfig::norm_first, kAllFamilies, "`false`",
            "pre-norm layers (LayerNorm before attention and feed-forward) instead of post-norm")
            .noted_when_assumed(),
        Row(ConfigKey::layer_norm_eps, "a number in (0, 1]", kAllFamilies, "`1e-5`", "the eps of every LayerNorm",
            read_layer_norm_eps)
            .record_text(float_text)
            .record_value([](const JsonValue& v, const std::string& where) {
                return float_to_bits(static_cast<float>(v.as_number(where)));
            })
            .noted_when_assumed(),
        Row(ConfigKey::positional_encoding, &ConvertConfig::positional_encoding, kAllFamilies,
            "from the tensors: a `pe` buffer = `\"sinusoidal\"`, `pos` tables = `\"learned\"`, a zero-row-0 table "
            "= `\"sinusoidal_pad0\"`, none = `\"none\"`; a PE(0)-row-0 table in an nn.Embedding: required",
            "how positions are added to the inputs (learned and the pad0 kinds: token families)")
            .noted_when_assumed(" (from the tensors)"),
        Row(ConfigKey::d_model, &ConvertConfig::d_model, kAllFamilies, kFromTensors, "the model width"),
        Row(ConfigKey::dim_feedforward, &ConvertConfig::dim_feedforward, kAllFamilies, kFromTensors,
            "the feed-forward hidden width"),
        Row(ConfigKey::value_dim, &ConvertConfig::value_dim, kAllFamilies,
            "read off the tensors: `d_model / nhead`, or out_proj.weight's columns / nhead (a stated value must agree)",
            "value columns per attention head: attention written one head at a time may have value heads of their "
            "own width (in_proj [2 d_model + nhead x value_dim, d_model], out_proj [d_model, nhead x value_dim])"),
        Row("num_encoder_layers", &ConvertConfig::num_encoder_layers, kAllFamilies, kFromTensors, "encoder layers",
            layers)
            .record(ConfigKey::encoder_layers),
        Row("num_decoder_layers", &ConvertConfig::num_decoder_layers, kAllFamilies, kFromTensors, "decoder layers",
            {0, 256})
            .record(ConfigKey::decoder_layers),
        Row(ConfigKey::memory_mask, &ConvertConfig::memory_mask, kForecaster, "`\"none\"`",
            "the decoder's mask over the encoder memory (tril: row i sees memory rows 0..i); state it, no tensor "
            "shows it")
            .noted_when_assumed(
                " (the decoder sees all of the memory; a forecaster trained with memory_mask=tril needs "
                "\"memory_mask\": \"tril\")")
            .neutral([](const ConvertConfig& c) { return c.memory_mask == format::MemoryMask::none; }),
        Row(ConfigKey::normalization, "an object: \"mode\" (\"none\", \"global\", \"last_value\"), \"mean\", \"scale\"",
            kForecaster, "`{\"mode\": \"none\"}`",
            "how raw inputs are scaled before the model and outputs after: one mean and scale per input column "
            "(a StandardScaler's mean_ and scale_), each output taking its column's",
            read_normalization)
            .record_text(record_text_of<format::Normalization>)
            .noted_when_assumed()
            .neutral([](const ConvertConfig& c) { return c.normalization.mode == format::Normalization::none; }),
        Row(ConfigKey::n_outputs, &ConvertConfig::n_outputs, kForecaster, kFromTensors, "values per output row"),
        Row(ConfigKey::n_features, &ConvertConfig::n_features, kForecaster | kTvae, kFromTensors,
            "values per input row"),
        Row("features", "a list of names", kForecaster | kTvae, "none: CSV columns are taken in file order",
            "the input columns' names, stored so commands pick CSV columns by name", read_features),
        Row("outputs", "a list of names", kForecaster,
            "none: outputs are named like the features when the model predicts each, else `output_0`..",
            "the predicted columns' names (each one of `features` when the decoder reads them)", read_outputs),
        Row("decoder_features", "a list of names", kForecaster,
            "the decoder reads every input column, or the outputs when its input Linear is as narrow",
            "the columns of the decoder's input rows, in order, each one of `features`: the outputs fed back and "
            "inputs known ahead (calendar features, planned values) that forecast takes for the horizon",
            read_decoder_features),
        Row("calendar", "an object: feature name to calendar feature", kForecaster, "none",
            "input columns computed from the time column rather than read (`{\"hour\": \"hour_of_day\"}`; "
            "docs/forecasting.md lists the calendar features)",
            read_calendar),
        Row("head", &ConvertConfig::head, kForecaster,
            "with a decoder `\"generator\"`; encoder-only: `\"flatten\"` when the head reads window x d_model, "
            "else required",
            "what turns the encoder-only model's rows into the forecast (the weights cannot tell a per-row "
            "generator fed back, the last row and the mean apart)"),
        Row(ConfigKey::horizon, &ConvertConfig::horizon, kForecaster,
            "one-pass heads: read off the head when the outputs are known; one-pass decoding: required; a model "
            "feeding its predictions back: not stated",
            "the steps a one-pass forecaster predicts at once; a model feeding its predictions back: the steps its "
            "loop was trained to forecast (forecast notes a longer --horizon)"),
        Row(ConfigKey::encoder_mask, Described<format::EncoderMask>{}, kForecaster, "`\"none\"`",
            "`\"causal\"` where a square subsequent mask goes to the encoder (not in the tensors)")
            .unwritten(format::EncoderMask::none),
        Row(ConfigKey::decoder_mask, Described<format::DecoderMask>{}, kForecaster, "`\"causal\"`",
            "the decoder's self-attention: `\"causal\"` (the forward passes tgt_mask) or `\"none\"` (called "
            "without tgt_mask: every decoder row sees every other; forecasts rerun the whole decoder each step); "
            "not in the tensors")
            .neutral([](const ConvertConfig& c) {
                const auto at = c.described.find(ConfigKey::decoder_mask);
                return at == c.described.end() || at->second == static_cast<uint32_t>(format::DecoderMask::causal);
            })
            .unwritten(format::DecoderMask::causal),
        Row(ConfigKey::input_embedding, &ConvertConfig::input_embedding, kForecaster,
            "from the tensors: an input Linear `\"linear\"`, none `\"none\"` (n_features = d_model) or "
            "`\"broadcast\"` (one feature)",
            "how input rows become d_model-wide rows")
            .record(ConfigKey::input_embedding),
        Row(ConfigKey::decoder_positional_encoding, &ConvertConfig::decoder_positional_encoding, kForecaster,
            "the encoder's positions", "`\"none\"` when only the encoder's rows get positions (not in the tensors)")
            .unwritten_same_as(ConfigKey::positional_encoding),
        Row(ConfigKey::decoding, &ConvertConfig::decoding, kForecaster, "`\"autoregressive\"`",
            "`\"one_pass\"`: the decoder runs once over label_len observed rows and horizon placeholders"),
        Row(ConfigKey::label_len, &ConvertConfig::label_len, kForecaster, "one-pass decoding: required",
            "observed rows fed to a one-pass decoder before the placeholders", Range{0, kBig}),
        Row(ConfigKey::time_marks, &ConvertConfig::time_marks, kForecaster,
            "from the tensors: a token convolution's time-feature Linear (`src_time_marks.weight`), else `0`",
            "the last input columns are time features known ahead (the Time-Series-Library's `x_mark`): a one-pass "
            "decoder's placeholder rows take them from the forecast's steps",
            Range{0, kBig}),
        Row(ConfigKey::placeholder, &ConvertConfig::placeholder, kForecaster, "`\"zeros\"`",
            "a one-pass decoder's placeholder rows: zeros or the last observed row"),
        Row(ConfigKey::head_activation, &ConvertConfig::head_activation, kForecaster, "`\"relu\"`",
            "the activation between a pooled head's hidden and final Linear"),
        Row(ConfigKey::encoder_output_activation, Described<format::Activation>{}, kForecaster, "none",
            "an activation on the encoder's rows before a pooled head (mvts_transformer's `act(output)`)"),
        Row("patch_len", &ConvertConfig::patch_len, kForecaster, "none: one input row, one token",
            "steps per patch of a patched (PatchTST-style) model: each column's window cut into patches, one token "
            "each, the columns through the encoder independently"),
        Row("stride", &ConvertConfig::stride, kForecaster, "patched: required", "steps between patches")
            .record(ConfigKey::patch_stride),
        Row("padding_patch", "\"end\" or \"none\"", kForecaster, "patched: `\"end\"`",
            "`\"end\"`: the window's last value repeated `stride` times before cutting (ReplicationPad1d)",
            read_padding_patch)
            .is_set([](const ConvertConfig& c) { return c.padding_patch.has_value(); })
            .record(ConfigKey::patch_padding)
            .record_text([](uint32_t v) { return std::string(v ? "\"end\"" : "\"none\""); }),
        Row(ConfigKey::subtract_last, Described<bool>{}, kForecaster, "`false`",
            "RevIN takes the window's last value out (and adds it back) instead of its mean; the std is still the "
            "window's (PatchTST's argument of the same name; the weights cannot tell)"),
        Row(ConfigKey::encoder_residual, Described<bool>{}, kForecaster, "`false`",
            "the encoder's output is `x + encoder(x)`, x its embedded rows (a residual around the whole stack; the "
            "weights cannot tell)"),
        Row(ConfigKey::decoder_residual, Described<bool>{}, kForecaster, "`false`",
            "the decoder's output is `y + decoder(y, memory)`, y its embedded rows, before the generator"),
        Row("res_attention", &ConvertConfig::res_attention, kForecaster, "`false`",
            "each encoder layer adds the previous layer's pre-softmax attention scores to its own (PatchTST's "
            "argument of the same name; the weights cannot tell)")
            .record(ConfigKey::residual_attention)
            .unwritten(false),
        Row("head_flatten", "\"rows\" or \"d_model_first\"", kForecaster, "`\"rows\"`",
            "the order a flatten head reads the encoded rows in: `\"rows\"` as `x.reshape(B, -1)` of [rows, "
            "d_model], `\"d_model_first\"` as PatchTST's backbone ([d_model, patches] before its Flatten_Head)",
            read_head_flatten)
            .is_set([](const ConvertConfig& c) { return c.head_flatten.has_value(); }),
        Row(ConfigKey::revin, &ConvertConfig::revin, kForecaster,
            "from the tensors: RevIN's affine_weight / affine_bias = affine RevIN; none: no RevIN",
            "per-window normalization of each column, undone on the outputs (state `true` for RevIN without "
            "affine parameters)"),
        Row(ConfigKey::revin_eps, "a number in (0, 1]", kForecaster, "`1e-5`", "RevIN's eps", read_revin_eps)
            .is_set([](const ConvertConfig& c) { return c.revin_eps.has_value(); })
            .record_text(float_text),
        Row(ConfigKey::pad_id, &ConvertConfig::pad_id, kTokenFamilies, "none",
            "the padding token: masked as a key, and position 0 of the pad0 encodings", ids)
            .noted_when_assumed(),
        Row(ConfigKey::bos_id, &ConvertConfig::bos_id, kSeq2Seq, "none", "the token greedy translation starts from",
            ids)
            .noted_when_assumed(),
        Row(ConfigKey::eos_id, &ConvertConfig::eos_id, kSeq2Seq, "none", "the token that ends a greedy translation",
            ids)
            .noted_when_assumed(),
        Row(ConfigKey::start_id, &ConvertConfig::start_id, kClassifier, "required with a decoder",
            "the token a classifier's decoder is fed", ids),
        Row(ConfigKey::embed_scale, "\"sqrt_d_model\" or a number in (0, 1e6]", kTokenFamilies | kForecaster,
            "seq2seq `sqrt(d_model)`; classifier, forecaster `1`",
            "the factor token embeddings (a forecaster's input rows) are multiplied by", read_embed_scale)
            .is_set([](const ConvertConfig& c) { return c.embed_scale || c.embed_scale_sqrt_d; })
            .record_text(float_text)
            .noted_when_assumed(),
        Row(ConfigKey::pooling, &ConvertConfig::pooling, kClassifier, "`\"mean\"` (without a decoder)",
            "how a classifier without a decoder pools the encoder's rows")
            .noted_when_assumed(),
        Row(ConfigKey::output_activation, &ConvertConfig::output_activation, kClassifier, "required",
            "what a classifier applies to its logits"),
        Row("n_labels", &ConvertConfig::n_labels, kClassifier, kFromTensors, "a classifier's outputs"),
        Row(ConfigKey::src_vocab, &ConvertConfig::src_vocab, kTokenFamilies, kFromTensors,
            "the source (classifier: input) vocabulary"),
        Row(ConfigKey::tgt_vocab, &ConvertConfig::tgt_vocab, kSeq2Seq, kFromTensors, "the target vocabulary"),
        Row(ConfigKey::latent_size, &ConvertConfig::latent_size, kTvae, kFromTensors, "the size of z"),
        Row(ConfigKey::max_positions, &ConvertConfig::max_positions, kForecaster | kTokenFamilies,
            "the rows of the `pe` buffer or position tables; without any, unlimited",
            "the longest sequence the positions allow"),
        Row(ConfigKey::window, &ConvertConfig::window, kForecaster,
            "not stored: `forecast` reads every input row, `inspect`/`bench`/`verify`/`header` size for 96 (or "
            "`max_positions`)",
            "the encoder rows the forecaster was trained on"),
        Row(ConfigKey::decode_mask_pads, &ConvertConfig::decode_mask_pads, kSeq2Seq, "`false`",
            "greedy decoding masks generated pad ids as keys (make_trg_mask)")
            .noted_when_assumed(),
        Row("dropout", "any", 0, "ignored (training-only), listed in a note", "accepted so PyTorch configs load",
            ignore),
        Row("batch_first", "any", 0, "ignored (training-only), listed in a note", "accepted so PyTorch configs load",
            ignore),
        Row("comment", "any", kAllFamilies, "free text, not stored", "a note for the reader of the config", ignore),
    };
}

std::string families_text(FamilySet families) {
    if (families == 0) return "all (ignored)";
    if (families == kAllFamilies) return "all";
    std::string text;
    for (uint32_t f = 0; f < 32; ++f)
        if (families & (1u << f)) text += (text.empty() ? "" : ", ") + enum_text(static_cast<Family>(f));
    return text;
}

}  // namespace

const std::vector<ConfigKeySpec>& config_keys() {
    static const std::vector<ConfigKeySpec> table = make_table();
    return table;
}

const ConfigKeySpec* find_config_key(const std::string& name) {
    for (const ConfigKeySpec& k : config_keys())
        if (k.name == name) return &k;
    return nullptr;
}

const std::string& config_key_name(ConfigKey record) {
    for (const ConfigKeySpec& k : config_keys())
        if (k.record == record) return k.name;
    throw ToolError("internal error: no config key sets model config record " +
                    std::to_string(static_cast<uint32_t>(record)));
}

std::string config_keys_markdown(const std::set<std::string>& searched) {
    std::string md =
        "<!-- Generated from the converter's key table (tools/import/config_keys.cpp); the tests check that\n"
        "     this file matches it. -->\n"
        "# Converter config keys\n\n"
        "The keys of `convert --config FILE` (a JSON object). A key that does not apply to the config's `arch` "
        "is refused, as an unknown key is; every value taken by default is listed by `convert` "
        "(`note: assumed (not in the config): ...`) and by `inspect` (`assumed:`).\n\n"
        "`convert --find-config FILE` tries the values of the keys marked *searched* (the ones a model of its "
        "kind admits) against a check pair from PyTorch and writes the config that reproduces it.\n\n"
        "| key | takes | families | default | searched | what it says |\n"
        "|---|---|---|---|---|---|\n";
    for (const ConfigKeySpec& k : config_keys())
        md += "| `" + k.name + "` | " + k.kind + " | " + families_text(k.families) + " | " + k.default_text + " | " +
              (searched.count(k.name) ? "searched" : "") + " | " + k.doc + " |\n";
    return md;
}

}  // namespace ax::tools
