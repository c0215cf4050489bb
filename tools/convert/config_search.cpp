#include "tools/convert/config_search.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"
#include "tools/convert/converter.h"
#include "tools/import/config_keys.h"
#include "tools/import/import_common.h"
#include "tools/family/family_descriptor.h"
#include <functional>

namespace ax::tools {

namespace {

using format::ConfigKey;

// A candidate: one value index per axis (SearchAxis::values).
using Candidate = std::vector<size_t>;

bool same_value(const JsonValue& a, const JsonValue& b) {
    if (a.type() != b.type()) return false;
    if (a.is_bool()) return a.as_bool("") == b.as_bool("");
    if (a.is_number()) return a.as_number("") == b.as_number("");
    if (a.is_string()) return a.as_string("") == b.as_string("");
    return false;
}

bool same_value(const std::optional<JsonValue>& a, const std::optional<JsonValue>& b) {
    if (!a || !b) return !a && !b;
    return same_value(*a, *b);
}

std::string value_text(const JsonValue& v) {
    if (v.is_bool()) return v.as_bool("") ? "true" : "false";
    if (v.is_string()) return v.as_string("");
    uint64_t exact = 0;
    if (v.exact_u64(&exact)) return std::to_string(exact);
    char text[32];
    std::snprintf(text, sizeof text, "%g", v.as_number(""));
    return text;
}

// The search's axes with the user's stated values first, and which ones the user stated.
struct Axes {
    std::vector<SearchAxis> list;
    std::vector<bool> stated;

