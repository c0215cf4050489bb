#include "tools/import/config_scope.h"

#include <algorithm>

#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

struct KeyScope {
    const char* key;
    const char* families;  // letters: f forecaster, s seq2seq, c classifier, t tvae; "-": training-only
};

constexpr KeyScope kScopes[] = {
    {"arch", "fsct"},
    {"nhead", "fsct"},
    {"activation", "fsct"},
    {"norm_first", "fsct"},
    {"layer_norm_eps", "fsct"},
    {"positional_encoding", "fsct"},
    {"d_model", "fsct"},
    {"dim_feedforward", "fsct"},
    {"num_encoder_layers", "fsct"},
    {"num_decoder_layers", "fsct"},
    {"memory_mask", "f"},
    {"normalization", "f"},
    {"n_outputs", "f"},
    {"n_features", "ft"},
    {"features", "ft"},
    {"pad_id", "sc"},
    {"bos_id", "s"},
    {"eos_id", "s"},
    {"start_id", "c"},
    {"embed_scale", "fsc"},
    {"pooling", "c"},
    {"output_activation", "c"},
    {"n_labels", "c"},
    {"src_vocab", "sc"},
    {"tgt_vocab", "s"},
    {"latent_size", "t"},
    {"max_positions", "fsc"},
    {"window", "f"},
    {"outputs", "f"},
    {"head", "f"},
    {"decoder_positional_encoding", "f"},
    {"encoder_mask", "f"},
    {"input_embedding", "f"},
    {"decoding", "f"},
    {"placeholder", "f"},
    {"head_activation", "f"},
    {"horizon", "f"},
    {"label_len", "f"},
    {"decode_mask_pads", "s"},
    {"dropout", "-"},
    {"batch_first", "-"},
    {"comment", "fsct"},
};

char family_letter(format::Family arch) {
    return arch == format::Family::seq2seq      ? 's'
           : arch == format::Family::classifier ? 'c'
           : arch == format::Family::tvae       ? 't'
                                                : 'f';
}

// A stated value that is the family's behaviour anyway changes nothing.
bool neutral(const ConvertConfig& c, const std::string& key) {
    return (key == "memory_mask" && c.memory_mask == format::MemoryMask::none) ||
           (key == "normalization" && c.normalization.mode == format::Normalization::none);
}

}  // namespace

const std::vector<std::string>& known_config_keys() {
    static const std::vector<std::string> keys = [] {
        std::vector<std::string> k;
        for (const KeyScope& s : kScopes) k.push_back(s.key);
        return k;
    }();
    return keys;
}

std::vector<std::string> check_config_scope(const ConvertConfig& config) {
    const char family = family_letter(config.arch);
    std::vector<std::string> ignored, refused;
    for (const std::string& key : config.keys) {
        const KeyScope* scope =
            std::find_if(std::begin(kScopes), std::end(kScopes), [&](const KeyScope& s) { return key == s.key; });
        if (scope == std::end(kScopes)) continue;  // checked by the reader
        const std::string families = scope->families;
        if (families == "-" || (families.find(family) == std::string::npos && neutral(config, key)))
            ignored.push_back(key);
        else if (families.find(family) == std::string::npos)
            refused.push_back(key);
    }
    if (!refused.empty()) {
        std::string list;
        for (const std::string& k : refused) list += (list.empty() ? "\"" : ", \"") + k + "\"";
        throw ToolError("config keys that do not apply to a " + enum_text(config.arch) + " model: " + list +
                        " (remove " + (refused.size() > 1 ? "them" : "it") + ")");
    }
    return ignored;
}

}  // namespace ax::tools
