#include "tools/onnx_import/seq2seq_lowering.h"

#include "tools/onnx_import/classifier_lowering.h"
#include "tools/onnx_import/stack_lowering.h"

namespace ax::onnx_import {

LoweredGraph lower_seq2seq(const onnx::Model& original, const onnx::FoldedGraph& folded) {
    LoweredGraph out;
    out.family = format::Family::seq2seq;
    GraphView g(folded);
    StackLowering low{g, original, out.tensors, out.notes, out.block_outputs, {}, {}, {}};
    const std::vector<const onnx::ValueInfo*> fed = folded.model.fed_inputs();
    if (fed.size() != 2 || folded.model.graph.outputs.size() != 1)
        throw ToolError("a translator's graph reads source and target ids [batch, length] and gives one output");
    low.find_attentions("translator");

    out.src_input = fed[0]->name;
    out.tgt_input = fed[1]->name;
    // Batch first [batch, length], or sequence first [length, batch] (the translation tutorial's layout).
    const bool seq_first = sequence_first(*fed[0]);
    if (seq_first != sequence_first(*fed[1]))
        throw ToolError("the source ids are laid out " + std::string(seq_first ? "sequence" : "batch") +
                        " first, the target's otherwise");
    const size_t row_axis = seq_first ? 0 : 1;
    out.sequence_first = seq_first;
    const StackLowering::InputSide src = low.token_side(out.src_input, g.shape(out.src_input)[row_axis]);
    const StackLowering::InputSide tgt = low.token_side(out.tgt_input, g.shape(out.tgt_input)[row_axis]);
    size_t enc_layers = 0, dec_layers = 0;
    const std::string memory = low.stack(src.value, "transformer.encoder.", nullptr, &enc_layers);
    const std::string last = low.stack(tgt.value, "transformer.decoder.", &memory, &dec_layers);
    if (enc_layers == 0 || dec_layers == 0)
        throw ToolError(std::string("found no ") +
                        (enc_layers == 0 ? "encoder layer after the source" : "decoder layer after the target") +
                        " embedding: lowered are Transformer layers of attention, residual adds, LayerNorms and a "
                        "feed-forward pair, post- or pre-norm");
    if (low.facts.decoder_mask != MaskKind::causal)
        throw ToolError(
            "the translator's decoder attends without a causal mask: its decoding feeds one token at a time");
    if (low.facts.encoder_mask != MaskKind::none)
        throw ToolError("the translator's encoder attends with a causal mask: the seq2seq family has none");
    // The runtime masks one padding id: the source's keys in the encoder and over the memory, and, teacher-forced,
    // the target's own keys.
    if (low.facts.target_pad_id >= 0 && low.facts.target_pad_id != low.facts.pad_id)
        throw ToolError(
            "the decoder masks its own keys where the target id is " + std::to_string(low.facts.target_pad_id) +
            (low.facts.pad_id >= 0 ? ", the encoder the source's of id " + std::to_string(low.facts.pad_id)
                                   : std::string(", the encoder no source padding")) +
            ": auspex masks one padding id on both sides (src_key_padding_mask, memory_key_padding_mask and "
            "tgt_key_padding_mask of the same pad id)");
    out.target_pad = low.facts.target_pad_id >= 0;
    if (low.facts.memory_mask != MaskKind::none)
        throw ToolError(
            "the translator's decoder attends to the source through a mask (tril): the seq2seq family "
            "masks the source's padding only");
    std::optional<Linear> gen = linear_from(g, last);
    if (!gen) throw ToolError("the decoder's output " + last + " goes to no generator Linear");
    low.put_linear("generator", *gen);
    out.output = low.finish(gen->output, "generator " + gen->node, "translator",
                            "token embeddings, positions, encoder and decoder layers, generator");

    tools::ConvertConfig& f = out.facts;
    auto state = [&](const char* key) { out.stated.push_back(key); };
    low.put("src_tok_emb.weight", src.tokens);
    low.put("tgt_tok_emb.weight", tgt.tokens);
    if (src.scale != tgt.scale)
        throw ToolError("the source ids are scaled by " + std::to_string(src.scale) + ", the target's by " +
                        std::to_string(tgt.scale) + ": auspex scales both sides alike");
    f.embed_scale = src.scale;
    state("embed_scale");
    if (!src.table != !tgt.table || (src.table && src.sinusoidal != tgt.sinusoidal))
        throw ToolError(
            "the source and target rows get different kinds of positions: auspex gives both sides one kind");
    f.positional_encoding = !src.table       ? format::PositionalEncoding::none
                            : src.sinusoidal ? format::PositionalEncoding::sinusoidal
                                             : format::PositionalEncoding::learned;
    state("positional_encoding");
    if (src.table && src.sinusoidal) {
        f.max_positions = std::max(src.table_rows, tgt.table_rows);
        out.positions_cut = src.cut && tgt.cut;
        state("max_positions");
    }
    if (src.table && !src.sinusoidal) {
        const int64_t d = src.tokens.shape[1];
        for (const auto* side : {&src, &tgt}) {
            HostTensor table = *side->table;
            table.shape = {static_cast<int64_t>(table.data.size()) / d, d};
            low.put(side == &src ? "src_pos_embed.weight" : "tgt_pos_embed.weight", table);
        }
    }
    if (low.facts.pad_id >= 0) f.pad_id = low.facts.pad_id;
    state("pad_id");
    low.state_stack_facts(f, out.stated);
    return out;
}

}  // namespace ax::onnx_import
