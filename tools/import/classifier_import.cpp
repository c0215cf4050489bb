#include "tools/import/classifier_import.h"

#include "runtime/bytes.h"
#include "tools/import/import_common.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

using format::ConfigKey;
using format::Role;

AxmModel import_classifier(const TensorMap& tensors, const ConvertConfig& config) {
    if (config.bos_id || config.eos_id || config.tgt_vocab || config.latent_size || config.memory_mask != format::MemoryMask::none ||
        config.normalization.mode != format::Normalization::none || config.n_features || config.n_outputs)
        throw ToolError("config keys bos_id, eos_id, tgt_vocab, latent_size, memory_mask, normalization, n_features "
                        "and n_outputs do not apply to a classifier (its labels are \"n_labels\")");
    if (!config.output_activation)
        throw ToolError("a classifier needs \"output_activation\": \"sigmoid\" (multi-label), \"softmax\" or \"none\"");
    CheckpointTensors ck(tensors);
    AxmModel m;
    m.family = format::Family::classifier;
    const StackShape s = import_stacks(ck, m, config, false, true, "classifier");
    const int64_t d = s.d_model;

    TokenTables tables = find_token_tables(ck, d);
    if (tables.tokens.size() != 1)
        throw ToolError("cannot find the token embedding: expected one nn.Embedding table [vocab, d_model] (d_model " +
                        std::to_string(d) + ") besides position tables; found: " + name_list(tables.tokens));
    const std::string table = tables.tokens[0];
    const int64_t vocab = ck.shape(table)[0];
    if (vocab < 1 || vocab > (1 << 16)) throw ToolError("token table " + table + " must have 1..65536 rows");
    check_stated(config.src_vocab, vocab, "src_vocab", table, ck.shape(table));

    int64_t max_positions = 0;
    const format::PositionalEncoding pe = decide_positions(config, tables, d, 1, &max_positions);
    if (pe == format::PositionalEncoding::learned) {
        max_positions = ck.shape(tables.positions[0])[0];
        if (max_positions < 1 || max_positions > (1 << 20))
            throw ToolError("position table " + tables.positions[0] + " must have 1..1048576 rows");
    }
    if (config.max_positions && max_positions != 0 && *config.max_positions != max_positions)
        throw ToolError("config \"max_positions\" = " + std::to_string(*config.max_positions) +
                        " contradicts the position table's " + std::to_string(max_positions) + " positions");
    if (config.max_positions && max_positions == 0) max_positions = *config.max_positions;

    std::vector<std::string> heads;
    const std::vector<std::string> linears = find_linear_modules(ck);
    for (const std::string& l : linears)
        if (ck.shape(l + ".weight")[1] == d) heads.push_back(l);
    if (heads.size() != 1)
        throw ToolError("cannot find the classification head: expected one nn.Linear(d_model, n_labels) with weight "
                        "[n_labels, " + std::to_string(d) + "]; found Linear modules: " + name_list(linears));
    const int64_t labels = ck.shape(heads[0] + ".weight")[0];
    check_stated(config.n_labels, labels, "n_labels", heads[0] + ".weight", ck.shape(heads[0] + ".weight"));

    auto add = [&](Role role, const std::string& name, std::vector<int64_t> shape) {
        m.tensors.push_back(make_tensor(role, format::kNoLayer, name, ck.take(name, shape)));
    };
    add(Role::src_token_embed, table, {vocab, d});
    if (pe == format::PositionalEncoding::learned) add(Role::src_pos_embed, tables.positions[0], {max_positions, d});
    add(Role::head_weight, heads[0] + ".weight", {labels, d});
    add(Role::head_bias, heads[0] + ".bias", {labels});
    ck.check_all_used("classifier");

    const uint32_t pad = token_id(config.pad_id, vocab, "pad_id");
    const uint32_t start = token_id(config.start_id, vocab, "start_id");
    if (s.decoder_layers > 0 && start == format::kNoToken)
        throw ToolError("the classifier has a decoder: the config needs \"start_id\", the token fed to it");
    if (s.decoder_layers == 0 && start != format::kNoToken)
        throw ToolError("\"start_id\" is for a classifier with a decoder; this checkpoint has none");
    if (s.decoder_layers > 0 && config.pooling)
        throw ToolError("\"pooling\" does not apply to a classifier with a decoder (its one output row is used)");
    if (pe == format::PositionalEncoding::sinusoidal_pad0 && pad == format::kNoToken)
        throw ToolError("\"positional_encoding\": \"sinusoidal_pad0\" needs a \"pad_id\"");
    add_stack_config(m, s, config);
    m.config.insert(m.config.end(), {
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
    return m;
}

}  // namespace ax::tools
