#include "tools/family/family_common.h"

#include <cmath>
#include <cstdio>

#include "tools/common/enum_text.h"

namespace ax::tools {

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

}  // namespace ax::tools
