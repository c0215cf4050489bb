#include "tools/onnx_import/forecaster_lowering.h"

#include <algorithm>
#include <optional>

#include "tools/common/tool_error.h"
#include "tools/import/import_common.h"
#include "tools/onnx_import/blocks.h"
#include "tools/onnx_import/classifier_lowering.h"
#include "tools/onnx_import/graph_view.h"
#include "tools/onnx_import/marks_lowering.h"
#include "tools/onnx_import/patch_lowering.h"
#include "tools/onnx_import/revin_lowering.h"
#include "tools/onnx_import/stack_lowering.h"

namespace ax::onnx_import {

namespace {

// The decoder input of a one-pass model with one graph input: Concat(the input's last label_len rows, constant zero
// rows), the Informer convention forward(x) writes as torch.cat([x[:, -label_len:], zeros], dim=1) (or, laid out
// sequence first, torch.cat([x[-label_len:], zeros], dim=0)).
struct OnePassInput {
    std::string decoder_input;
    int64_t label_len = 0, horizon = 0;
};

// The Slice of `x`'s rows (axis `row_axis`: 1, or 0 laid out sequence first) from `first` to its end, or -1.
int row_slice(const GraphView& g, size_t node, const std::string& x, int64_t row_axis, int64_t* first) {
    const onnx::Node& n = g.node(node);
    if (n.op_type != "Slice" || n.inputs.size() < 3 || n.inputs[0] != x) return -1;
    const onnx::Tensor* starts = g.constant(n.inputs[1]);
    const onnx::Tensor* ends = g.constant(n.inputs[2]);
    const onnx::Tensor* axes = n.inputs.size() > 3 && !n.inputs[3].empty() ? g.constant(n.inputs[3]) : nullptr;
    const onnx::Tensor* steps = n.inputs.size() > 4 && !n.inputs[4].empty() ? g.constant(n.inputs[4]) : nullptr;
    const std::vector<int64_t> shape = g.shape(x);
    if (!starts || !ends || !axes || starts->size() != 1 || ends->size() != 1 || axes->size() != 1 ||
        shape.size() != 3 || (steps && (steps->size() != 1 || steps->integer(0) != 1)))
        return -1;
    const int64_t rows = shape[static_cast<size_t>(row_axis)];
    if (axes->integer(0) != row_axis && axes->integer(0) != row_axis - 3) return -1;
    int64_t begin = starts->integer(0), end = ends->integer(0);
    if (begin < 0) begin += rows;
    if (end < 0) end += rows;
    if (begin < 0 || begin >= rows || end < rows) return -1;
    *first = begin;
    return static_cast<int>(node);
}

std::optional<OnePassInput> one_pass_input(GraphView& g, const std::string& x, int64_t row_axis) {
    const int64_t rows = g.shape(x).size() == 3 ? g.shape(x)[static_cast<size_t>(row_axis)] : 0;
    for (size_t r : g.consumers(x)) {
        int64_t first = 0;
        if (row_slice(g, r, x, row_axis, &first) < 0) continue;
        const std::string sliced = g.node(r).outputs[0];
        const std::vector<size_t>& readers = g.consumers(sliced);
        if (readers.size() != 1) continue;
        const onnx::Node& cat = g.node(readers[0]);
        if (cat.op_type != "Concat" || cat.inputs.size() != 2 || cat.inputs[0] != sliced) continue;
        const int64_t axis = int_attribute(cat, "axis", 0);
        const onnx::Tensor* zeros = g.constant(cat.inputs[1]);
        if ((axis != row_axis && axis != row_axis - 3) || !zeros || zeros->shape.size() != 3) continue;
        bool all_zero = true;
        for (size_t k = 0; k < zeros->size(); ++k) all_zero = all_zero && zeros->real(k) == 0.0;
        if (!all_zero) continue;
        g.explain(r);
        g.explain(readers[0]);
        return OnePassInput{cat.outputs[0], rows - first, zeros->shape[static_cast<size_t>(row_axis)]};
    }
    return std::nullopt;
}

// The Slice keeping the last `horizon` rows (axis `row_axis`) of a one-pass decoder's output (what its forward
// returns).
std::string last_rows(GraphView& g, const std::string& y, int64_t horizon, int64_t row_axis) {
    const std::vector<size_t>& readers = g.consumers(y);
    const std::vector<int64_t> shape = g.shape(y);
    int64_t first = 0;
    if (readers.size() != 1 || shape.size() != 3 || row_slice(g, readers[0], y, row_axis, &first) < 0 ||
        shape[static_cast<size_t>(row_axis)] - first != horizon)
        throw ToolError("a one-pass decoder's output " + y + " is not cut to its last " + std::to_string(horizon) +
                        " rows (the placeholders') before the graph's output");
    g.explain(readers[0]);
    return forward_over_layout(g, g.node(readers[0]).outputs[0]);
}

// Forward from `value` over single-reader layout ops up to a permute swapping rows and batch (not over it: the
// input block reads that as the stack's layout).
std::string over_layout_to_swap(GraphView& g, std::string value) {
    for (;;) {
        const std::vector<size_t>& readers = g.consumers(value);
        if (readers.size() != 1 || g.explained(readers[0])) return value;
        const onnx::Node& n = g.node(readers[0]);
        const onnx::Attribute* perm = n.op_type == "Transpose" ? n.attribute("perm") : nullptr;
        if ((perm && perm->ints == std::vector<int64_t>{1, 0, 2}) ||
            (n.op_type != "Transpose" && n.op_type != "Reshape" && n.op_type != "Flatten" && n.op_type != "Squeeze" &&
             n.op_type != "Unsqueeze"))
            return value;
        g.explain(readers[0]);
        value = n.outputs[0];
    }
}

// Whether the export fixed `input`'s rows: the folded graph's inputs hold the proof's sizes, a dynamic axis among them
// (no window the model was trained on).
bool fixed_rows(const onnx::Model& original, const std::string& input, size_t axis) {
    for (const onnx::ValueInfo& v : original.graph.inputs)
        if (v.name == input) return axis < v.dims.size() && v.dims[axis].value >= 0;
    return false;
}

// The time features a side's input block added (s.marks_input, "" for none) are the graph input `marks` (null: that
// side takes none apart).
void check_side_marks(const StackLowering::InputSide& s, const onnx::ValueInfo& values, const onnx::ValueInfo* marks,
                      const char* side) {
    if (marks && s.marks_input != marks->name)
        throw ToolError("graph input " + marks->name + " (the " + side +
                        "'s time features) is not added through a Linear to the embedded rows of " + values.name +
                        " (beside its input Linear or token convolution)");
    if (!marks && s.marks)
        throw ToolError("the Linear " + s.marks->node + " of graph input " + s.marks_input + " is added to the " +
                        side + "'s embedded rows of " + values.name +
                        ": lowered are time features of an input of their own beside their values (x, x_mark)");
}

std::string describe_value(const GraphView& g, const std::string& v) {
    const int p = g.producer(v);
    return p < 0 ? v : g.node(static_cast<size_t>(p)).describe();
}

}  // namespace

LoweredGraph lower_forecaster(const onnx::Model& original, const onnx::FoldedGraph& folded) {
    LoweredGraph out;
    GraphView g(folded);
    StackLowering low{g, original, out.tensors, out.notes, out.block_outputs, {}, {}, {}};
    const std::vector<onnx::ValueInfo>& inputs = folded.model.graph.inputs;
    std::vector<const onnx::ValueInfo*> fed;
    for (const onnx::ValueInfo& v : inputs)
        if (!g.constant(v.name)) fed.push_back(&v);
    if (fed.empty() || fed.size() == 3 || fed.size() > 4 || folded.model.graph.outputs.size() != 1)
        throw ToolError(
            "a forecaster's graph has one input (encoder-only), two (src, tgt: encoder-decoder; or x, x_mark: "
            "encoder-only with time features) or four (the Time-Series-Library's x_enc, x_mark_enc, x_dec, "
            "x_mark_dec) and one output; this one has " +
            std::to_string(fed.size()) + " inputs and " + std::to_string(folded.model.graph.outputs.size()) +
            " outputs");
    // Each side's values, and its time features when the graph takes them apart.
    const FedInputs split = split_time_features(folded.model.graph, fed);
    const std::vector<const onnx::ValueInfo*>& marks = split.marks;
    fed = split.values;
    for (const onnx::ValueInfo* v : fed)
        if (g.shape(v->name).size() != 3)
            throw ToolError("input " + v->name + " is " + onnx::shape_text(g.shape(v->name)) +
                            ": a forecaster reads [batch, rows, features]");
    low.find_attentions("forecaster");

    out.src_input = fed[0]->name;
    // Rows [batch, rows, features], or sequence first [rows, batch, features] (batch_first=False).
    const bool input_seq_first = sequence_first(*fed[0]);
    for (const onnx::ValueInfo* v : fed)
        if (sequence_first(*v) != input_seq_first)
            throw ToolError("input " + fed[0]->name + " is laid out " + (input_seq_first ? "sequence" : "batch") +
                            " first, " + v->name + " otherwise: auspex feeds both sides alike");
    const size_t input_row_axis = input_seq_first ? 0 : 1;
    const int64_t src_rows = g.shape(out.src_input)[input_row_axis];
    // RevIN: the window normalized per column before the input block, the forecast restored at the end; over the
    // input as it is fed, or after a permute swapping its rows and batch.
    bool window_swapped = false;
    std::optional<Revin> revin = revin_from(g, out.src_input, static_cast<int64_t>(input_row_axis));
    if (!revin) {
        const std::vector<bool> saved = g.mark();
        const std::string permuted = over_batch_swap(g, out.src_input, &window_swapped);
        if (window_swapped) revin = revin_from(g, permuted, static_cast<int64_t>(1 - input_row_axis));
        if (!revin) {
            g.restore(saved);
            window_swapped = false;
        }
    }
    if (revin && fed.size() != 1)
        throw ToolError("RevIN (" + revin->node +
                        ") in a graph of two inputs: auspex runs RevIN in one-pass models (encoder-only, or a decoder "
                        "fed the window's last rows); convert the checkpoint with its config");
    const std::string window = revin ? revin->normalized : out.src_input;
    // The window's rows' axis: 0 when it is laid out sequence first.
    const bool window_seq_first = input_seq_first != window_swapped;
    const int64_t window_row_axis = window_seq_first ? 0 : 1;
    // Patches (PatchTST): each column cut into patches, one token each, through the patch Linear; the columns go
    // through the encoder as a batch of their own ([batch x columns, patches, d_model], or [patches, batch x
    // columns, d_model] for a stack laid out sequence first).
    const std::optional<Patches> patches =
        fed.size() == 1 ? patches_from(g, folded, window, window_row_axis) : std::nullopt;
    StackLowering::InputSide src;
    if (patches) {
        std::optional<Linear> embed = linear_from(g, patches->value);
        if (!embed) throw ToolError("the patches " + patches->value + " go through no patch Linear");
        src.embed = *embed;
        src.value = over_layout_to_swap(g, embed->output);
        src = low.after_embedding(src, patches->count, embed->weight.shape[0]);
    } else {
        src = low.input_side(window, src_rows);
    }
    // Permuted to sequence first after the positions too (PatchTST's [batch x columns, patches, d_model] with its
    // positions added, then permuted for a stack at batch_first=False).
    src.value = over_batch_swap(g, src.value, &src.swapped);
    check_side_marks(src, *fed[0], marks.empty() ? nullptr : marks[0], "encoder");
    if (!marks.empty() && (revin || patches))
        throw ToolError(std::string(revin ? "RevIN" : "patches") + " beside time features (graph input " +
                        marks[0]->name + ") are not lowered: auspex " +
                        (revin ? "normalizes every input column" : "cuts every input column into patches") +
                        ", the time features too");
    out.src_marks = src.marks_input;
    // The stacks run sequence first when the window is, or when a permute swaps rows and batch around them; patches
    // are [batch x columns, patches, d_model] whatever the window's layout (the patching moves the data).
    const bool seq_first = (!patches && window_seq_first) != src.swapped;
    out.sequence_first = seq_first;
    // One input feeding a decoder too: its last rows and placeholder rows after them (one-pass decoding).
    const std::optional<OnePassInput> one_pass =
        fed.size() == 1 ? one_pass_input(g, window, window_row_axis) : std::nullopt;
    const bool encoder_only = fed.size() == 1 && !one_pass;
    const std::string enc_root = encoder_only ? "encoder." : "transformer.encoder.";
    size_t enc_layers = 0, dec_layers = 0;
    bool encoder_residual = false, decoder_residual = false;
    const std::string memory =
        low.stack_residual(low.stack(src.value, enc_root, nullptr, &enc_layers), src.value, &encoder_residual);
    if (enc_layers == 0)
        throw ToolError(
            "found no encoder layer after the input block (its output " + src.value + " goes to " +
            (g.consumers(src.value).empty() ? std::string("nothing") : g.node(g.consumers(src.value)[0]).describe()) +
            "): lowered are Transformer encoder layers of self-attention, residual adds, LayerNorms "
            "and a feed-forward pair, post- or pre-norm");
    tools::ConvertConfig& f = out.facts;
    auto state = [&](const char* key) { out.stated.push_back(key); };
    std::string last = memory;
    std::string head_module = "generator";
    if (!encoder_only) {
        out.tgt_input = one_pass ? std::string() : fed[1]->name;
        const std::string tgt_value = one_pass ? one_pass->decoder_input : out.tgt_input;
        StackLowering::InputSide tgt = low.input_side(
            tgt_value, g.shape(tgt_value)[static_cast<size_t>(one_pass ? window_row_axis : input_row_axis)]);
        tgt.value = over_batch_swap(g, tgt.value, &tgt.swapped);
        // A decoder input built from the window is laid out as the window is.
        const bool tgt_seq_first = (one_pass ? window_seq_first : input_seq_first) != tgt.swapped;
        check_side_marks(tgt, one_pass ? *fed[0] : *fed[1], marks.size() > 1 ? marks[1] : nullptr, "decoder");
        if (src.marks.has_value() != tgt.marks.has_value())
            throw ToolError("time features on one side only: auspex embeds both sides the same way");
        if (src.marks && src.marks->weight.shape[1] != tgt.marks->weight.shape[1])
            throw ToolError("the encoder's time features are " + std::to_string(src.marks->weight.shape[1]) +
                            " columns (" + src.marks_input + "), the decoder's " +
                            std::to_string(tgt.marks->weight.shape[1]) + " (" + tgt.marks_input +
                            "): auspex reads one set of time features");
        out.tgt_marks = tgt.marks_input;
        if (tgt_seq_first != seq_first)
            throw ToolError("the encoder's stack is laid out " + std::string(seq_first ? "sequence" : "batch") +
                            " first, the decoder's otherwise (a permute on one side only)");
        if (one_pass) {
            f.decoding = format::Decoding::one_pass;
            f.label_len = one_pass->label_len;
            f.horizon = one_pass->horizon;
            f.placeholder = format::Placeholder::zeros;
            out.decoder_input = one_pass->decoder_input;
            for (const char* key : {"decoding", "label_len", "horizon", "placeholder"}) state(key);
        }
        last = low.stack_residual(low.stack(tgt.value, "transformer.decoder.", &memory, &dec_layers), tgt.value,
                                  &decoder_residual);
        if (dec_layers == 0)
            throw ToolError("found no decoder layer reading the decoder's input block (" + tgt.value +
                            ") and the encoder's output (" + memory + ")");
        if (src.conv.has_value() != tgt.conv.has_value())
            throw ToolError("a token convolution on one side only (" + (src.conv ? src.conv->node : tgt.conv->node) +
                            "): auspex embeds both sides the same way");
        low.put_embedding("embedding_src", "src", src);
        low.put_embedding("embedding_tgt", "tgt", tgt);
        if (tgt.scale != src.scale)
            throw ToolError("the encoder's inputs are scaled by " + std::to_string(src.scale) + ", the decoder's by " +
                            std::to_string(tgt.scale) + ": auspex scales both sides alike");
        if (src.table && tgt.table && src.sinusoidal != tgt.sinusoidal)
            throw ToolError("one side's positions are sinusoidal, the other's learned");
        if (tgt.table && !src.table) throw ToolError("positions on the decoder's side only are not lowered");
        if (src.table && !tgt.table) {
            f.decoder_positional_encoding = format::PositionalEncoding::none;
            state("decoder_positional_encoding");
        }
        if (src.table && !src.sinusoidal) {
            if (tgt.table && tgt.table->data != src.table->data) {
                low.put("src_pos_embedding", *src.table);
                low.put("tgt_pos_embedding", *tgt.table);
            } else {
                low.put("pos_embedding", *src.table);
            }
        }
        f.memory_mask = low.facts.memory_mask == MaskKind::tril ? format::MemoryMask::tril : format::MemoryMask::none;
        state("memory_mask");
        if (low.facts.decoder_mask == MaskKind::none) {
            f.described[format::ConfigKey::decoder_mask] = static_cast<uint32_t>(format::DecoderMask::none);
            state("decoder_mask");
        }
    } else {
        low.put_embedding("input_embed", "src", src);
        if (src.table && !src.sinusoidal) low.put("pos_embedding", *src.table);
    }
    // Sinusoidal positions are computed by the runtime: only their limit is stored, the rows of the table the
    // graph holds (all of a `pe` buffer when the export slices it, else only the rows this export ran). A learned
    // table's rows are its limit (the importer reads them off the table).
    if (src.table && src.sinusoidal) {
        f.max_positions = src.table_rows;
        out.positions_cut = src.cut;
        state("max_positions");
    }
    f.positional_encoding = !src.table       ? format::PositionalEncoding::none
                            : src.sinusoidal ? format::PositionalEncoding::sinusoidal
                                             : format::PositionalEncoding::learned;
    state("positional_encoding");
    if (src.scale != 1.0) {
        f.embed_scale = src.scale;
        state("embed_scale");
    }
    if (low.facts.pad_id >= 0 || low.facts.target_pad_id >= 0)
        throw ToolError("the forecaster's attention masks keys by comparing an input with " +
                        std::to_string(std::max(low.facts.pad_id, low.facts.target_pad_id)) +
                        " (a padding mask): forecasters have none");
    if (encoder_residual) {
        f.described[format::ConfigKey::encoder_residual] = 1;
        state("encoder_residual");
    }
    if (decoder_residual) {
        f.described[format::ConfigKey::decoder_residual] = 1;
        state("decoder_residual");
    }
    if (low.facts.encoder_mask == MaskKind::causal) {
        f.described[format::ConfigKey::encoder_mask] = static_cast<uint32_t>(format::EncoderMask::causal);
        state("encoder_mask");
    }

    // The head.
    const int64_t d = src.conv ? src.conv->weight.shape[0] : src.embed.weight.shape[0];
    // Permuted back to batch first before the head (batch_first=False stacks in batch-first code).
    bool unswapped = false;
    std::string head_in = seq_first ? over_batch_swap(g, last, &unswapped) : last;
    const bool head_seq_first = seq_first && !unswapped;
    if (encoder_only && patches) {
        // [batch x columns, patches, d_model] (permuted back when the stack ran sequence first) to [batch, columns,
        // patches, d_model], optionally [.., d_model, patches] (PatchTST's backbone), flattened per column into the
        // head.
        if (head_seq_first)
            throw ToolError(
                "the patched encoder's output " + last +
                " is laid out sequence first ([patches, batch x columns, d_model]) and read by " +
                (g.consumers(last).empty() ? std::string("nothing") : g.node(g.consumers(last)[0]).describe()) +
                ", not permuted back (permute(1, 0, 2)) before each column's rows are flattened into the head");
        bool d_model_first = false;
        std::string v = head_in;
        for (int hops = 0; hops < 4; ++hops) {
            const std::vector<size_t>& readers = g.consumers(v);
            if (readers.size() != 1 || g.explained(readers[0])) break;
            const onnx::Node& n = g.node(readers[0]);
            if (n.op_type == "Transpose") {
                const onnx::Attribute* perm = n.attribute("perm");
                if (!perm || perm->ints != std::vector<int64_t>{0, 1, 3, 2}) break;
                d_model_first = true;
            } else if (n.op_type != "Reshape" && n.op_type != "Flatten") {
                break;
            }
            g.explain(readers[0]);
            v = n.outputs[0];
        }
        const std::vector<int64_t> vs = g.shape(v);
        if (vs.size() != 3 || vs[1] != patches->columns || vs[2] != patches->count * d)
            throw ToolError("the patched encoder's output " + last + " is not flattened per column into [batch, " +
                            std::to_string(patches->columns) + ", " + std::to_string(patches->count * d) +
                            "] before the head (" + describe_value(g, v) + ")");
        head_in = v;
        f.head = format::ForecastHead::flatten;
        f.head_flatten = d_model_first ? "d_model_first" : "rows";
        f.patch_len = patches->patch_len;
        f.stride = patches->stride;
        f.padding_patch = patches->pad_end ? "end" : "none";
        f.window = patches->window;
        f.n_features = patches->columns;
        for (const char* key : {"head", "head_flatten", "patch_len", "stride", "padding_patch", "window", "n_features"})
            state(key);
        head_module = "head";
    } else if (encoder_only) {
        format::ForecastHead head = format::ForecastHead::generator;
        const std::vector<size_t>& readers = g.consumers(head_in);
        // The rows' axis of the stack's output: 0 sequence first, else 1 (negative as ReduceMean may write it).
        const int64_t row_axis = head_seq_first ? 0 : 1;
        if (readers.size() == 1) {
            const onnx::Node& n = g.node(readers[0]);
            const std::vector<int64_t> s = g.shape(n.outputs[0]);
            const std::vector<int64_t> pooled = n.op_type == "ReduceMean" ? reduce_axes(g, n) : std::vector<int64_t>{};
            if ((n.op_type == "Flatten" || n.op_type == "Reshape") && s.size() == 2 && s[1] == src_rows * d &&
                !head_seq_first) {
                head = format::ForecastHead::flatten;
            } else if (n.op_type == "Gather" && n.inputs.size() == 2 && int_attribute(n, "axis", 0) == row_axis &&
                       g.constant(n.inputs[1]) && g.constant(n.inputs[1])->size() == 1 &&
                       (g.constant(n.inputs[1])->integer(0) == -1 ||
                        g.constant(n.inputs[1])->integer(0) == src_rows - 1)) {
                head = format::ForecastHead::last_row;
            } else if (n.op_type == "ReduceMean" && s.size() == 2 && pooled.size() == 1 &&
                       (pooled[0] == row_axis || pooled[0] == row_axis - 3)) {
                head = format::ForecastHead::mean;
            }
            if (head != format::ForecastHead::generator) {
                g.explain(readers[0]);
                head_in = forward_over_layout(g, n.outputs[0]);
            }
        }
        f.head = head;
        state("head");
        if (fixed_rows(original, fed[0]->name, input_row_axis)) {
            f.window = src_rows;
            state("window");
        }
        head_module = "head";
    }
    std::optional<Linear> gen = linear_from(g, head_in);
    if (!gen)
        throw ToolError("found no output Linear reading " + describe_value(g, head_in) +
                        " (the last block's output): the generator or head of a forecaster this converter lowers");
    std::string y = gen->output;
    if (encoder_only && f.head != format::ForecastHead::generator && !patches) {
        if (std::optional<Act> a = activation_from(g, y)) {
            if (std::optional<Linear> second = linear_from(g, a->output)) {
                low.put_linear("head_hidden", *gen);
                f.head_activation = a->kind;
                state("head_activation");
                gen = second;
                y = second->output;
            } else {
                throw ToolError("the head's activation " + a->output + " is read by no Linear");
            }
        }
    }
    low.put_linear(head_module, *gen);
    if (one_pass) {
        // The generator's rows are laid out as the head reads them, unless permuted after it.
        bool swapped_after = false;
        y = over_batch_swap(g, y, &swapped_after);
        y = last_rows(g, forward_over_layout(g, y), one_pass->horizon, head_seq_first != swapped_after ? 0 : 1);
    } else if (!encoder_only && !seq_first) {
        // The decoder input fed from outside and the output cut to its last rows: the Time-Series-Library's
        // experiment, whose decoder input is the window's last label_len rows and pred_len zero rows.
        y = forward_over_layout(g, y);
        const std::vector<size_t>& readers = g.consumers(y);
        int64_t first = 0;
        const int64_t rows = g.shape(y).size() == 3 ? g.shape(y)[1] : 0;
        if (readers.size() == 1 && row_slice(g, readers[0], y, 1, &first) >= 0 && first > 0) {
            f.decoding = format::Decoding::one_pass;
            f.label_len = first;
            f.horizon = rows - first;
            f.placeholder = format::Placeholder::zeros;
            for (const char* key : {"decoding", "label_len", "horizon", "placeholder"}) state(key);
            y = last_rows(g, y, rows - first, 1);
        }
    }
    if (revin) {
        y = revin_restore(g, *revin, forward_over_layout(g, y));
        f.revin = true;
        f.revin_eps = revin->eps;
        state("revin");
        state("revin_eps");
        if (revin->affine) {
            low.put("revin_layer.affine_weight", revin->weight);
            low.put("revin_layer.affine_bias", revin->bias);
        }
        if (revin->subtract_last) {
            f.described[format::ConfigKey::subtract_last] = 1;
            state("subtract_last");
        }
    }
    // The time features are the last columns of each side's rows: a one-pass decoder's placeholder rows take them from
    // the forecast's steps ("time_marks"). Elsewhere they are inputs the model does not predict, known ahead as any
    // (an encoder-only generator's window and a step-by-step decoder take them for each step they append).
    if (src.marks && f.decoding == format::Decoding::one_pass) {
        f.time_marks = src.marks->weight.shape[1];
        state("time_marks");
    }
    out.output = low.finish(y, "output Linear " + gen->node, "forecaster",
                            "input Linear, positions, encoder/decoder layers of attention, LayerNorm, feed-forward and "
                            "residual adds, output Linear");
    if (encoder_only && f.head != format::ForecastHead::generator) {
        const std::vector<int64_t> os = g.shape(out.output);
        // [batch, horizon, outputs] shows both; [batch, values] does not: one output unless the config says
        // otherwise ("horizon", "n_outputs" or "outputs").
        f.n_outputs = os.size() == 3 ? os[2] : 1;
        out.outputs_shown = os.size() == 3;
        state("n_outputs");
    }
    low.state_stack_facts(f, out.stated, true);
    f.num_encoder_layers = static_cast<int64_t>(enc_layers);
    f.num_decoder_layers = static_cast<int64_t>(dec_layers);
    return out;
}

}  // namespace ax::onnx_import
