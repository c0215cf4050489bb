#include "tools/onnx_import/forecaster_lowering.h"

#include <optional>

#include "tools/common/tool_error.h"
#include "tools/import/import_common.h"
#include "tools/onnx_import/blocks.h"
#include "tools/onnx_import/graph_view.h"

namespace ax::onnx_import {

using tools::HostTensor;
using tools::ToolError;

namespace {

// What every layer must agree on: the options of the stack block.
struct StackFacts {
    bool seen = false;
    bool norm_first = false;
    format::Activation activation = format::Activation::relu;
    float eps = 1e-5f;
    int64_t heads = 0;
    MaskKind encoder_mask = MaskKind::none, decoder_mask = MaskKind::causal, memory_mask = MaskKind::none;
    bool decoder_seen = false;
};

struct Lowering {
    GraphView& g;
    const onnx::Model& original;
    LoweredForecaster& out;
    std::vector<Attention> attentions;
    std::vector<bool> taken;
    StackFacts facts;

    void put(const std::string& name, HostTensor t) { out.tensors[name] = std::move(t); }

    void put_linear(const std::string& module, const Linear& l) {
        put(module + ".weight", l.weight);
        HostTensor b = l.bias;
        if (b.shape.empty()) {
            b.shape = {l.weight.shape[0]};
            b.data.assign(static_cast<size_t>(l.weight.shape[0]), 0.0f);
            out.notes.push_back("the Linear " + l.node + " adds no bias: stored with a zero bias");
        }
        put(module + ".bias", b);
    }

    void put_norm(const std::string& module, const Norm& n) {
        put(module + ".weight", n.weight);
        put(module + ".bias", n.bias);
    }

    void put_attention(const std::string& module, const Attention& a) {
        const int64_t d = a.q.weight.shape[1];
        HostTensor w, b;
        w.shape = {3 * d, d};
        b.shape = {3 * d};
        for (const Projection* p : {&a.q, &a.k, &a.v}) {
            w.data.insert(w.data.end(), p->weight.data.begin(), p->weight.data.end());
            b.data.insert(b.data.end(), p->bias.data.begin(), p->bias.data.end());
        }
        w.source_dtype = b.source_dtype = "float32";
        put(module + ".in_proj_weight", w);
        put(module + ".in_proj_bias", b);
        put_linear(module + ".out_proj", a.out);
    }

    // The attention whose queries read `q` and keys/values `kv`, not taken yet; marks its nodes.
    const Attention* take_attention(const std::string& q, const std::string& kv) {
        for (size_t i = 0; i < attentions.size(); ++i) {
            // Nodes may be shared with an attention taken before (the exporter writes the memory's transpose
            // once for every decoder layer).
            if (taken[i] || attentions[i].q.source != q || attentions[i].k.source != kv) continue;
            taken[i] = true;
            for (size_t n : attentions[i].nodes) g.explain(n);
            return &attentions[i];
        }
        return nullptr;
    }

    void agree(bool norm_first, const Norm& n, format::Activation act, int64_t heads, const std::string& where) {
        if (!facts.seen) {
            facts = StackFacts{true,
                               norm_first,
                               act,
                               n.eps,
                               heads,
                               facts.encoder_mask,
                               facts.decoder_mask,
                               facts.memory_mask,
                               facts.decoder_seen};
            return;
        }
        std::string what;
        if (norm_first != facts.norm_first) what = "norm placement";
        if (act != facts.activation) what = "activation";
        if (n.eps != facts.eps) what = "LayerNorm eps";
        if (heads != facts.heads) what = "head count";
        if (!what.empty())
            throw ToolError(where + " differs from the layers before it in its " + what +
                            ": auspex runs the layers of a stack alike");
    }

    struct Ffn {
        Linear l1, l2;
        format::Activation act;
    };
    std::optional<Ffn> ffn(const std::string& x) {
        std::optional<Linear> l1 = linear_from(g, x);
        if (!l1) return std::nullopt;
        std::optional<Act> a = activation_from(g, l1->output);
        if (!a) return std::nullopt;
        std::optional<Linear> l2 = linear_from(g, a->output);
        if (!l2) return std::nullopt;
        return Ffn{*l1, *l2, a->kind};
    }

