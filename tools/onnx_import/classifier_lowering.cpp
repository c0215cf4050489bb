#include "tools/onnx_import/classifier_lowering.h"

#include <cctype>

#include "tools/onnx_import/stack_lowering.h"

namespace ax::onnx_import {

bool reads_token_ids(const onnx::Model& m) {
    const std::vector<const onnx::ValueInfo*> fed = m.fed_inputs();
    bool ids = !fed.empty() && fed.size() <= 2;
    for (const onnx::ValueInfo* v : fed) ids = ids && onnx::is_integer_type(v->type) && v->dims.size() == 2;
    return ids;
}

bool sequence_first(const onnx::ValueInfo& ids) {
    if (ids.dims.size() != 2 && ids.dims.size() != 3) return false;
    std::string second = ids.dims[1].param;
    for (char& ch : second) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (second.find("batch") != std::string::npos) return true;
    return ids.dims[1].value == 1 && ids.dims[0].value > 1;
}

LoweredGraph lower_classifier(const onnx::Model& original, const onnx::FoldedGraph& folded) {
    LoweredGraph out;
    out.family = format::Family::classifier;
    GraphView g(folded);
    StackLowering low{g, original, out.tensors, out.notes, out.block_outputs, {}, {}, {}};
    if (!reads_token_ids(folded.model) || folded.model.fed_inputs().size() != 1 ||
        folded.model.graph.outputs.size() != 1)
        throw ToolError("a classifier's graph reads one input of token ids [batch, length] and gives one output");
    low.find_attentions("classifier");

    const onnx::ValueInfo& input = *folded.model.fed_inputs()[0];
    out.src_input = input.name;
    const bool seq_first = sequence_first(input);
    out.sequence_first = seq_first;
    const int64_t rows = g.shape(input.name).size() == 2 ? g.shape(input.name)[seq_first ? 0 : 1] : 0;
    const StackLowering::InputSide src = low.token_side(input.name, rows);
    const int64_t d = src.tokens.shape[1];
    size_t layers = 0;
    bool residual = false;
    const std::string h = low.stack_residual(low.stack(src.value, "encoder.", nullptr, &layers), src.value, &residual);
    if (layers == 0)
        throw ToolError("found no encoder layer after the token embedding (its output " + src.value +
                        "): lowered are Transformer encoder layers of self-attention, residual adds, LayerNorms and "
                        "a feed-forward pair, post- or pre-norm");
    if (residual) throw ToolError("a residual around a classifier's whole encoder is not lowered");
    if (low.facts.encoder_mask != MaskKind::none)
        throw ToolError("a classifier's encoder attends with a causal mask: the classifier family has none");

    tools::ConvertConfig& f = out.facts;
    auto state = [&](const char* key) { out.stated.push_back(key); };
    // Pooling: the mean or max over the rows, or the first row.
    const std::vector<size_t>& readers = g.consumers(h);
    if (readers.size() != 1) throw ToolError("the encoder's output " + h + " is read by more than the pooling");
    const onnx::Node& pool = g.node(readers[0]);
    const onnx::Tensor* index = pool.inputs.size() == 2 ? g.constant(pool.inputs[1]) : nullptr;
    const std::vector<int64_t> pooled_axes = reduce_axes(g, pool);
    const int64_t row_axis = seq_first ? 0 : 1;
    if ((pool.op_type == "ReduceMean" || pool.op_type == "ReduceMax") && g.shape(pool.outputs[0]).size() == 2 &&
        pooled_axes.size() == 1 && (pooled_axes[0] == row_axis || pooled_axes[0] == row_axis - 3))
        f.pooling = pool.op_type == "ReduceMean" ? format::Pooling::mean : format::Pooling::max;
    else if (pool.op_type == "Gather" && int_attribute(pool, "axis", 0) == (seq_first ? 0 : 1) && index &&
             index->size() == 1 && index->integer(0) == 0)
        f.pooling = format::Pooling::first;
    else
        throw ToolError(pool.describe() +
                        " is no pooling this converter knows: the mean (ReduceMean over the rows), the max "
                        "(ReduceMax) or the first row (Gather of row 0) before the head");
    g.explain(readers[0]);
    state("pooling");
    std::optional<Linear> head = linear_from(g, forward_over_layout(g, pool.outputs[0]));
    if (!head) throw ToolError("the pooled row " + pool.outputs[0] + " goes to no head Linear");
    low.put_linear("head", *head);
    std::string y = head->output;
    f.output_activation = format::OutputActivation::none;
    if (g.consumers(y).size() == 1) {
        const onnx::Node& act = g.node(g.consumers(y)[0]);
        const int64_t axis = int_attribute(act, "axis", -1);
        if (act.op_type == "Sigmoid" || (act.op_type == "Softmax" && (axis == -1 || axis == 1))) {
            f.output_activation =
                act.op_type == "Sigmoid" ? format::OutputActivation::sigmoid : format::OutputActivation::softmax;
            g.explain(g.consumers(y)[0]);
            y = act.outputs[0];
        }
    }
    state("output_activation");
    out.output = low.finish(y, "head " + head->node, "classifier",
                            "token embedding, positions, encoder layers, pooling, head, output activation");

    low.put("embedding.weight", src.tokens);
    // Positions: a sinusoidal table is computed by the runtime (its rows are the limit); a learned one is stored.
    f.positional_encoding = !src.table       ? format::PositionalEncoding::none
                            : src.sinusoidal ? format::PositionalEncoding::sinusoidal
                                             : format::PositionalEncoding::learned;
    state("positional_encoding");
    if (src.table && src.sinusoidal) {
        f.max_positions = src.table_rows;
        out.positions_cut = src.cut;
        state("max_positions");
    }
    if (src.table && !src.sinusoidal) {
        HostTensor table = *src.table;
        table.shape = {static_cast<int64_t>(table.data.size()) / d, d};
        low.put("pos_embedding.weight", table);
    }
    f.embed_scale = src.scale;
    state("embed_scale");
    // The padding mask the graph builds from the ids (none: every id is attended to and pooled).
    if (low.facts.pad_id >= 0) f.pad_id = low.facts.pad_id;
    state("pad_id");
    low.state_stack_facts(f, out.stated);
    f.num_encoder_layers = static_cast<int64_t>(layers);
    return out;
}

}  // namespace ax::onnx_import
