#include "tools/convert/config_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"
#include "tools/convert/converter.h"
#include "tools/import/config_keys.h"
#include "tools/import/import_common.h"

namespace ax::tools {

namespace {

using format::ConfigKey;

// The keys a search varies; everything else comes from the user's config unchanged.
struct Candidate {
    int64_t nhead = 1;
    format::Activation activation = format::Activation::relu;
    bool norm_first = false;
    double layer_norm_eps = 1e-5;
    format::PositionalEncoding positional_encoding = format::PositionalEncoding::none;
    std::optional<format::MemoryMask> memory_mask;  // forecasters only
    // Forecasters: the encoder's mask, and the decoder's positions (nullopt: the encoder's, not stated).
    std::optional<format::EncoderMask> encoder_mask;
    std::optional<format::PositionalEncoding> decoder_positional_encoding;
    // Patched forecasters (PatchTST as its authors wrote it): residual attention, the head's flatten order.
    std::optional<bool> res_attention;
    std::optional<std::string> head_flatten;
    // Forecasters with a decoder: its self-attention mask (a forward called without tgt_mask has none).
    std::optional<format::DecoderMask> decoder_mask;
};

std::string eps_text(double eps) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", eps);
    return text;
}

std::string describe(const Candidate& c) {
    std::string s = "nhead " + std::to_string(c.nhead) + ", activation " + enum_text(c.activation) + ", norm_first " +
                    (c.norm_first ? "true" : "false") + ", layer_norm_eps " + eps_text(c.layer_norm_eps) +
                    ", positional_encoding " + enum_text(c.positional_encoding);
    if (c.memory_mask) s += ", memory_mask " + enum_text(*c.memory_mask);
    if (c.encoder_mask) s += ", encoder_mask " + enum_text(*c.encoder_mask);
    if (c.decoder_positional_encoding)
        s += ", decoder_positional_encoding " + enum_text(*c.decoder_positional_encoding);
    if (c.res_attention) s += std::string(", res_attention ") + (*c.res_attention ? "true" : "false");
    if (c.head_flatten) s += ", head_flatten " + *c.head_flatten;
    if (c.decoder_mask) s += ", decoder_mask " + enum_text(*c.decoder_mask);
    return s;
}

ConvertConfig apply(ConvertConfig config, const Candidate& c) {
    config.nhead = c.nhead;
    config.activation = c.activation;
    config.norm_first = c.norm_first;
    config.layer_norm_eps = c.layer_norm_eps;
    config.positional_encoding = c.positional_encoding;
    if (c.memory_mask) config.memory_mask = *c.memory_mask;
    if (c.encoder_mask) config.encoder_mask = *c.encoder_mask;
    config.decoder_positional_encoding = c.decoder_positional_encoding;
    if (c.res_attention) config.res_attention = *c.res_attention;
    if (c.head_flatten) config.head_flatten = *c.head_flatten;
    if (c.decoder_mask) config.decoder_mask = *c.decoder_mask;
    return config;
}

// The user's JSON object with the tried keys replaced (in place, keeping the key order) or appended.
JsonValue candidate_json(const JsonValue& user, const Candidate& c) {
    std::vector<std::pair<std::string, JsonValue>> members = user.as_object("config");
    auto set = [&members](const std::string& key, JsonValue value) {
        for (auto& m : members)
            if (m.first == key) {
                m.second = std::move(value);
                return;
            }
        members.emplace_back(key, std::move(value));
    };
    set(config_key_name(ConfigKey::nhead), JsonValue::make_integer(static_cast<uint64_t>(c.nhead)));
    set(config_key_name(ConfigKey::activation), JsonValue::make_string(enum_text(c.activation)));
    set(config_key_name(ConfigKey::norm_first), JsonValue::make_bool(c.norm_first));
    set(config_key_name(ConfigKey::layer_norm_eps), JsonValue::make_number(c.layer_norm_eps));
    set(config_key_name(ConfigKey::positional_encoding), JsonValue::make_string(enum_text(c.positional_encoding)));
    if (c.memory_mask) set(config_key_name(ConfigKey::memory_mask), JsonValue::make_string(enum_text(*c.memory_mask)));
    if (c.encoder_mask)
        set(config_key_name(ConfigKey::encoder_mask), JsonValue::make_string(enum_text(*c.encoder_mask)));
    const std::string dec_pe = config_key_name(ConfigKey::decoder_positional_encoding);
    if (c.decoder_positional_encoding)
        set(dec_pe, JsonValue::make_string(enum_text(*c.decoder_positional_encoding)));
    else
        members.erase(std::remove_if(members.begin(), members.end(), [&](const auto& m) { return m.first == dec_pe; }),
                      members.end());
    if (c.res_attention) set("res_attention", JsonValue::make_bool(*c.res_attention));
    if (c.head_flatten) set("head_flatten", JsonValue::make_string(*c.head_flatten));
    if (c.decoder_mask)
        set(config_key_name(ConfigKey::decoder_mask), JsonValue::make_string(enum_text(*c.decoder_mask)));
    return JsonValue::make_object(std::move(members));
}

// `first` (the user's value), then the others in their fixed order, without repeats.
template <typename T>
std::vector<T> user_first(const T& first, const std::vector<T>& all) {
    std::vector<T> out{first};
    for (const T& v : all)
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    return out;
}

uint32_t config_record(const AxmModel& m, format::ConfigKey key) {
    for (const auto& [k, v] : m.config)
        if (k == key) return v;
    throw ToolError("internal error: imported model lacks a config record");
}

// A record the forecaster importer writes only when it is not the default: set, or removed.
void set_optional_record(AxmModel& m, format::ConfigKey key, std::optional<uint32_t> value) {
    m.config.erase(std::remove_if(m.config.begin(), m.config.end(), [&](const auto& r) { return r.first == key; }),
                   m.config.end());
    if (value) m.config.emplace_back(key, *value);
}

// Rewrites the records of the keys a search varies, encoded as the importers encode them.
void set_records(AxmModel& m, const ConvertConfig& config) {
    AxmModel encoded;
    add_stack_config(encoded, StackShape{}, config);
    encoded.config.emplace_back(format::ConfigKey::memory_mask, static_cast<uint32_t>(config.memory_mask));
    for (auto& [key, value] : m.config)
        for (const auto& [k, v] : encoded.config)
            if (k == key && (k == format::ConfigKey::nhead || k == format::ConfigKey::activation ||
                             k == format::ConfigKey::norm_first || k == format::ConfigKey::layer_norm_eps ||
                             k == format::ConfigKey::memory_mask))
                value = v;
    if (m.family != format::Family::forecaster) return;
    const bool causal = config.encoder_mask == format::EncoderMask::causal;
    set_optional_record(
        m, ConfigKey::encoder_mask,
        causal ? std::optional<uint32_t>(static_cast<uint32_t>(format::EncoderMask::causal)) : std::nullopt);
    set_optional_record(m, ConfigKey::decoder_positional_encoding,
                        config.decoder_positional_encoding
                            ? std::optional<uint32_t>(static_cast<uint32_t>(*config.decoder_positional_encoding))
                            : std::nullopt);
    set_optional_record(m, ConfigKey::residual_attention,
                        config.res_attention.value_or(false) ? std::optional<uint32_t>(1u) : std::nullopt);
    const bool unmasked = config.decoder_mask == format::DecoderMask::none;
    set_optional_record(
        m, ConfigKey::decoder_mask,
        unmasked ? std::optional<uint32_t>(static_cast<uint32_t>(format::DecoderMask::none)) : std::nullopt);
}

// The user's config, or a bare one naming the family when none was given: a forecaster or tvae needs
// nothing the search cannot try. "nhead" may be missing: the search supplies it.
JsonValue base_json(const TensorMap& tensors, const std::string& config_path) {
    if (!config_path.empty()) return parse_json_file(config_path);
    std::string errors;
    for (const char* arch : {"forecaster", "tvae"}) {
        JsonValue j = JsonValue::make_object({{"arch", JsonValue::make_string(arch)}});
        try {
            ConvertConfig c = parse_convert_config(
                JsonValue::make_object({{"arch", JsonValue::make_string(arch)}, {"nhead", JsonValue::make_integer(1)}}),
                "search");
            import_model(tensors, c);
            return j;
        } catch (const ToolError& e) {
            errors += std::string(errors.empty() ? "" : "; ") + "as a " + arch + ": " + e.what();
        }
    }
    throw ToolError("--find-config without --config reads forecaster and tvae checkpoints; this one is neither (" +
                    errors + "); for a seq2seq or classifier give --config with \"arch\" and the token ids");
}

// Parses the user's config, standing in nhead 1 when it is absent (only the search may leave it out).
ConvertConfig parse_base(const JsonValue& user, const std::string& source) {
    if (user.is_object() && !user.find(config_key_name(ConfigKey::nhead))) {
        std::vector<std::pair<std::string, JsonValue>> members = user.as_object(source);
        members.emplace_back(config_key_name(ConfigKey::nhead), JsonValue::make_integer(1));
        return parse_convert_config(JsonValue::make_object(std::move(members)), source);
    }
    return parse_convert_config(user, source);
}

// How many keys the user stated (or left at a default) that the candidate changes.
int changes(const ConvertConfig& base, bool nhead_stated, const Candidate& c) {
    int n = 0;
    n += nhead_stated && c.nhead != base.nhead;
    n += c.activation != base.activation;
    n += c.norm_first != base.norm_first;
    n += c.layer_norm_eps != base.layer_norm_eps;
    n += base.positional_encoding && c.positional_encoding != *base.positional_encoding;
    n += c.memory_mask && *c.memory_mask != base.memory_mask;
    n += c.encoder_mask && *c.encoder_mask != base.encoder_mask.value_or(format::EncoderMask::none);
    n += c.decoder_positional_encoding != base.decoder_positional_encoding;
    n += c.res_attention && *c.res_attention != base.res_attention.value_or(false);
    n += c.head_flatten && *c.head_flatten != base.head_flatten.value_or("rows");
    n += c.decoder_mask && *c.decoder_mask != base.decoder_mask.value_or(format::DecoderMask::causal);
    return n;
}

// The keys in which the matching candidates differ.
std::string varying_keys(const std::vector<Candidate>& m) {
    std::string keys;
    auto add = [&](const std::string& key, bool differs) {
        if (differs) keys += (keys.empty() ? "" : ", ") + key;
    };
    auto any = [&](auto field) {
        for (const Candidate& c : m)
            if (field(c) != field(m[0])) return true;
        return false;
    };
    add(config_key_name(ConfigKey::nhead), any([](const Candidate& c) { return c.nhead; }));
    add(config_key_name(ConfigKey::activation), any([](const Candidate& c) { return c.activation; }));
    add(config_key_name(ConfigKey::norm_first), any([](const Candidate& c) { return c.norm_first; }));
    add(config_key_name(ConfigKey::layer_norm_eps), any([](const Candidate& c) { return c.layer_norm_eps; }));
    add(config_key_name(ConfigKey::positional_encoding), any([](const Candidate& c) { return c.positional_encoding; }));
    add(config_key_name(ConfigKey::memory_mask), any([](const Candidate& c) { return c.memory_mask; }));
    add(config_key_name(ConfigKey::encoder_mask), any([](const Candidate& c) { return c.encoder_mask; }));
    add(config_key_name(ConfigKey::decoder_positional_encoding),
        any([](const Candidate& c) { return c.decoder_positional_encoding; }));
    add("res_attention", any([](const Candidate& c) { return c.res_attention; }));
    add("head_flatten", any([](const Candidate& c) { return c.head_flatten; }));
    add(config_key_name(ConfigKey::decoder_mask), any([](const Candidate& c) { return c.decoder_mask; }));
    return keys;
}

// The import that tells d_model and the family. Its positional encoding is inferred from the tensors (the
// user's may be the wrong key); where they leave it open (a sinusoidal table in an nn.Embedding), the user's
// or either sinusoidal reading serves, as any of them gives the same shapes.
AxmModel probe_import(const TensorMap& tensors, ConvertConfig& probe,
                      const std::optional<format::PositionalEncoding>& stated) {
    using PE = format::PositionalEncoding;
    probe.positional_encoding.reset();
    try {
        return import_model(tensors, probe);
    } catch (const ToolError&) {
        std::vector<PE> readings{PE::sinusoidal_pad0, PE::sinusoidal};
        if (stated) readings.insert(readings.begin(), *stated);
        for (const PE pe : readings) {
            probe.positional_encoding = pe;
            try {
                AxmModel m = import_model(tensors, probe);
                probe.positional_encoding.reset();
                return m;
            } catch (const ToolError&) {
            }
        }
        throw;
    }
}

// A forward(x_enc, x_dec) that returns fewer rows than x_dec holds is one-pass decoding (the Informer
// convention: its last horizon rows); the rows before them are label_len, and what x_dec holds after them
// says the placeholder. The keys are added to the user's config; a pair without fewer rows leaves it as is.
JsonValue with_one_pass_decoding(const JsonValue& user, const CheckPair& pair) {
    const size_t rows = pair.tgt.rows, horizon = pair.want.rows;
    if (horizon == 0 || rows <= horizon || pair.tgt.cols == 0) return user;
    const size_t label = rows - horizon, cols = pair.tgt.cols;
    bool zeros = true, last = label > 0;
    for (size_t r = label; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c) {
            zeros = zeros && pair.tgt.at(r, c) == 0.0f;
            last = last && pair.tgt.at(r, c) == pair.tgt.at(label - 1, c);
        }
    std::vector<std::pair<std::string, JsonValue>> members = user.as_object("config");
    members.emplace_back(config_key_name(ConfigKey::decoding), JsonValue::make_string("one_pass"));
    members.emplace_back(config_key_name(ConfigKey::horizon), JsonValue::make_integer(horizon));
    members.emplace_back(config_key_name(ConfigKey::label_len), JsonValue::make_integer(label));
    if (zeros || last)
        members.emplace_back(config_key_name(ConfigKey::placeholder),
                             JsonValue::make_string(zeros ? "zeros" : "last_value"));
    return JsonValue::make_object(std::move(members));
}

}  // namespace

