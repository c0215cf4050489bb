#include "tools/import/seq2seq_import.h"

#include <cmath>

#include "runtime/bytes.h"
#include "tools/import/import_common.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

using format::ConfigKey;
using format::Role;

AxmModel import_seq2seq(const TensorMap& tensors, const ConvertConfig& config) {
    // Keys of other families were refused by check_config_scope (tools/import/config_scope.h), their one home.
    CheckpointTensors ck(tensors);
    AxmModel m;
    m.family = format::Family::seq2seq;
    const StackShape s = import_stacks(ck, m, config, true, true, "seq2seq translator");
    const int64_t d = s.d_model;

    TokenTables tables = find_token_tables(ck, d);
    std::string src_table, tgt_table;
    if (tables.tokens.size() == 2) {
        src_table = pick_by_words(tables.tokens, kSourceWords, kTargetWords);
        tgt_table = pick_by_words(tables.tokens, kTargetWords, kSourceWords);
    }
    if (src_table.empty() || tgt_table.empty() || src_table == tgt_table)
        throw ToolError(
            "cannot find the source and target token embeddings: expected two nn.Embedding tables "
            "[vocab, d_model] (d_model " +
            std::to_string(d) +
            ") named like src_tok_emb and "
            "tgt_tok_emb; found tables: " +
            name_list(tables.tokens) +
            "; name them with map lines \"X.weight -> src_token_embed.weight\" and "
            "\"Y.weight -> tgt_token_embed.weight\"");
    const int64_t src_vocab = ck.shape(src_table)[0];
    const int64_t tgt_vocab = ck.shape(tgt_table)[0];
    if (src_vocab < 1 || tgt_vocab < 1 || src_vocab > (1 << 16) || tgt_vocab > (1 << 16))
        throw ToolError("token tables " + src_table + " and " + tgt_table + " must have 1..65536 rows");
    check_stated(config.src_vocab, src_vocab, ConfigKey::src_vocab, src_table, ck.shape(src_table));
    check_stated(config.tgt_vocab, tgt_vocab, ConfigKey::tgt_vocab, tgt_table, ck.shape(tgt_table));

    int64_t max_positions = 0;
    const format::PositionalEncoding pe = decide_positions(config, tables, d, 2, 2, &max_positions, &m.unproven);
    std::string src_pos, tgt_pos;
    if (pe == format::PositionalEncoding::learned) {
        src_pos = pick_by_words(tables.positions, kSourceWords, kTargetWords);
        tgt_pos = pick_by_words(tables.positions, kTargetWords, kSourceWords);
        if (src_pos.empty() || tgt_pos.empty() || src_pos == tgt_pos)
            throw ToolError(
                "cannot tell the learned source and target position tables apart: expected names like "
                "src_pos_embed and tgt_pos_embed; found " +
                name_list(tables.positions) +
                "; name them with map lines \"X.weight -> src_pos_embed.weight\" and "
                "\"Y.weight -> tgt_pos_embed.weight\"");
        max_positions = ck.shape(src_pos)[0];
        if (max_positions < 1 || max_positions > (1 << 20))
            throw ToolError("position table " + src_pos + " must have 1..1048576 rows");
        if (ck.shape(tgt_pos)[0] != max_positions)
            throw ToolError("position tables " + src_pos + " " + shape_text(ck.shape(src_pos)) + " and " + tgt_pos +
                            " " + shape_text(ck.shape(tgt_pos)) + " differ in length");
    }
    max_positions = max_positions_of(config, max_positions, "position table");

    std::vector<std::string> gens;
    const std::vector<std::string> linears = find_linear_modules(ck);
    for (const std::string& l : linears)
        if (ck.shape(l + ".weight") == std::vector<int64_t>{tgt_vocab, d}) gens.push_back(l);
    if (gens.size() != 1)
        throw ToolError("cannot find the generator: expected one nn.Linear(d_model, tgt_vocab) with weight [" +
                        std::to_string(tgt_vocab) + ", " + std::to_string(d) + "]; found Linear modules: " +
                        name_list(linears) + "; name it with a map line \"MODULE.{p} -> generator.{p}\"");

    add_tensor(ck, m, Role::src_token_embed, src_table, {src_vocab, d});
    add_tensor(ck, m, Role::tgt_token_embed, tgt_table, {tgt_vocab, d});
    if (pe == format::PositionalEncoding::learned) {
        add_tensor(ck, m, Role::src_pos_embed, src_pos, {max_positions, d});
        add_tensor(ck, m, Role::tgt_pos_embed, tgt_pos, {max_positions, d});
    }
    add_linear(ck, m, Role::generator_weight, gens[0], tgt_vocab, d);
    ck.check_all_used("seq2seq translator");

    const int64_t both = src_vocab < tgt_vocab ? src_vocab : tgt_vocab;
    const uint32_t pad = token_id(config.pad_id, both, ConfigKey::pad_id);
    const uint32_t bos = token_id(config.bos_id, tgt_vocab, ConfigKey::bos_id);
    const uint32_t eos = token_id(config.eos_id, tgt_vocab, ConfigKey::eos_id);
    if (format::positions_from_one(pe) && pad == format::kNoToken)
        throw ToolError("\"positional_encoding\": \"sinusoidal_pad0\" needs a \"pad_id\"");
    add_stack_config(m, s, config);
    const float scale = embed_scale_value(config, d, static_cast<float>(std::sqrt(static_cast<double>(d))));
    m.config.insert(m.config.end(),
                    {
                        {ConfigKey::src_vocab, static_cast<uint32_t>(src_vocab)},
                        {ConfigKey::tgt_vocab, static_cast<uint32_t>(tgt_vocab)},
                        {ConfigKey::pad_id, pad},
                        {ConfigKey::bos_id, bos},
                        {ConfigKey::eos_id, eos},
                        {ConfigKey::positional_encoding, static_cast<uint32_t>(pe)},
                        {ConfigKey::max_positions, static_cast<uint32_t>(max_positions)},
                        {ConfigKey::embed_scale, float_to_bits(scale)},
                        {ConfigKey::decode_mask_pads, config.decode_mask_pads.value_or(false) ? 1u : 0u},
                    });
    return m;
}

}  // namespace ax::tools
