#include "tools/import/classifier_import.h"

#include <algorithm>

#include "runtime/bytes.h"
#include "tools/import/import_common.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

using format::ConfigKey;
using format::Role;

namespace {

struct ClassifierTables {
    std::string src_tokens, tgt_tokens;  // tgt: the decoder's own table ("" when it shares the input's)
    std::string head;                    // module name; its bias may be absent
};

// The token tables and the head among the 2-D [rows, d_model] weights left after the stacks. A bias-free
// nn.Linear(d, n_labels, bias=False) looks like a table, so the head is the one Linear(d, .) with a bias,
// or else the one bias-free weight not named like an embedding ("emb") or the canonical "head".
ClassifierTables pick_classifier_tables(const CheckpointTensors& ck, const TokenTables& tables,
                                        const ConvertConfig& config, int64_t d, bool decoder) {
    auto module = [](const std::string& weight) { return weight.substr(0, weight.size() - 7); };
    std::vector<std::string> biased, bias_free, embeddings;
    for (const std::string& l : find_linear_modules(ck))
        if (ck.shape(l + ".weight")[1] == d) biased.push_back(l);
    for (const std::string& w : tables.tokens) {
        const std::string m = module(w);
        const bool head_named = m == "head" || (m.size() > 5 && m.compare(m.size() - 5, 5, ".head") == 0);
        (!head_named && name_has(m, {"emb"}) ? embeddings : bias_free).push_back(w);
    }
    if (embeddings.empty() && bias_free.empty())
        throw ToolError("cannot find the token embedding: expected an nn.Embedding table [vocab, d_model] (d_model " +
                        std::to_string(d) + ") besides position tables; found none");
    ClassifierTables t;
    std::vector<std::string> candidates = biased;
    for (const std::string& w : bias_free) candidates.push_back(module(w) + " (no bias)");
    if (config.n_labels) {  // a stated label count narrows the candidates
        auto rows_differ = [&](const std::string& m) { return ck.shape(m + ".weight")[0] != *config.n_labels; };
        biased.erase(std::remove_if(biased.begin(), biased.end(), rows_differ), biased.end());
        std::vector<std::string> keep;
        for (const std::string& w : bias_free) (ck.shape(w)[0] == *config.n_labels ? keep : embeddings).push_back(w);
        bias_free = keep;
    }
    std::vector<std::string> tokens = embeddings;
    if (biased.size() == 1) {
        t.head = biased[0];
        tokens.insert(tokens.end(), bias_free.begin(), bias_free.end());
    } else if (biased.empty() && bias_free.size() == 1) {
        t.head = module(bias_free[0]);
    } else {
        throw ToolError(
            "cannot find the classification head: expected one nn.Linear(d_model, n_labels) (weight [n_labels, " +
            std::to_string(d) +
            "], with or without a bias) besides the token tables (named with "
            "\"emb\"); candidates: " +
            name_list(candidates) +
            ". Name it with one map line "
            "\"MODULE.weight -> head.weight\" (and \"MODULE.bias -> head.bias\"), or state "
            "\"n_labels\" in the config");
    }
    std::sort(tokens.begin(), tokens.end());
    if (tokens.size() == 1) {
        t.src_tokens = tokens[0];
    } else if (tokens.size() == 2 && decoder) {
        t.src_tokens = pick_by_words(tokens, kSourceWords, kTargetWords);
        t.tgt_tokens = pick_by_words(tokens, kTargetWords, kSourceWords);
        if (t.src_tokens.empty() || t.tgt_tokens.empty() || t.src_tokens == t.tgt_tokens)
            throw ToolError("cannot tell the encoder's and the decoder's token tables apart: found " +
                            name_list(tokens) +
                            "; name them with map lines \"X.weight -> src_token_embed.weight\" and "
                            "\"Y.weight -> tgt_token_embed.weight\"");
    } else {
        throw ToolError("cannot find the token embedding: expected one nn.Embedding table [vocab, d_model] (d_model " +
                        std::to_string(d) + ")" + (decoder ? " for the encoder and at most one for the decoder" : "") +
                        " besides position tables; found: " + name_list(tokens));
    }
    const int64_t vocab = ck.shape(t.src_tokens)[0];
    if (vocab < 1 || vocab > (1 << 16)) throw ToolError("token table " + t.src_tokens + " must have 1..65536 rows");
    if (!t.tgt_tokens.empty() && (ck.shape(t.tgt_tokens)[0] < 1 || ck.shape(t.tgt_tokens)[0] > (1 << 16)))
        throw ToolError("token table " + t.tgt_tokens + " must have 1..65536 rows");
    return t;
}

}  // namespace