    std::optional<std::string> add(const std::string& a, const std::string& b) {
        const int n = add_of(g, a, b);
        if (n < 0) return std::nullopt;
        g.explain(static_cast<size_t>(n));
        return g.node(static_cast<size_t>(n)).outputs[0];
    }

    int64_t heads_of(const Attention& a) const { return a.q.weight.shape[0] / a.head_dim; }

    // One residual sublayer around `body` reading x: post-norm LN(x + body(x)) or pre-norm x + body(LN(x)). Its
    // LayerNorm goes to *norm.
    template <typename Body>
    std::optional<std::string> sublayer(const std::string& x, bool pre, Body body, std::optional<Norm>* norm) {
        if (pre) {
            *norm = layer_norm_from(g, x);
            if (!*norm) return std::nullopt;
            const std::optional<std::string> y = body((*norm)->output);
            return y ? add(x, *y) : std::nullopt;
        }
        const std::optional<std::string> y = body(x);
        const std::optional<std::string> r = y ? add(x, *y) : std::nullopt;
        if (!r) return std::nullopt;
        *norm = layer_norm_from(g, *r);
        return *norm ? std::optional<std::string>((*norm)->output) : std::nullopt;
    }

    // One encoder layer (memory null) or decoder layer reading x, post-norm or pre-norm: self-attention,
    // attention over the memory (a decoder's), the feed-forward pair, each a residual sublayer with its norm.
    std::optional<std::string> layer(const std::string& x, const std::string* memory, const std::string& prefix,
                                     const std::string& name) {
        for (const bool pre : {false, true}) {
            const std::vector<bool> saved = g.mark();
            const std::vector<bool> saved_taken = taken;
            const Attention *self = nullptr, *cross = nullptr;
            std::optional<Ffn> ffn_found;
            std::optional<Norm> n1, n2, n3;
            auto attend = [&](const Attention** into, const std::string* kv) {
                return [&, into, kv](const std::string& in) -> std::optional<std::string> {
                    *into = take_attention(in, kv ? *kv : in);
                    return *into ? std::optional<std::string>((*into)->output) : std::nullopt;
                };
            };
            auto feed_forward = [&](const std::string& in) -> std::optional<std::string> {
                ffn_found = ffn(in);
                return ffn_found ? std::optional<std::string>(ffn_found->l2.output) : std::nullopt;
            };
            std::optional<std::string> h = sublayer(x, pre, attend(&self, nullptr), &n1);
            if (h && memory) h = sublayer(*h, pre, attend(&cross, memory), &n2);
            if (h) h = sublayer(*h, pre, feed_forward, memory ? &n3 : &n2);
            if (!h) {
                g.restore(saved);
                taken = saved_taken;
                continue;
            }
            agree(pre, *n1, ffn_found->act, heads_of(*self), name);
            if (memory) {
                record_decoder_masks(*self, *cross, name);
                put_attention(prefix + "multihead_attn", *cross);
                put_norm(prefix + "norm3", *n3);
            } else {
                record_encoder_mask(*self, name);
            }
            put_attention(prefix + "self_attn", *self);
            put_norm(prefix + "norm1", *n1);
            put_norm(prefix + "norm2", *n2);
            put_linear(prefix + "linear1", ffn_found->l1);
            put_linear(prefix + "linear2", ffn_found->l2);
            return h;
        }
        return std::nullopt;
    }

    void record_encoder_mask(const Attention& a, const std::string& name) {
        if (name != "encoder layer 0" && a.mask != facts.encoder_mask)
            throw ToolError(name + "'s attention mask differs from the first layer's (" + a.softmax + ")");
        facts.encoder_mask = a.mask;
    }

    void record_decoder_masks(const Attention& self, const Attention& cross, const std::string& name) {
        if (facts.decoder_seen && (self.mask != facts.decoder_mask || cross.mask != facts.memory_mask))
            throw ToolError(name + "'s attention masks differ from the first decoder layer's (" + self.softmax + ", " +
                            cross.softmax + ")");
        if (cross.mask != MaskKind::none)
            throw ToolError(cross.softmax +
                            ": the decoder's attention over the encoder's rows is masked; auspex lowers a memory "
                            "mask only when it is absent (convert the checkpoint with \"memory_mask\" instead)");
        facts.decoder_mask = self.mask;
        facts.memory_mask = cross.mask;
        facts.decoder_seen = true;
    }

