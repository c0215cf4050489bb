#include "tools/families/family_common.h"

#include <cmath>
#include <cstdio>

#include "runtime/tokenizer.h"
#include "tools/common/enum_text.h"

namespace ax::tools {

namespace {

// SentencePiece's normalized text: expansion bytes per input byte plus the dummy prefix's 3.
std::string normalized_bytes(const Vocabulary& v, const std::string& n) {
    return "(" + std::to_string(v.expansion()) + "u * (" + n + ") + 3u)";
}

}  // namespace

std::string text_scratch_expression(const Vocabulary& v, const std::string& n) {
    const std::string text = normalized_bytes(v, n);
    switch (v.tokenizer()) {
        case format::Tokenizer::words:
            return "(0u * (" + n + "))";
        case format::Tokenizer::basic_english:
            return "(4u * (" + n + "))";
        case format::Tokenizer::unigram:
            return "((" + text + " + 7u) / 8u * 8u + " + std::to_string(kUnigramNodeBytes) + "u * (" + text + " + 1u))";
        case format::Tokenizer::bpe:
            return "((" + text + " + 7u) / 8u * 8u + " + std::to_string(kBpeSymbolBytes) + "u * " + text + ")";
    }
    return "0u";
}

void add_vocabulary_macros(std::vector<HeaderMacro>& macros, const Vocabulary& v, const std::string& prefix) {
    if (!v.present()) return;
    const bool spm = v.tokenizer() == format::Tokenizer::unigram || v.tokenizer() == format::Tokenizer::bpe;
    macros.push_back({prefix + "TEXT_SCRATCH_BYTES(n)", text_scratch_expression(v, "n") +
                                                            " /* tokenizer scratch for texts of n bytes (" +
                                                            enum_text(v.tokenizer()) + ") */"});
    macros.push_back({prefix + "TEXT_MAX_IDS(n)", (spm ? normalized_bytes(v, "n") : std::string("(n)")) +
                                                      " /* ids a text of n bytes gives at most */"});
}

std::string vocabulary_text(const Vocabulary& v) {
    if (!v.present()) return "none (convert with --vocab to translate or classify text)";
    std::string text = std::to_string(v.size()) + " tokens, " + enum_text(v.tokenizer());
    if (v.tokenizer() == format::Tokenizer::unigram || v.tokenizer() == format::Tokenizer::bpe)
        text +=
            std::string(v.charsmap_bytes() ? ", normalization table " + std::to_string(v.charsmap_bytes()) + " bytes"
                                           : ", no normalization table") +
            ((v.flags() & vocab::add_dummy_prefix) ? ", dummy prefix" : "") +
            ((v.flags() & vocab::remove_extra_whitespaces) ? ", extra spaces removed" : "");
    text +=
        ", unknown words -> " + (v.unk_id() == format::kNoToken ? std::string("error") : std::to_string(v.unk_id()));
    return text;
}

std::string token_text(uint32_t id) { return id == format::kNoToken ? "none" : std::to_string(id); }

std::string positions_text(size_t max_positions) { return max_positions ? std::to_string(max_positions) : "unlimited"; }

std::string token_inputs_line(format::PositionalEncoding pe, size_t max_positions, float embed_scale) {
    char scale[32];
    std::snprintf(scale, sizeof scale, "%g", static_cast<double>(embed_scale));
    return "inputs:   positional_encoding " + enum_text(pe) + ", max_positions " + positions_text(max_positions) +
           ", embed_scale " + scale;
}

HeaderMacro macro(const char* name, size_t v, const std::string& what) {
    return {name, std::to_string(v) + " /* " + what + " */"};
}

std::vector<int32_t> bench_tokens(size_t n, size_t vocab, uint32_t pad) {
    std::vector<int32_t> ids(n);
    for (size_t i = 0; i < n; ++i) {
        size_t id = (i * 7 + 3) % vocab;
        if (id == pad) id = (id + 1) % vocab;
        ids[i] = static_cast<int32_t>(id);
    }
    return ids;
}

std::vector<float> bench_series(size_t n, float phase) {
    std::vector<float> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = std::sin(0.1f * static_cast<float>(i) + phase);
    return v;
}

std::vector<std::optional<JsonValue>> text_values(std::initializer_list<const char*> names) {
    std::vector<std::optional<JsonValue>> values;
    for (const char* name : names) values.emplace_back(JsonValue::make_string(name));
    return values;
}

std::vector<SearchAxis> stack_search_axes(const SearchFacts& facts) {
    SearchAxis heads{"nhead", {}};
    for (int64_t h = 1; h <= facts.d_model; ++h)
        if (facts.d_model % h == 0 && (!facts.scale_heads || h == *facts.scale_heads))
            heads.values.emplace_back(JsonValue::make_integer(static_cast<uint64_t>(h)));
    heads.user_value_always = false;
    heads.counts_when_unstated = false;
    SearchAxis eps{"layer_norm_eps", {JsonValue::make_number(1e-5), JsonValue::make_number(1e-6)}};
    eps.later = true;
    const bool token_family = facts.family == format::Family::seq2seq || facts.family == format::Family::classifier;
    const bool learned = facts.family == format::Family::forecaster && facts.learned_table;
    SearchAxis positions{"positional_encoding", token_family
                                                    ? text_values({"learned", "sinusoidal", "sinusoidal_pad0", "none"})
                                                : learned ? text_values({"learned"})
                                                          : text_values({"sinusoidal", "none"})};
    positions.imports = true;
    positions.user_value_always = !learned;
    positions.counts_when_unstated = false;
    return {heads,
            {"activation", text_values({"relu", "gelu"})},
            {"norm_first", {JsonValue::make_bool(false), JsonValue::make_bool(true)}},
            eps,
            positions};
}

}  // namespace ax::tools
