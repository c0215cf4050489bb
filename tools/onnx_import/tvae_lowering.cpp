#include "tools/onnx_import/tvae_lowering.h"

#include <optional>
#include <utility>

#include "tools/common/tool_error.h"
#include "tools/onnx_import/blocks.h"
#include "tools/onnx_import/graph_view.h"
#include "tools/onnx_import/stack_lowering.h"

namespace ax::onnx_import {

namespace {

// The Concat (axis 1) of a zero row and x's rows but the last: the decoder's input shifted right
// (torch.cat([torch.zeros_like(x[:, :1]), x[:, :-1]], dim=1)); its output, or "".
std::string shifted_right(GraphView& g, const std::string& x) {
    const std::vector<int64_t> xs = g.shape(x);
    for (size_t r : g.consumers(x)) {
        const onnx::Node& s = g.node(r);
        if (g.explained(r) || s.op_type != "Slice" || s.inputs.size() < 4) continue;
        const onnx::Tensor* starts = g.constant(s.inputs[1]);
        const onnx::Tensor* ends = g.constant(s.inputs[2]);
        const onnx::Tensor* axes = g.constant(s.inputs[3]);
        if (!starts || !ends || !axes || starts->size() != 1 || ends->size() != 1 || axes->size() != 1 ||
            starts->integer(0) != 0 || (axes->integer(0) != 1 && axes->integer(0) != -2) ||
            (ends->integer(0) != -1 && ends->integer(0) != xs[1] - 1))
            continue;
        const std::vector<size_t>& readers = g.consumers(s.outputs[0]);
        if (readers.size() != 1) continue;
        const onnx::Node& c = g.node(readers[0]);
        const int64_t axis = int_attribute(c, "axis", 0);
        if (c.op_type != "Concat" || c.inputs.size() != 2 || c.inputs[1] != s.outputs[0] || (axis != 1 && axis != -2))
            continue;
        const onnx::Tensor* zeros = g.constant(c.inputs[0]);
        if (!zeros || zeros->shape.size() != 3 || zeros->shape[1] != 1) continue;
        bool all_zero = true;
        for (size_t k = 0; k < zeros->size(); ++k) all_zero = all_zero && zeros->real(k) == 0.0;
        if (!all_zero) continue;
        g.explain(r);
        g.explain(readers[0]);
        return c.outputs[0];
    }
    return "";
}

// The latent's embedding repeated over the decoder's rows (unsqueeze(1).repeat(1, t, 1): Unsqueeze, Expand, Tile):
// the value reached walking over them.
std::string repeated(GraphView& g, std::string v) {
    for (int hops = 0; hops < 6; ++hops) {
        const std::vector<size_t>& readers = g.consumers(v);
        if (readers.size() != 1 || g.explained(readers[0])) break;
        const std::string op = g.node(readers[0]).op_type;
        if (op != "Unsqueeze" && op != "Expand" && op != "Tile" && op != "Reshape") break;
        g.explain(readers[0]);
        v = g.node(readers[0]).outputs[0];
    }
    return v;
}

}  // namespace

bool is_tvae_graph(const onnx::Model& m) {
    const std::vector<const onnx::ValueInfo*> fed = m.fed_inputs();
    return fed.size() == 1 && fed[0]->dims.size() == 3 && m.graph.outputs.size() == 3;
}

LoweredGraph lower_tvae(const onnx::Model& original, const onnx::FoldedGraph& folded) {
    LoweredGraph out;
    out.family = format::Family::tvae;
    GraphView g(folded);
    StackLowering low{g, original, out.tensors, out.notes, out.block_outputs, {}, {}, {}};
    const std::string family = "Transformer-VAE";
    low.find_attentions(family);
    out.src_input = folded.model.graph.inputs[0].name;
    for (const onnx::ValueInfo& v : folded.model.graph.inputs)
        if (!g.constant(v.name)) out.src_input = v.name;
    const std::string x = out.src_input;
    const int64_t rows = g.shape(x)[1];
    StackLowering::InputSide src = low.input_side(x, rows);
    size_t enc_layers = 0, dec_layers = 0;
    const std::string encoded = low.stack(src.value, "encoder.", nullptr, &enc_layers);
    if (enc_layers == 0) throw ToolError("found no encoder layer after the input block (" + src.value + ")");

    // The mean over the rows into z_mean and z_log_var; z_mean's Linear is the one whose output is embedded.
    const int mean = g.consumer(encoded, "ReduceMean");
    const std::vector<int64_t> axes =
        mean < 0 ? std::vector<int64_t>() : reduce_axes(g, g.node(static_cast<size_t>(mean)));
    if (mean < 0 || axes.size() != 1 || (axes[0] != 1 && axes[0] != -2) ||
        int_attribute(g.node(static_cast<size_t>(mean)), "keepdims", 1) != 0)
        throw ToolError("the encoder's output " + encoded +
                        " is not averaged over its rows (ReduceMean over axis 1): a Transformer-VAE's latent is the "
                        "mean of the encoded rows");
    g.explain(static_cast<size_t>(mean));
    const std::string pooled = g.node(static_cast<size_t>(mean)).outputs[0];
    std::optional<Linear> z_mean = linear_from(g, pooled), z_log_var = linear_from(g, pooled);
    if (!z_mean || !z_log_var)
        throw ToolError("the mean of the encoded rows " + pooled + " is not read by two Linears (z_mean, z_log_var)");
    std::optional<Linear> z_embed = linear_from(g, z_mean->output);
    if (!z_embed) {
        std::swap(z_mean, z_log_var);
        z_embed = linear_from(g, z_mean->output);
    }
    if (!z_embed)
        throw ToolError("neither " + z_mean->node + " nor " + z_log_var->node +
                        " is embedded for the decoder (z = z_mean in eval mode, through a Linear to d_model)");
    const std::string memory = repeated(g, z_embed->output);
    out.memory = memory;

    const std::string tgt_value = shifted_right(g, x);
    if (tgt_value.empty())
        throw ToolError(
            "found no decoder input made of the sequence shifted right after a zero row "
            "(torch.cat([zeros_like(x[:, :1]), x[:, :-1]], 1)), the Transformer-VAE's teacher forcing");
    StackLowering::InputSide tgt = low.input_side(tgt_value, rows);
    if (tgt.embed.weight.data != src.embed.weight.data || tgt.embed.bias.data != src.embed.bias.data ||
        tgt.scale != src.scale || tgt.table.has_value() != src.table.has_value())
        throw ToolError("the decoder's input block (" + tgt.embed.node + ") differs from the encoder's (" +
                        src.embed.node + "): a Transformer-VAE embeds both with the same Linear and positions");
    if (src.scale != 1.0)
        throw ToolError("a Transformer-VAE's input rows are not scaled; these are by " + std::to_string(src.scale));
    const std::string decoded = low.stack(tgt.value, "decoder.", &memory, &dec_layers);
    if (dec_layers == 0)
        throw ToolError("found no decoder layer reading the shifted sequence (" + tgt.value + ") and the latent (" +
                        memory + ")");
    if (low.facts.encoder_mask != MaskKind::none || low.facts.decoder_mask != MaskKind::causal ||
        low.facts.memory_mask != MaskKind::none || low.facts.pad_id >= 0)
        throw ToolError(
            "a Transformer-VAE's encoder attends unmasked and its decoder causally; this graph masks "
            "them otherwise");
    const std::optional<Linear> r = linear_from(g, decoded);
    if (!r) throw ToolError("the decoder's output " + decoded + " goes to no output Linear");

    low.put_linear("seq_embedding", src.embed);
    low.put_linear("z_mean", *z_mean);
    low.put_linear("z_log_var", *z_log_var);
    low.put_linear("z_embedding", *z_embed);
    low.put_linear("r_seq_embedding", *r);
    tools::ConvertConfig& f = out.facts;
    if (src.table && !src.sinusoidal)
        throw ToolError("a learned position table (" + src.embed.node +
                        "'s rows plus a constant): the Transformer-VAE family adds the sinusoidal table or none");
    if (src.table) low.put("pos_encoder.pe", *src.table);
    f.positional_encoding = src.table ? format::PositionalEncoding::sinusoidal : format::PositionalEncoding::none;
    out.stated.push_back("positional_encoding");
    out.output = low.finish(r->output, "output Linear " + r->node, family,
                            "input Linear, positions, encoder layers, the mean into z_mean and z_log_var, the "
                            "latent's embedding repeated, decoder layers, output Linear");
    low.state_stack_facts(f, out.stated);
    f.num_encoder_layers = static_cast<int64_t>(enc_layers);
    f.num_decoder_layers = static_cast<int64_t>(dec_layers);
    return out;
}

}  // namespace ax::onnx_import