    // The layers of one stack from x, then its final LayerNorm if the graph has one.
    std::string stack(std::string x, const std::string& root, const std::string* memory, size_t* count) {
        for (size_t i = 0;; ++i) {
            const std::string prefix = root + "layers." + std::to_string(i) + ".";
            const std::string name = std::string(memory ? "decoder" : "encoder") + " layer " + std::to_string(i);
            const std::optional<std::string> next = layer(x, memory, prefix, name);
            if (!next) break;
            x = *next;
            out.block_outputs.emplace_back(name, x);
            *count = i + 1;
        }
        if (*count == 0) return x;
        if (const std::optional<Norm> n = layer_norm_from(g, x)) {
            put_norm(root + "norm", *n);
            x = n->output;
            out.block_outputs.emplace_back(std::string(memory ? "decoder" : "encoder") + " final norm", x);
        }
        return x;
    }

    // A residual around a whole stack: its output plus its input (the embedded rows, positions included), as
    // the forecaster's encoder_residual/decoder_residual options add them.
    std::string stack_residual(const std::string& out_value, const std::string& in_value, bool* found) {
        const std::optional<std::string> sum = out_value == in_value ? std::nullopt : add(out_value, in_value);
        *found = sum.has_value();
        return sum.value_or(out_value);
    }

    // The table a folded position constant was sliced from, when the original graph slices an initializer (a
    // learned table or a `pe` buffer longer than the rows this export used); else the constant itself.
    HostTensor full_table(const std::string& name, const onnx::Tensor& folded, int64_t d) {
        HostTensor t;
        t.shape = folded.shape;
        t.data = folded.f;
        t.source_dtype = "float32";
        // Back over ops that keep the values' order (a Transpose of a size-1 axis, a Reshape) to a Slice or
        // Gather of an initializer.
        std::string value = name;
        for (int hops = 0; hops < 8; ++hops) {
            const onnx::Node* producer = nullptr;
            for (const onnx::Node& n : original.graph.nodes)
                if (!n.outputs.empty() && n.outputs[0] == value && !n.inputs.empty()) producer = &n;
            if (!producer) break;
            if (producer->op_type == "Transpose" || producer->op_type == "Reshape" || producer->op_type == "Squeeze" ||
                producer->op_type == "Unsqueeze") {
                value = producer->inputs[0];
                continue;
            }
            if (producer->op_type != "Slice" && producer->op_type != "Gather") break;
            for (const onnx::Tensor& init : original.graph.initializers) {
                if (init.name != producer->inputs[0] || !init.is_float() || init.shape.empty() ||
                    init.shape.back() != d || init.size() < folded.size())
                    continue;
                if (!std::equal(folded.f.begin(), folded.f.end(), init.f.begin())) continue;
                t.shape = init.shape;
                t.data = init.f;
            }
            break;
        }
        return t;
    }

    struct InputSide {
        std::string value;
        Linear embed;
        double scale = 1.0;
        std::optional<HostTensor> table;
        bool sinusoidal = false;
        int64_t table_rows = 0;
        bool cut = false;  // the table holds only the rows the export ran (a fixed-axes export folds the slice)
    };