ConfigSearch search_config(const TensorMap& tensors, const std::string& config_path, const CheckFiles& files) {
    const std::string source = config_path.empty() ? "config" : config_path;
    JsonValue user = base_json(tensors, config_path);
    const bool nhead_stated = user.is_object() && user.find(config_key_name(ConfigKey::nhead));
    ConvertConfig base = parse_base(user, source);

    // The base import tells d_model and the family (and reports a checkpoint no candidate can fix).
    ConvertConfig probe = base;
    // A stored attention scale tells the head count; otherwise any does for the probe.
    const std::optional<int64_t> scale_heads = nhead_from_scale(tensors);
    probe.nhead = scale_heads.value_or(1);
    const AxmModel probe_model = probe_import(tensors, probe, base.positional_encoding);
    const int64_t d = config_record(probe_model, format::ConfigKey::d_model);
    const CheckPair pair = read_check_pair(files, probe_model.family);
    if (probe_model.family == format::Family::forecaster && !base.decoding &&
        config_record(probe_model, format::ConfigKey::decoder_layers) > 0) {
        user = with_one_pass_decoding(user, pair);
        base = parse_base(user, source);
        probe.decoding = base.decoding;
        probe.horizon = base.horizon;
        probe.label_len = base.label_len;
        probe.placeholder = base.placeholder;
    }

    std::vector<int64_t> heads;
    for (int64_t h = 1; h <= d; ++h)
        if (d % h == 0 && (!scale_heads || h == *scale_heads)) heads.push_back(h);
    const bool forecaster = probe_model.family == format::Family::forecaster;
    const bool token_family =
        probe_model.family == format::Family::seq2seq || probe_model.family == format::Family::classifier;
    using PE = format::PositionalEncoding;
    using Mask = std::optional<format::MemoryMask>;
    const std::vector<PE> pe_all = token_family
                                       ? std::vector<PE>{PE::learned, PE::sinusoidal, PE::sinusoidal_pad0, PE::none}
                                       : std::vector<PE>{PE::sinusoidal, PE::none};
    // A forecaster's learned position table is read off the tensors: nothing to try.
    const bool learned_table = forecaster && config_record(probe_model, format::ConfigKey::positional_encoding) ==
                                                 static_cast<uint32_t>(PE::learned);
    const std::vector<PE> pes =
        learned_table ? std::vector<PE>{PE::learned} : user_first(base.positional_encoding.value_or(pe_all[0]), pe_all);
    // Forecasters: the memory mask (with a decoder), the encoder's mask, and whether the decoder's rows get
    // the encoder's sinusoidal positions (records only: a learned table's presence is read off the tensors).
    bool decoder = false;
    for (const auto& [key, value] : probe_model.config)
        decoder = decoder || (key == format::ConfigKey::decoder_layers && value > 0);
    const std::vector<Mask> masks =
        forecaster && decoder ? user_first<Mask>(base.memory_mask, {format::MemoryMask::none, format::MemoryMask::tril})
        : forecaster          ? std::vector<Mask>{format::MemoryMask::none}
                              : std::vector<Mask>{std::nullopt};
    using EncMask = std::optional<format::EncoderMask>;
    const std::vector<EncMask> enc_masks =
        forecaster ? user_first<EncMask>(base.encoder_mask.value_or(format::EncoderMask::none),
                                         {format::EncoderMask::none, format::EncoderMask::causal})
                   : std::vector<EncMask>{std::nullopt};
    using DecMask = std::optional<format::DecoderMask>;
    const std::vector<DecMask> dec_masks =
        forecaster && decoder ? user_first<DecMask>(base.decoder_mask.value_or(format::DecoderMask::causal),
                                                    {format::DecoderMask::causal, format::DecoderMask::none})
                              : std::vector<DecMask>{std::nullopt};
    using DecPE = std::optional<PE>;
    auto dec_pes = [&](PE pe) {
        if (!forecaster || !decoder || pe != PE::sinusoidal)
            return std::vector<DecPE>{base.decoder_positional_encoding};
        return user_first<DecPE>(base.decoder_positional_encoding, {std::nullopt, PE::none});
    };

    ConfigSearch out;
    out.config_stated_eps = user.is_object() && user.find(config_key_name(ConfigKey::layer_norm_eps));
    std::vector<Candidate> matched;
    std::vector<CheckResult> matched_results;
    double closest_ratio = HUGE_VAL;
    Candidate closest;
    CheckResult closest_result;
    std::string first_refusal;
    // One import per positional encoding and, for a patched model, head flatten order (the tried keys that
    // change the tensors a model holds); the other keys are config records, rewritten in place, so a
    // candidate costs a run, not an import.
    using Flatten = std::optional<std::string>;
    const bool patched = forecaster && !decoder && base.patch_len.has_value();
    const std::vector<Flatten> flattens =
        patched ? user_first<Flatten>(base.head_flatten.value_or("rows"), {"rows", "d_model_first"})
                : std::vector<Flatten>{base.head_flatten};
    using Res = std::optional<bool>;
    const std::vector<Res> res_all = patched ? user_first<Res>(base.res_attention.value_or(false), {false, true})
                                             : std::vector<Res>{base.res_attention};
    struct Template {
        PE pe;
        Flatten flatten;
        AxmModel model;
    };
    std::vector<Template> templates;
    for (const PE pe : pes)
        for (const Flatten& flatten : flattens) {
            try {
                const Candidate c{probe.nhead,  base.activation, base.norm_first, base.layer_norm_eps,
                                  pe,           std::nullopt,    std::nullopt,    base.decoder_positional_encoding,
                                  std::nullopt, flatten,         std::nullopt};
                templates.push_back({pe, flatten, import_model(tensors, apply(probe, c))});
            } catch (const ToolError& e) {
                // A positional encoding the tensors rule out ("none" beside a `pe` buffer, ...), a flatten order
                // for a head that reads one row.
                if (first_refusal.empty()) first_refusal = e.what();
                ++out.refused;
            }
        }
    if (templates.empty()) throw ToolError("no candidate config imports: " + first_refusal);
    // A check pair that does not fit the model's shapes fails every candidate alike: said here, plainly.
    check_model(templates.front().model, pair);
    const std::vector<int64_t> head_order = d % base.nhead == 0 ? user_first(base.nhead, heads) : heads;
    auto try_candidate = [&](AxmModel& model, const Candidate& c) {
        set_records(model, apply(base, c));
        CheckResult r;
        try {
            r = check_model(model, pair);
        } catch (const ToolError& e) {
            // A combination the runtime refuses to open is no candidate.
            if (first_refusal.empty()) first_refusal = e.what();
            ++out.refused;
            return;
        }
        ++out.tried;
        if (r.passed) {
            matched.push_back(c);
            matched_results.push_back(r);
        }
        if (r.max_diff / r.tolerance < closest_ratio) {
            closest_ratio = r.max_diff / r.tolerance;
            closest = c;
            closest_result = r;
        }
    };
    auto grid = [&](const std::vector<double>& eps_values) {
        for (Template& t : templates)
            for (int64_t h : head_order)
                for (const format::Activation act :
                     user_first(base.activation, {format::Activation::relu, format::Activation::gelu}))
                    for (bool nf : user_first(base.norm_first, {false, true}))
                        for (const Mask& mask : masks)
                            for (const EncMask& enc : enc_masks)
                                for (const DecPE& dec : dec_pes(t.pe))
                                    for (const Res& res : res_all)
                                        for (const DecMask& dec_mask : dec_masks)
                                            for (double eps : eps_values)
                                                try_candidate(t.model, Candidate{h, act, nf, eps, t.pe, mask, enc, dec,
                                                                                 res, t.flatten, dec_mask});
    };
    // layer_norm_eps rarely shows at the tolerance (1e-5 vs 1e-6 moves unit-scale outputs by ~1e-5 of
    // them), so the grid runs with the user's eps first and the others only when nothing matched; after a
    // match they are tried on the pick alone, to say whether this check pair tells them apart.
    const std::vector<double> eps_all = user_first(base.layer_norm_eps, {1e-5, 1e-6});
    const std::vector<double> eps_rest(eps_all.begin() + 1, eps_all.end());
    grid({eps_all[0]});
    if (matched.empty()) grid(eps_rest);
    if (out.tried == 0) throw ToolError("no candidate config runs: " + first_refusal);
    if (matched.empty()) {
        out.result = closest_result;
        out.config = apply(base, closest);
        out.json = candidate_json(user, closest);
        out.description = describe(closest);
        return out;
    }
    // Several can match when a key makes no difference at the tolerance: keep the user's config as far as
    // possible, then the search order (the user's values first).
    size_t best = 0;
    for (size_t i = 1; i < matched.size(); ++i)
        if (changes(base, nhead_stated, matched[i]) < changes(base, nhead_stated, matched[best])) best = i;
    const Candidate pick = matched[best];
    out.found = true;
    out.result = matched_results[best];
    for (double eps : eps_rest)
        if (eps != pick.layer_norm_eps)
            for (Template& t : templates)
                if (t.pe == pick.positional_encoding && t.flatten == pick.head_flatten)
                    try_candidate(t.model,
                                  Candidate{pick.nhead, pick.activation, pick.norm_first, eps, t.pe, pick.memory_mask,
                                            pick.encoder_mask, pick.decoder_positional_encoding, pick.res_attention,
                                            t.flatten, pick.decoder_mask});
    out.matches.push_back(describe(pick));
    out.matched_eps.push_back(pick.layer_norm_eps);
    for (size_t i = 0; i < matched.size(); ++i)
        if (i != best) {
            out.matches.push_back(describe(matched[i]));
            out.matched_eps.push_back(matched[i].layer_norm_eps);
        }
    out.varying = varying_keys(matched);
    out.config = apply(base, pick);
    // The rewritten records must be what an import of the picked config writes.
    for (Template& t : templates)
        if (t.pe == pick.positional_encoding && t.flatten == pick.head_flatten) {
            AxmModel& model = t.model;
            set_records(model, out.config);
            // Records are looked up by key: compared in key order.
            auto sorted = [](std::vector<std::pair<format::ConfigKey, uint32_t>> r) {
                std::sort(r.begin(), r.end());
                return r;
            };
            if (sorted(import_model(tensors, out.config).config) != sorted(model.config))
                throw ToolError("internal error: the searched model's config records differ from an import's");
        }
    out.json = candidate_json(user, pick);
    out.description = describe(pick);
    return out;
}

}  // namespace ax::tools
