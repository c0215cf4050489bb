#include "tools/import/assumed_defaults.h"

#include <cstdio>

#include "runtime/bytes.h"

namespace ax::tools {

namespace {

using format::ConfigKey;

// The converter's config keys whose values land in one model config record, by that record's key.
struct Assumable {
    ConfigKey key;
    const char* name;
};
constexpr Assumable kAssumable[] = {
    {ConfigKey::activation, "activation"},
    {ConfigKey::norm_first, "norm_first"},
    {ConfigKey::layer_norm_eps, "layer_norm_eps"},
    {ConfigKey::positional_encoding, "positional_encoding"},
    {ConfigKey::memory_mask, "memory_mask"},
    {ConfigKey::normalization, "normalization"},
    {ConfigKey::pad_id, "pad_id"},
    {ConfigKey::bos_id, "bos_id"},
    {ConfigKey::eos_id, "eos_id"},
    {ConfigKey::embed_scale, "embed_scale"},
    {ConfigKey::pooling, "pooling"},
    {ConfigKey::decode_mask_pads, "decode_mask_pads"},
};

std::string value_text(ConfigKey key, uint32_t v) {
    char buf[32];
    switch (key) {
        case ConfigKey::activation:
            return v ? "\"gelu\"" : "\"relu\"";
        case ConfigKey::norm_first:
        case ConfigKey::decode_mask_pads:
            return v ? "true" : "false";
        case ConfigKey::layer_norm_eps:
        case ConfigKey::embed_scale:
            std::snprintf(buf, sizeof buf, "%g", static_cast<double>(bits_to_float(v)));
            return buf;
        case ConfigKey::positional_encoding: {
            static const char* const names[] = {"\"none\"", "\"sinusoidal\"", "\"learned\"", "\"sinusoidal_pad0\"",
                                                "\"sinusoidal_pad0\""};
            return v < 5 ? std::string(names[v]) + " (from the tensors)" : std::to_string(v);
        }
        case ConfigKey::memory_mask:
            return v ? "\"tril\""
                     : "\"none\" (the decoder sees all of the memory; a forecaster trained with "
                       "memory_mask=tril needs \"memory_mask\": \"tril\")";
        case ConfigKey::normalization:
            return "\"none\"";
        case ConfigKey::pooling:
            return v == 1 ? "\"max\"" : v == 2 ? "\"first\"" : "\"mean\"";
        case ConfigKey::pad_id:
        case ConfigKey::bos_id:
        case ConfigKey::eos_id:
            return v == format::kNoToken ? "none" : std::to_string(v);
        default:
            return std::to_string(v);
    }
}

}  // namespace

void record_assumed_defaults(AxmModel& m, const ConvertConfig& config) {
    bool decoder = false;
    for (const auto& [key, value] : m.config) decoder = decoder || (key == ConfigKey::decoder_layers && value > 0);
    uint32_t bits = 0;
    std::string list;
    for (const Assumable& a : kAssumable) {
        if (config.stated.count(a.name)) continue;
        for (const auto& [key, value] : m.config) {
            if (key != a.key) continue;
            // A classifier with a decoder pools nothing: its pooling record is not a choice.
            if (key == ConfigKey::pooling && decoder) continue;
            bits |= 1u << static_cast<uint32_t>(key);
            list += (list.empty() ? "" : ", ") + std::string("\"") + a.name + "\": " + value_text(key, value);
        }
    }
    if (bits == 0) return;
    m.config.insert(m.config.begin(), {ConfigKey::defaults, bits});
    m.notes.push_back("assumed (not in the config): " + list);
}

std::string assumed_defaults_text(uint32_t bits) {
    std::string s;
    for (const Assumable& a : kAssumable)
        if (bits & (1u << static_cast<uint32_t>(a.key))) s += (s.empty() ? "" : ", ") + std::string(a.name);
    return s;
}

}  // namespace ax::tools