    // The input block: input Linear, an optional scalar scale, an optional constant position table.
    InputSide input_side(const std::string& input, int64_t rows) {
        InputSide s;
        std::optional<Linear> l = linear_from(g, input);
        if (!l)
            throw ToolError(
                "graph input " + input + " is read by " +
                (g.consumers(input).empty() ? std::string("nothing") : g.node(g.consumers(input)[0]).describe()) +
                ", which no block explains: the input block of a forecaster this converter lowers starts "
                "with a Linear (a MatMul by a constant [n_features, d_model], or a Gemm); nothing was "
                "converted");
        s.embed = *l;
        s.value = l->output;
        const int64_t d = l->weight.shape[0];
        const std::vector<size_t>* readers = &g.consumers(s.value);
        double c = 0;
        if (readers->size() == 1 && !g.explained((*readers)[0]) && g.node((*readers)[0]).op_type == "Mul" &&
            g.node((*readers)[0]).inputs.size() == 2) {
            const onnx::Node& m = g.node((*readers)[0]);
            if (g.scalar(m.inputs[1], &c) || g.scalar(m.inputs[0], &c)) {
                s.scale = c;
                g.explain((*readers)[0]);
                s.value = m.outputs[0];
                readers = &g.consumers(s.value);
            }
        }
        if (readers->size() == 1 && !g.explained((*readers)[0]) && g.node((*readers)[0]).op_type == "Add" &&
            g.node((*readers)[0]).inputs.size() == 2) {
            const onnx::Node& a = g.node((*readers)[0]);
            const std::string other = a.inputs[0] == s.value ? a.inputs[1] : a.inputs[0];
            const onnx::Tensor* t = g.constant(other);
            if (t && t->is_float() && !t->shape.empty() && t->shape.back() == d &&
                static_cast<int64_t>(t->size()) == rows * d) {
                HostTensor table = full_table(other, *t, d);
                bool row0_zero = false;
                s.sinusoidal = tools::is_sinusoidal_table(table, d, &row0_zero, &s.table_rows) && !row0_zero;
                s.cut = table.data.size() == t->size();
                s.table = table;
                g.explain((*readers)[0]);
                s.value = a.outputs[0];
            } else if (t && t->is_float() && !t->shape.empty() && t->shape.back() == d &&
                       static_cast<int64_t>(t->size()) == d && rows > 1 && s.scale == 1.0) {
                // One row added to every row (a position table indexed by the batch, so every row of a series
                // gets PE(0); a learned offset): the input Linear's bias plus that row.
                if (s.embed.bias.shape.empty()) {
                    s.embed.bias.shape = {d};
                    s.embed.bias.data.assign(static_cast<size_t>(d), 0.0f);
                }
                for (int64_t j = 0; j < d; ++j)
                    s.embed.bias.data[static_cast<size_t>(j)] += t->f[static_cast<size_t>(j)];
                out.notes.push_back(a.describe() +
                                    " adds one constant row to every row (a position table indexed by the batch gives "
                                    "every row PE(0)): added to the input Linear's bias " +
                                    s.embed.node);
                g.explain((*readers)[0]);
                s.value = a.outputs[0];
            }
        }
        return s;
    }
};

// The decoder input of a one-pass model with one graph input: Concat(the input's last label_len rows, constant zero
// rows), the Informer convention forward(x) writes as torch.cat([x[:, -label_len:], zeros], dim=1).
struct OnePassInput {
    std::string decoder_input;
    int64_t label_len = 0, horizon = 0;
};

// The Slice of `x`'s rows (axis 1) from `first` to its end, or -1.
int row_slice(const GraphView& g, size_t node, const std::string& x, int64_t* first) {
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
    const int64_t rows = shape[1];
    if (axes->integer(0) != 1 && axes->integer(0) != -2) return -1;
    int64_t begin = starts->integer(0), end = ends->integer(0);
    if (begin < 0) begin += rows;
    if (end < 0) end += rows;
    if (begin < 0 || begin >= rows || end < rows) return -1;
    *first = begin;
    return static_cast<int>(node);
}

std::optional<OnePassInput> one_pass_input(GraphView& g, const std::string& x) {
    const int64_t rows = g.shape(x).size() == 3 ? g.shape(x)[1] : 0;
    for (size_t r : g.consumers(x)) {
        int64_t first = 0;
        if (row_slice(g, r, x, &first) < 0) continue;
        const std::string sliced = g.node(r).outputs[0];
        const std::vector<size_t>& readers = g.consumers(sliced);
        if (readers.size() != 1) continue;
        const onnx::Node& cat = g.node(readers[0]);
        if (cat.op_type != "Concat" || cat.inputs.size() != 2 || cat.inputs[0] != sliced) continue;
        const int64_t axis = int_attribute(cat, "axis", 0);
        const onnx::Tensor* zeros = g.constant(cat.inputs[1]);
        if ((axis != 1 && axis != -2) || !zeros || zeros->shape.size() != 3) continue;
        bool all_zero = true;
        for (size_t k = 0; k < zeros->size(); ++k) all_zero = all_zero && zeros->real(k) == 0.0;
        if (!all_zero) continue;
        g.explain(r);
        g.explain(readers[0]);
        return OnePassInput{cat.outputs[0], rows - first, zeros->shape[1]};
    }
    return std::nullopt;
}

// The Slice keeping the last `horizon` rows of a one-pass decoder's output (what its forward returns).
std::string last_rows(GraphView& g, const std::string& y, int64_t horizon) {
    const std::vector<size_t>& readers = g.consumers(y);
    const std::vector<int64_t> shape = g.shape(y);
    int64_t first = 0;
    if (readers.size() != 1 || shape.size() != 3 || row_slice(g, readers[0], y, &first) < 0 ||
        shape[1] - first != horizon)
        throw ToolError("a one-pass decoder's output " + y + " is not cut to its last " + std::to_string(horizon) +
                        " rows (the placeholders') before the graph's output");
    g.explain(readers[0]);
    return forward_over_layout(g, g.node(readers[0]).outputs[0]);
}

std::string describe_value(const GraphView& g, const std::string& v) {
    const int p = g.producer(v);
    return p < 0 ? v : g.node(static_cast<size_t>(p)).describe();
}

}  // namespace

LoweredForecaster lower_forecaster(const onnx::Model& original, const onnx::FoldedGraph& folded) {
    LoweredForecaster out;
    GraphView g(folded);
    Lowering low{g, original, out, {}, {}, {}};
    const std::vector<onnx::ValueInfo>& inputs = folded.model.graph.inputs;
    std::vector<const onnx::ValueInfo*> fed;
    for (const onnx::ValueInfo& v : inputs)
        if (!g.constant(v.name)) fed.push_back(&v);
    if (fed.empty() || fed.size() > 2 || folded.model.graph.outputs.size() != 1)
        throw ToolError(
            "a forecaster's graph has one input (encoder-only) or two (src, tgt: encoder-decoder) and one "
            "output; this one has " +
            std::to_string(fed.size()) + " inputs and " + std::to_string(folded.model.graph.outputs.size()) +
            " outputs");
    for (const onnx::ValueInfo* v : fed)
        if (g.shape(v->name).size() != 3)
            throw ToolError("input " + v->name + " is " + onnx::shape_text(g.shape(v->name)) +
                            ": a forecaster reads [batch, rows, features]");
    // Every remaining node computes something from something: one that reads or writes nothing is no block's.
    for (const onnx::Node& n : g.graph().nodes)
        if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty() || n.outputs[0].empty())
            throw ToolError(n.describe() +
                            " reads or writes nothing a forecaster's block would: nothing was converted");
    for (size_t i = 0; i < g.graph().nodes.size(); ++i)
        if (g.node(i).op_type == "Softmax") low.attentions.push_back(attention_at(g, i));
    low.attentions = join_heads(g, std::move(low.attentions));
    low.taken.assign(low.attentions.size(), false);