    size_t find(const std::string& key) const {
        for (size_t i = 0; i < list.size(); ++i)
            if (list[i].key == key) return i;
        return list.size();
    }
    const std::optional<JsonValue>& value(const Candidate& c, size_t axis) const { return list[axis].values[c[axis]]; }
};

Axes order_axes(std::vector<SearchAxis> list, const JsonValue& user) {
    Axes axes;
    for (SearchAxis& a : list) {
        const JsonValue* stated = user.is_object() ? user.find(a.key) : nullptr;
        axes.stated.push_back(stated != nullptr);
        if (stated) {
            auto at = std::find_if(a.values.begin(), a.values.end(),
                                   [&](const std::optional<JsonValue>& v) { return v && same_value(*v, *stated); });
            if (at != a.values.end())
                std::rotate(a.values.begin(), at, at + 1);
            else if (a.user_value_always)
                a.values.insert(a.values.begin(), *stated);
        }
        axes.list.push_back(std::move(a));
    }
    return axes;
}

std::string describe(const Axes& axes, const Candidate& c) {
    std::string s;
    for (size_t i = 0; i < axes.list.size(); ++i)
        if (const std::optional<JsonValue>& v = axes.value(c, i))
            s += (s.empty() ? "" : ", ") + axes.list[i].key + " " + value_text(*v);
    return s;
}

// The user's JSON object with the candidate's values set (in place, keeping the key order, or appended) and
// the keys it leaves out removed.
JsonValue candidate_json(const JsonValue& user, const Axes& axes, const Candidate& c) {
    std::vector<std::pair<std::string, JsonValue>> members = user.as_object("config");
    for (size_t i = 0; i < axes.list.size(); ++i) {
        const std::string& key = axes.list[i].key;
        const std::optional<JsonValue>& v = axes.value(c, i);
        auto at = std::find_if(members.begin(), members.end(), [&](const auto& m) { return m.first == key; });
        if (!v) {
            if (at != members.end()) members.erase(at);
        } else if (at != members.end()) {
            at->second = *v;
        } else {
            members.emplace_back(key, *v);
        }
    }
    return JsonValue::make_object(std::move(members));
}

std::optional<uint32_t> find_record(const AxmModel& m, format::ConfigKey key) {
    for (const auto& [k, v] : m.config)
        if (k == key) return v;
    return std::nullopt;
}

uint32_t config_record(const AxmModel& m, format::ConfigKey key) {
    if (const std::optional<uint32_t> v = find_record(m, key)) return *v;
    throw ToolError("internal error: imported model lacks a config record");
}

// Rewrites the records of the axes that do not change the tensors, as an import of the candidate writes
// them: each key's row says which record its value lands in and when an import leaves it out.
void set_records(AxmModel& m, const Axes& axes, const Candidate& c) {
    for (size_t i = 0; i < axes.list.size(); ++i) {
        if (axes.list[i].imports) continue;
        const ConfigKeySpec* row = find_config_key(axes.list[i].key);
        if (row == nullptr || !row->record || !row->record_value)
            throw ToolError("internal error: the searched key " + axes.list[i].key + " lands in no record");
        const std::optional<JsonValue>& v = axes.value(c, i);
        set_key_record(m, *row, v.has_value(), v ? row->record_value(*v, axes.list[i].key) : 0);
    }
}

// How many keys the user stated (or left at a default that is a statement) that the candidate changes.
int changes(const Axes& axes, const Candidate& c) {
    int n = 0;
    for (size_t i = 0; i < axes.list.size(); ++i)
        n += c[i] != 0 && (axes.stated[i] || axes.list[i].counts_when_unstated);
    return n;
}

// The keys in which the matching candidates differ.
std::string varying_keys(const Axes& axes, const std::vector<Candidate>& m) {
    std::string keys;
    for (size_t i = 0; i < axes.list.size(); ++i)
        for (const Candidate& c : m)
            if (!same_value(axes.value(c, i), axes.value(m[0], i))) {
                keys += (keys.empty() ? "" : ", ") + axes.list[i].key;
                break;
            }
    return keys;
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

    // The family's axes, from what the probe shows.
    const format::Family family = probe_model.family;
    SearchFacts facts;
    facts.family = family;
    facts.d_model = d;
    facts.decoder = config_record(probe_model, format::ConfigKey::decoder_layers) > 0;
    facts.learned_table =
        family == format::Family::forecaster && config_record(probe_model, format::ConfigKey::positional_encoding) ==
                                                    static_cast<uint32_t>(format::PositionalEncoding::learned);
    facts.patched = family == format::Family::forecaster && !facts.decoder && base.patch_len.has_value();
    facts.scale_heads = scale_heads;
    const Axes axes = order_axes(family_descriptor(family).search_axes(facts), user);

    ConfigSearch out;
    out.config_stated_eps = user.is_object() && user.find(config_key_name(ConfigKey::layer_norm_eps));
    std::vector<Candidate> matched;
    std::vector<CheckResult> matched_results;
    double closest_ratio = HUGE_VAL;
    Candidate closest;
    CheckResult closest_result;
    std::string first_refusal;

    // One import per combination of the axes that change the tensors a model holds (positions, a patched
    // head's flatten order); the other keys are config records, rewritten in place, so a candidate costs a
    // run, not an import.
    struct Template {
        Candidate imports;  // the import axes' indices (the others 0)
        AxmModel model;
    };
    std::vector<Template> templates;
    // Steps `c` to the next combination of the axes `vary` allows within their ranges; false after the last.
    auto next = [&](Candidate& c, const std::function<std::pair<size_t, size_t>(size_t, const Candidate&)>& range) {
        for (size_t i = axes.list.size(); i-- > 0;) {
            const auto [lo, hi] = range(i, c);
            if (c[i] + 1 < hi) {
                ++c[i];
                for (size_t j = i + 1; j < axes.list.size(); ++j) c[j] = range(j, c).first;
                return true;
            }
            c[i] = lo;
        }
        return false;
    };
    auto import_range = [&](size_t i, const Candidate&) {
        return std::pair<size_t, size_t>{0, axes.list[i].imports ? axes.list[i].values.size() : 1};
    };
    Candidate t(axes.list.size(), 0);
    do {
        try {
            // Every axis stated (the others' first values, rewritten per candidate), as in the config it finds.
            JsonValue json = candidate_json(user, axes, t);
            ConvertConfig config = parse_base(json, source);
            config.nhead = probe.nhead;  // any head count imports; the records say the tried one
            templates.push_back({t, import_model(tensors, config)});
        } catch (const ToolError& e) {
            // A positional encoding the tensors rule out ("none" beside a `pe` buffer, ...), a flatten order
            // for a head that reads one row.
            if (first_refusal.empty()) first_refusal = e.what();
            ++out.refused;
        }
    } while (next(t, import_range));
    if (templates.empty()) throw ToolError("no candidate config imports: " + first_refusal);
    // A check pair that does not fit the model's shapes fails every candidate alike: said here, plainly.
    check_model(templates.front().model, pair);

    auto try_candidate = [&](AxmModel& model, const Candidate& c) {
        set_records(model, axes, c);
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
    // The other axes over one template: an axis tried later takes [later_lo, later_hi); an axis bound to
    // another's value (with_key) varies only while that one holds it.
    auto grid = [&](size_t later_lo, size_t later_hi) {
        for (Template& tpl : templates) {
            auto range = [&](size_t i, const Candidate& c) -> std::pair<size_t, size_t> {
                const SearchAxis& a = axes.list[i];
                if (a.imports) return {tpl.imports[i], tpl.imports[i] + 1};
                if (a.later) return {later_lo, std::min(later_hi, a.values.size())};
                if (!a.with_key.empty()) {
                    const size_t w = axes.find(a.with_key);
                    if (w < i && !same_value(axes.value(c, w), a.with_value)) return {0, 1};
                }
                return {0, a.values.size()};
            };
            Candidate c(axes.list.size(), 0);
            bool empty = false;
            for (size_t i = 0; i < axes.list.size(); ++i) {
                const auto [lo, hi] = range(i, c);
                c[i] = lo;
                empty = empty || lo >= hi;
            }
            if (empty) continue;
            do try_candidate(tpl.model, c);
            while (next(c, range));
        }
    };
    // layer_norm_eps rarely shows at the tolerance (1e-5 vs 1e-6 moves unit-scale outputs by ~1e-5 of
    // them), so the grid runs with the user's eps first and the others only when nothing matched; after a
    // match they are tried on the pick alone, to say whether this check pair tells them apart.
    grid(0, 1);
    if (matched.empty()) grid(1, SIZE_MAX);
    if (out.tried == 0) throw ToolError("no candidate config runs: " + first_refusal);
    auto template_of = [&](const Candidate& c) -> Template& {
        for (Template& tpl : templates) {
            bool same = true;
            for (size_t i = 0; i < axes.list.size(); ++i)
                same = same && (!axes.list[i].imports || tpl.imports[i] == c[i]);
            if (same) return tpl;
        }
        throw ToolError("internal error: no import for the searched candidate");
    };
    if (matched.empty()) {
        out.result = closest_result;
        out.json = candidate_json(user, axes, closest);
        out.config = parse_base(out.json, source);
        out.description = describe(axes, closest);
        return out;
    }
    // Several can match when a key makes no difference at the tolerance: keep the user's config as far as
    // possible, then the search order (the user's values first).
    size_t best = 0;
    for (size_t i = 1; i < matched.size(); ++i)
        if (changes(axes, matched[i]) < changes(axes, matched[best])) best = i;
    const Candidate pick = matched[best];
    out.found = true;
    out.result = matched_results[best];
    for (size_t i = 0; i < axes.list.size(); ++i)
        if (axes.list[i].later)
            for (size_t v = 0; v < axes.list[i].values.size(); ++v)
                if (v != pick[i]) {
                    Candidate other = pick;
                    other[i] = v;
                    try_candidate(template_of(other).model, other);
                }
    const size_t eps_axis = axes.find(config_key_name(ConfigKey::layer_norm_eps));
    auto eps_of = [&](const Candidate& c) {
        return eps_axis < axes.list.size() && axes.value(c, eps_axis) ? axes.value(c, eps_axis)->as_number("")
                                                                      : base.layer_norm_eps;
    };
    out.matches.push_back(describe(axes, pick));
    out.matched_eps.push_back(eps_of(pick));
    for (size_t i = 0; i < matched.size(); ++i)
        if (i != best) {
            out.matches.push_back(describe(axes, matched[i]));
            out.matched_eps.push_back(eps_of(matched[i]));
        }
    out.varying = varying_keys(axes, matched);
    out.json = candidate_json(user, axes, pick);
    out.config = parse_base(out.json, source);
    // The rewritten records must be what an import of the picked config writes.
    AxmModel& model = template_of(pick).model;
    set_records(model, axes, pick);
    // Records are looked up by key: compared in key order.
    auto sorted = [](std::vector<std::pair<format::ConfigKey, uint32_t>> r) {
        std::sort(r.begin(), r.end());
        return r;
    };
    const auto imported = sorted(import_model(tensors, out.config).config), searched = sorted(model.config);
    if (imported != searched) {
        std::string diff;
        for (const auto& r : imported)
            if (std::find(searched.begin(), searched.end(), r) == searched.end())
                diff += " import " + std::to_string(static_cast<uint32_t>(r.first)) + "=" + std::to_string(r.second);
        for (const auto& r : searched)
            if (std::find(imported.begin(), imported.end(), r) == imported.end())
                diff += " search " + std::to_string(static_cast<uint32_t>(r.first)) + "=" + std::to_string(r.second);
        throw ToolError("internal error: the searched model's config records differ from an import's:" + diff);
    }
    out.description = describe(axes, pick);
    return out;
}

std::string searched_keys_text(const AxmModel& m) {
    SearchFacts facts;
    facts.family = m.family;
    facts.d_model = find_record(m, ConfigKey::d_model).value_or(0);
    facts.decoder = find_record(m, ConfigKey::decoder_layers).value_or(0) > 0;
    facts.patched = find_record(m, ConfigKey::patch_len).value_or(0) > 0;
    std::string text;
    for (const SearchAxis& a : family_descriptor(m.family).search_axes(facts))
        text += (text.empty() ? "" : ", ") + a.key;
    return text;
}

std::set<std::string> searched_config_keys() {
    std::set<std::string> keys;
    for (const FamilyDescriptor* d : family_descriptors())
        for (const bool decoder : {false, true})
            for (const bool patched : {false, true}) {
                SearchFacts facts;
                facts.family = d->family;
                facts.d_model = 1;
                facts.decoder = decoder;
                facts.patched = patched;
                for (const SearchAxis& a : d->search_axes(facts)) keys.insert(a.key);
            }
    return keys;
}

}  // namespace ax::tools