AxmModel import_classifier(const TensorMap& tensors, const ConvertConfig& config) {
    // Keys of other families were refused by check_config_scope (tools/import/config_scope.h), their one home.
    if (!config.output_activation)
        throw ToolError("a classifier needs \"output_activation\": \"sigmoid\" (multi-label), \"softmax\" or \"none\"");
    CheckpointTensors ck(tensors);
    AxmModel m;
    m.family = format::Family::classifier;
    const StackShape s = import_stacks(ck, m, config, false, true, "classifier");
    const int64_t d = s.d_model;

    TokenTables tables = find_token_tables(ck, d);
    const ClassifierTables t = pick_classifier_tables(ck, tables, config, d, s.decoder_layers > 0);
    const std::string& table = t.src_tokens;
    const int64_t vocab = ck.shape(table)[0];
    check_stated(config.src_vocab, vocab, ConfigKey::src_vocab, table, ck.shape(table));
    const int64_t dec_vocab = t.tgt_tokens.empty() ? 0 : ck.shape(t.tgt_tokens)[0];
    if (dec_vocab)
        check_stated(config.tgt_vocab, dec_vocab, ConfigKey::tgt_vocab, t.tgt_tokens, ck.shape(t.tgt_tokens));
    else if (config.tgt_vocab)
        throw ToolError("config \"tgt_vocab\" is the decoder's own token table, and this classifier has none");

    int64_t max_positions = 0;
    const format::PositionalEncoding pe =
        decide_positions(config, tables, d, 1, s.decoder_layers > 0 ? 2 : 1, &max_positions, &m.unproven);
    std::string src_pos, tgt_pos;
    if (pe == format::PositionalEncoding::learned) {
        src_pos = tables.positions[0];
        if (tables.positions.size() == 2) {
            src_pos = pick_by_words(tables.positions, kSourceWords, kTargetWords);
            tgt_pos = pick_by_words(tables.positions, kTargetWords, kSourceWords);
            if (src_pos.empty() || tgt_pos.empty() || src_pos == tgt_pos)
                throw ToolError("cannot tell the encoder's and the decoder's learned position tables apart: found " +
                                name_list(tables.positions) +
                                "; name them in a rename map (X.weight -> "
                                "src_pos_embed.weight, Y.weight -> tgt_pos_embed.weight)");
        }
        max_positions = ck.shape(src_pos)[0];
        if (max_positions < 1 || max_positions > (1 << 20))
            throw ToolError("position table " + src_pos + " must have 1..1048576 rows");
    }
    max_positions = max_positions_of(config, max_positions, "position table");

    const int64_t labels = ck.shape(t.head + ".weight")[0];
    check_stated(config.n_labels, labels, "n_labels", t.head + ".weight", ck.shape(t.head + ".weight"));

    add_tensor(ck, m, Role::src_token_embed, table, {vocab, d});
    if (dec_vocab) add_tensor(ck, m, Role::tgt_token_embed, t.tgt_tokens, {dec_vocab, d});
    if (pe == format::PositionalEncoding::learned) add_tensor(ck, m, Role::src_pos_embed, src_pos, {max_positions, d});
    if (!tgt_pos.empty()) add_tensor(ck, m, Role::tgt_pos_embed, tgt_pos, {ck.shape(tgt_pos)[0], d});
    add_tensor(ck, m, Role::head_weight, t.head + ".weight", {labels, d});
    if (ck.has(t.head + ".bias")) {
        add_tensor(ck, m, Role::head_bias, t.head + ".bias", {labels});
    } else {  // nn.Linear(d, n_labels, bias=False)
        HostTensor zeros;
        zeros.shape = {labels};
        zeros.data.assign(static_cast<size_t>(labels), 0.0f);
        m.tensors.push_back(make_tensor(Role::head_bias, format::kNoLayer, t.head + ".bias (none: zeros)", zeros));
    }
    ck.check_all_used("classifier");

    const uint32_t pad = token_id(config.pad_id, vocab, ConfigKey::pad_id);
    const uint32_t start = token_id(config.start_id, dec_vocab ? dec_vocab : vocab, ConfigKey::start_id);
    if (s.decoder_layers > 0 && start == format::kNoToken)
        throw ToolError("the classifier has a decoder: the config needs \"start_id\", the token fed to it");
    if (s.decoder_layers == 0 && start != format::kNoToken)
        throw ToolError("\"start_id\" is for a classifier with a decoder; this checkpoint has none");
    if (s.decoder_layers > 0 && config.pooling)
        throw ToolError("\"pooling\" does not apply to a classifier with a decoder (its one output row is used)");
    if (format::positions_from_one(pe) && pad == format::kNoToken)
        throw ToolError("\"positional_encoding\": \"sinusoidal_pad0\" needs a \"pad_id\"");
    add_stack_config(m, s, config);
    m.config.insert(m.config.end(),
                    {
                        {ConfigKey::src_vocab, static_cast<uint32_t>(vocab)},
                        {ConfigKey::n_outputs, static_cast<uint32_t>(labels)},
                        {ConfigKey::pad_id, pad},
                        {ConfigKey::start_id, start},
                        {ConfigKey::positional_encoding, static_cast<uint32_t>(pe)},
                        {ConfigKey::max_positions, static_cast<uint32_t>(max_positions)},
                        {ConfigKey::embed_scale, float_to_bits(embed_scale_value(config, d, 1.0f))},
                        {ConfigKey::pooling, static_cast<uint32_t>(config.pooling.value_or(format::Pooling::mean))},
                        {ConfigKey::output_activation, static_cast<uint32_t>(*config.output_activation)},
                    });
    if (dec_vocab) m.config.push_back({ConfigKey::tgt_vocab, static_cast<uint32_t>(dec_vocab)});
    return m;
}

}  // namespace ax::tools