    out.src_input = fed[0]->name;
    const int64_t src_rows = g.shape(out.src_input)[1];
    Lowering::InputSide src = low.input_side(out.src_input, src_rows);
    out.block_outputs.emplace_back("encoder input", src.value);
    // One input feeding a decoder too: its last rows and placeholder rows after them (one-pass decoding).
    const std::optional<OnePassInput> one_pass = fed.size() == 1 ? one_pass_input(g, out.src_input) : std::nullopt;
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
        Lowering::InputSide tgt = low.input_side(tgt_value, g.shape(tgt_value)[1]);
        if (one_pass) {
            f.decoding = format::Decoding::one_pass;
            f.label_len = one_pass->label_len;
            f.horizon = one_pass->horizon;
            f.placeholder = format::Placeholder::zeros;
            out.label_len = one_pass->label_len;
            for (const char* key : {"decoding", "label_len", "horizon", "placeholder"}) state(key);
        }
        out.block_outputs.emplace_back("decoder input", tgt.value);
        last = low.stack_residual(low.stack(tgt.value, "transformer.decoder.", &memory, &dec_layers), tgt.value,
                                  &decoder_residual);
        if (dec_layers == 0)
            throw ToolError("found no decoder layer reading the decoder's input block (" + tgt.value +
                            ") and the encoder's output (" + memory + ")");
        low.put_linear("embedding_src", src.embed);
        low.put_linear("embedding_tgt", tgt.embed);
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
        f.memory_mask = format::MemoryMask::none;  // a masked memory is refused above
        state("memory_mask");
        if (low.facts.decoder_mask == MaskKind::none) {
            f.described[format::ConfigKey::decoder_mask] = static_cast<uint32_t>(format::DecoderMask::none);
            state("decoder_mask");
        }
    } else {
        low.put_linear("input_embed", src.embed);
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
    const int64_t d = src.embed.weight.shape[0];
    std::string head_in = last;
    if (encoder_only) {
        format::ForecastHead head = format::ForecastHead::generator;
        const std::vector<size_t>& readers = g.consumers(last);
        if (readers.size() == 1) {
            const onnx::Node& n = g.node(readers[0]);
            const std::vector<int64_t> s = g.shape(n.outputs[0]);
            if ((n.op_type == "Flatten" || n.op_type == "Reshape") && s.size() == 2 && s[1] == src_rows * d) {
                head = format::ForecastHead::flatten;
            } else if (n.op_type == "Gather" && n.inputs.size() == 2 && int_attribute(n, "axis", 0) == 1 &&
                       g.constant(n.inputs[1]) && g.constant(n.inputs[1])->size() == 1 &&
                       (g.constant(n.inputs[1])->integer(0) == -1 ||
                        g.constant(n.inputs[1])->integer(0) == src_rows - 1)) {
                head = format::ForecastHead::last_row;
            } else if (n.op_type == "ReduceMean" && s.size() == 2) {
                head = format::ForecastHead::mean;
            }
            if (head != format::ForecastHead::generator) {
                g.explain(readers[0]);
                head_in = forward_over_layout(g, n.outputs[0]);
            }
        }
        f.head = head;
        state("head");
        if (fed[0]->dims[1].value >= 0) {
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
    if (encoder_only && f.head != format::ForecastHead::generator) {
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
    y = forward_over_layout(g, y);
    if (one_pass) y = last_rows(g, y, one_pass->horizon);
    out.output = folded.model.graph.outputs[0].name;
    if (y != out.output)
        throw ToolError("the forecaster's output Linear " + gen->node + " is followed by " +
                        (g.consumers(y).empty() ? "nothing" : g.node(g.consumers(y)[0]).describe()) +
                        " before the graph's output " + out.output);
    if (encoder_only && f.head != format::ForecastHead::generator) {
        const std::vector<int64_t> os = g.shape(out.output);
        // [batch, horizon, outputs] shows both; [batch, values] does not: one output unless the config says
        // otherwise ("horizon", "n_outputs" or "outputs").
        f.n_outputs = os.size() == 3 ? os[2] : 1;
        out.outputs_shown = os.size() == 3;
        state("n_outputs");
    }
    const int bad = g.first_unexplained();
    if (bad >= 0)
        throw ToolError(g.node(static_cast<size_t>(bad)).describe() +
                        " is explained by no block of the forecaster (input Linear, positions, encoder/decoder layers "
                        "of attention, LayerNorm, feed-forward and residual adds, output Linear): nothing was "
                        "converted. Convert the PyTorch checkpoint with a config instead (docs/importing-models.md), "
                        "or report the model");
    f.nhead = low.facts.heads;
    state("nhead");
    f.norm_first = low.facts.norm_first;
    state("norm_first");
    f.activation = low.facts.activation;
    state("activation");
    f.layer_norm_eps = low.facts.eps;
    state("layer_norm_eps");
    f.num_encoder_layers = static_cast<int64_t>(enc_layers);
    f.num_decoder_layers = static_cast<int64_t>(dec_layers);
    return out;
}

}  // namespace ax::onnx_import
