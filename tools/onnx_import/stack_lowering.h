// The layer stacks of a folded ONNX graph, recognised block by block (tools/onnx_import/blocks.h) from the
// stack's input: post-norm or pre-norm residual sublayers of self-attention, attention over an encoder's output
// and the feed-forward pair, the final norm, a residual around the whole stack; and the input block before it
// (embedding, scale, positions). Each recognised block's tensors go under the module names nn.Transformer's
// state_dict has, so a family's checkpoint importer reads them. Shared by the families' lowerings.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/checkpoint/checkpoint.h"
#include "tools/common/tool_error.h"
#include "tools/import/convert_config.h"
#include "tools/import/import_common.h"
#include "tools/onnx/onnx_model.h"
#include "tools/onnx_import/blocks.h"
#include "tools/onnx_import/conv_lowering.h"
#include "tools/onnx_import/graph_view.h"
#include "tools/onnx_import/lowered_graph.h"
#include "tools/onnx_import/marks_lowering.h"

namespace ax::onnx_import {

using tools::HostTensor;
using tools::ToolError;

// What every layer must agree on: the options of the stack block.
struct StackFacts {
    bool seen = false;
    bool norm_first = false;
    format::Activation activation = format::Activation::relu;
    float eps = 1e-5f;
    int64_t heads = 0;
    int64_t value_dim = 0;  // every attention's value columns per head
    MaskKind encoder_mask = MaskKind::none, decoder_mask = MaskKind::causal, memory_mask = MaskKind::none;
    bool decoder_seen = false;
    int64_t pad_id = -1;         // the encoder's keys are masked where the id is this (-1: no padding mask)
    int64_t target_pad_id = -1;  // the decoder's own keys are masked where the target id is this (-1: not)
    // Residual attention (PatchTST's res_attention): every encoder layer after the first adds the previous layer's
    // pre-softmax scores (last_scores, the previous layer's) to its own.
    bool residual_attention = false;
    std::string last_scores;
};

struct StackLowering {
    GraphView& g;
    const onnx::Model& original;
    tools::TensorMap& tensors;
    std::vector<std::string>& notes;
    std::vector<BlockValue>& block_outputs;
    std::vector<Attention> attentions;
    std::vector<bool> taken;
    StackFacts facts;

    void put(const std::string& name, HostTensor t) { tensors[name] = std::move(t); }

    // Every remaining node must compute something from something (one that reads or writes nothing is no block's);
    // every Softmax whose weights multiply values is an attention (attention_at refuses it otherwise, by name).
    void find_attentions(const std::string& family) {
        for (const onnx::Node& n : g.graph().nodes)
            if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.empty() || n.outputs[0].empty())
                throw ToolError(n.describe() + " reads or writes nothing a " + family +
                                "'s block would: nothing was converted");
        for (size_t i = 0; i < g.graph().nodes.size(); ++i) {
            if (g.node(i).op_type != "Softmax") continue;
            bool weights = false;
            for (size_t r : g.consumers(g.node(i).outputs[0]))
                weights = weights || g.node(r).op_type == "MatMul" || g.node(r).op_type == "Einsum";
            if (weights) attentions.push_back(attention_at(g, i));
        }
        attentions = join_heads(g, std::move(attentions));
        taken.assign(attentions.size(), false);
    }

    // The stacks' options as config statements: heads, norm placement, activation, LayerNorm eps.
    // Residual attention is an encoder-only forecaster's (PatchTST's): `residual_allowed` says the family has it.
    void state_stack_facts(tools::ConvertConfig& f, std::vector<std::string>& stated,
                           bool residual_allowed = false) const {
        if (facts.residual_attention && !residual_allowed)
            throw ToolError(
                "the encoder's layers add the previous layer's attention scores to their own (residual "
                "attention, PatchTST's res_attention), which only an encoder-only forecaster has");
        if (residual_allowed) {
            f.res_attention = facts.residual_attention;
            stated.push_back("res_attention");
        }
        f.nhead = facts.heads;
        f.value_dim = facts.value_dim;
        f.norm_first = facts.norm_first;
        f.activation = facts.activation;
        f.layer_norm_eps = facts.eps;
        for (const char* key : {"nhead", "value_dim", "norm_first", "activation", "layer_norm_eps"})
            stated.push_back(key);
    }

    // The end of a lowering: `y`, what the last block (`last`, a node name) gives, must be the graph's output
    // (layout ops after it walked over), and no node may be left unexplained: the first is refused by name.
    // `blocks` lists the family's blocks for that message.
    std::string finish(const std::string& y, const std::string& last, const std::string& family,
                       const std::string& blocks) {
        const std::string end = forward_over_layout(g, y);
        const std::string output = g.graph().outputs[0].name;
        if (end != output)
            throw ToolError(
                "the " + family + "'s " + last + " is followed by " +
                (g.consumers(end).empty() ? std::string("nothing") : g.node(g.consumers(end)[0]).describe()) +
                " before the graph's output " + output);
        const int bad = g.first_unexplained();
        if (bad >= 0)
            throw ToolError(g.node(static_cast<size_t>(bad)).describe() + " is explained by no block of the " + family +
                            " (" + blocks +
                            "): nothing was converted. Convert the PyTorch checkpoint with a config instead "
                            "(docs/importing-models.md), or report the model");
        return output;
    }

    void put_linear(const std::string& module, const Linear& l) {
        put(module + ".weight", l.weight);
        HostTensor b = l.bias;
        if (b.shape.empty()) {
            b.shape = {l.weight.shape[0]};
            b.data.assign(static_cast<size_t>(l.weight.shape[0]), 0.0f);
            notes.push_back("the Linear " + l.node + " adds no bias: stored with a zero bias");
        }
        put(module + ".bias", b);
    }

    void put_norm(const std::string& module, const Norm& n) {
        put(module + ".weight", n.weight);
        put(module + ".bias", n.bias);
        if (n.batch) {  // the importer folds BatchNorm's statistics as it does a checkpoint's
            put(module + ".running_mean", n.mean);
            put(module + ".running_var", n.variance);
        }
    }

    // q, k and v stacked as nn.MultiheadAttention's in_proj ([2 d_model + nhead x value_dim, d_model]).
    void put_attention(const std::string& module, const Attention& a) {
        const int64_t d = a.q.weight.shape[1];
        const int64_t rows = a.q.weight.shape[0] + a.k.weight.shape[0] + a.v.weight.shape[0];
        HostTensor w, b;
        w.shape = {rows, d};
        b.shape = {rows};
        for (const Projection* p : {&a.q, &a.k, &a.v}) {
            w.data.insert(w.data.end(), p->weight.data.begin(), p->weight.data.end());
            b.data.insert(b.data.end(), p->bias.data.begin(), p->bias.data.end());
        }
        w.source_dtype = b.source_dtype = "float32";
        put(module + ".in_proj_weight", w);
        put(module + ".in_proj_bias", b);
        put_linear(module + ".out_proj", a.out);
    }

    // Whether attention `a`'s projection reading `source` (layout ops walked back over) reads the rows `x`: the same
    // value, or the value a permute swapping rows and batch made `x` of, read through that permute (the stack's
    // input permuted to sequence first after its positions: the projections walk back over the permute, the
    // residual reads its output).
    bool reads_rows(const Attention& a, const std::string& source, const std::string& x) const {
        if (same_rows(g, source, x)) return true;
        const int p = g.producer(x);
        if (p < 0) return false;
        const onnx::Node& n = g.node(static_cast<size_t>(p));
        const onnx::Attribute* perm = n.op_type == "Transpose" ? n.attribute("perm") : nullptr;
        return perm && perm->ints == std::vector<int64_t>{1, 0, 2} && n.inputs[0] == source &&
               std::find(a.nodes.begin(), a.nodes.end(), static_cast<size_t>(p)) != a.nodes.end();
    }

    // The attention whose queries read `q` and keys/values `kv`, not taken yet; marks its nodes.
    const Attention* take_attention(const std::string& q, const std::string& kv) {
        for (size_t i = 0; i < attentions.size(); ++i) {
            // Nodes may be shared with an attention taken before (the exporter writes the memory's transpose
            // once for every decoder layer).
            const Attention& a = attentions[i];
            if (taken[i] || !reads_rows(a, a.q.source, q) || !reads_rows(a, a.k.source, kv)) continue;
            taken[i] = true;
            for (size_t n : attentions[i].nodes) g.explain(n);
            return &attentions[i];
        }
        return nullptr;
    }

    void agree(bool norm_first, const Norm& n, format::Activation act, const Attention& a, const std::string& where) {
        const int64_t heads = heads_of(a);
        if (!facts.seen) {
            facts = StackFacts{true,
                               norm_first,
                               act,
                               n.eps,
                               heads,
                               a.value_dim,
                               facts.encoder_mask,
                               facts.decoder_mask,
                               facts.memory_mask,
                               facts.decoder_seen,
                               facts.pad_id,
                               facts.target_pad_id,
                               facts.residual_attention,
                               facts.last_scores};
            return;
        }
        std::string what;
        if (norm_first != facts.norm_first) what = "norm placement";
        if (act != facts.activation) what = "activation";
        if (n.eps != facts.eps) what = "LayerNorm eps";
        if (heads != facts.heads) what = "head count";
        if (heads == facts.heads && a.value_dim != facts.value_dim) what = "value heads' width";
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
            agree(pre, *n1, ffn_found->act, *self, name);
            if (memory) agree(pre, *n1, ffn_found->act, *cross, name + "'s attention over the memory");
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
        if (a.mask == MaskKind::tril) throw ToolError(a.softmax + ": an encoder's self-attention mask is not square");
        record_residual_scores(a, name);
        if (name != "encoder layer 0" && (a.mask != facts.encoder_mask || a.pad_id != facts.pad_id))
            throw ToolError(name + "'s attention mask differs from the first layer's (" + a.softmax + ")");
        facts.encoder_mask = a.mask;
        facts.pad_id = a.pad_id;
    }

    // Residual attention: the first layer adds no earlier scores; the second decides whether every later layer adds
    // the previous layer's own (scores from any other attention are refused by name).
    void record_residual_scores(const Attention& a, const std::string& name) {
        const bool first = name == "encoder layer 0", second = name == "encoder layer 1";
        if (!a.residual_scores.empty() && (first || a.residual_scores != facts.last_scores))
            throw ToolError(a.softmax + ": " + name + "'s attention adds the scores " + a.residual_scores +
                            (first ? " to its own, but it is the first layer"
                                   : " to its own, which are not the previous layer's (" + facts.last_scores + ")") +
                            ": residual attention adds the previous encoder layer's pre-softmax scores only");
        if (second) facts.residual_attention = !a.residual_scores.empty();
        if (!first && !second && facts.residual_attention != !a.residual_scores.empty())
            throw ToolError(a.softmax + ": " + name + (a.residual_scores.empty() ? " adds no" : " adds the") +
                            " previous layer's attention scores, unlike encoder layer 1 (residual attention is every "
                            "layer's or none's)");
        facts.last_scores = a.scores;
    }

    void record_decoder_masks(const Attention& self, const Attention& cross, const std::string& name) {
        if (!self.residual_scores.empty() || !cross.residual_scores.empty())
            throw ToolError((self.residual_scores.empty() ? cross.softmax : self.softmax) + ": " + name +
                            " adds another attention's scores to its own (residual attention), which auspex runs in "
                            "an encoder-only model's layers only");
        if (facts.decoder_seen && (self.mask != facts.decoder_mask || cross.mask != facts.memory_mask))
            throw ToolError(name + "'s attention masks differ from the first decoder layer's (" + self.softmax + ", " +
                            cross.softmax + ")");
        if (facts.decoder_seen && self.pad_id != facts.target_pad_id)
            throw ToolError(self.softmax + ": the decoder's padding mask differs from the first decoder layer's");
        if (cross.pad_id >= 0 && cross.pad_id != facts.pad_id)
            throw ToolError(cross.softmax +
                            ": the decoder masks the encoder's rows by their ids otherwise than the encoder does "
                            "(auspex masks the source's padding id in both)");
        // The memory mask the runtime has is tril: decoder row i sees memory rows 0..i.
        const bool tril = cross.mask == MaskKind::tril || (cross.mask == MaskKind::causal && cross.square);
        if (cross.mask != MaskKind::none && !tril)
            throw ToolError(cross.softmax +
                            ": the decoder's attention over the encoder's rows is masked so that its last row sees "
                            "every memory row (a mask aligned to the end); auspex lowers no memory mask or tril "
                            "(decoder row i sees memory rows 0..i)");
        if (self.mask == MaskKind::tril)
            throw ToolError(self.softmax + ": the decoder's self-attention mask is not square");
        facts.decoder_mask = self.mask;
        facts.memory_mask = tril ? MaskKind::tril : MaskKind::none;
        facts.target_pad_id = self.pad_id;
        facts.decoder_seen = true;
    }

    // The layers of one stack from x, then its final LayerNorm if the graph has one.
    std::string stack(std::string x, const std::string& root, const std::string* memory, size_t* count) {
        const std::string side = memory ? "decoder" : "encoder";
        block_outputs.push_back({side + " input", x, ""});
        for (size_t i = 0;; ++i) {
            const std::string prefix = root + "layers." + std::to_string(i) + ".";
            const std::string name = std::string(memory ? "decoder" : "encoder") + " layer " + std::to_string(i);
            const std::optional<std::string> next = layer(x, memory, prefix, name);
            if (!next) break;
            x = *next;
            block_outputs.push_back({name, x, prefix});
            *count = i + 1;
        }
        if (*count == 0) return x;
        if (const std::optional<Norm> n = layer_norm_from(g, x)) {
            put_norm(root + "norm", *n);
            x = n->output;
            block_outputs.push_back({side + " final norm", x, root + "norm"});
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
        std::optional<TokenConv> conv;  // a token convolution in place of the input Linear
        HostTensor tokens;              // a token family's embedding table [vocab, d_model] (Gather by the ids)
        double scale = 1.0;
        std::optional<HostTensor> table;
        bool sinusoidal = false;
        int64_t table_rows = 0;
        bool cut = false;      // the table holds only the rows the export ran (a fixed-axes export folds the slice)
        bool swapped = false;  // rows and batch swapped by a permute before or after the embedding
        // The Time-Series-Library's TimeFeatureEmbedding beside a token convolution: a Linear of another graph
        // input (the time features, x_mark) added to the convolution's rows.
        // Beside an input Linear: the same Linear of another graph input, folded into the input Linear; added after
        // the embedding's scale when marks_scale is not 1.
        std::optional<Linear> marks;
        std::string marks_input;
        double marks_scale = 1.0;
    };

    // The input block's embedding: the Linear, or a token convolution under the name the importer folds
    // (`side` "src" or "tgt").
    void put_embedding(const std::string& module, const std::string& side, const InputSide& s) {
        if (s.conv) put(side + "_token_conv.weight", s.conv->weight);
        if (s.conv && s.marks) put(side + "_time_marks.weight", s.marks->weight);  // folded beside the convolution
        if (!s.conv) put_linear(module, s.marks ? join_time_marks(s.embed, *s.marks, s.marks_scale) : s.embed);
    }

    // The input block: input Linear, an optional scalar scale, an optional constant position table.
    InputSide input_side(const std::string& input, int64_t rows) {
        InputSide s;
        // A batch-first input permuted to sequence first before the Linear (x.permute(1, 0, 2) in forward).
        const std::string x = over_batch_swap(g, input, &s.swapped);
        if (x == input && (s.conv = token_conv_from(g, input))) {
            s.value = s.conv->output;
            s.embed.node = s.conv->node;
            time_marks(&s);
            return after_embedding(s, rows, s.conv->weight.shape[0]);
        }
        std::optional<Linear> l = linear_from(g, x);
        if (!l)
            throw ToolError(
                "graph input " + input + " is read by " +
                (g.consumers(input).empty() ? std::string("nothing") : g.node(g.consumers(input)[0]).describe()) +
                ", which no block explains: the input block of a forecaster this converter lowers starts "
                "with a Linear (a MatMul by a constant [n_features, d_model], or a Gemm); nothing was "
                "converted");
        s.embed = *l;
        s.value = l->output;
        // Time features added to the embedded values (the Time-Series-Library's DataEmbedding order), or after the
        // scale and positions (Informer's): then the positions may still follow.
        const bool marks_first = linear_time_marks(&s, 1.0);
        s = after_embedding(s, rows, l->weight.shape[0]);
        if (!marks_first && linear_time_marks(&s, s.scale) && !s.table) {
            const double scale = s.scale;
            s = after_embedding(s, rows, l->weight.shape[0]);
            if (s.scale != scale)
                throw ToolError("the input Linear " + s.embed.node +
                                "'s rows are scaled twice, before and after the "
                                "time features " +
                                s.marks_input + " are added: lowered is one scale");
        }
        return s;
    }

    // Time features added to the token convolution's rows, into s->marks: TimeFeatureEmbedding's Linear, bias-free.
    void time_marks(InputSide* s) {
        std::optional<TimeMarks> m = time_marks_added(g, s->value, "the token convolution " + s->conv->node);
        if (!m) return;
        if (!m->linear.bias.shape.empty())
            throw ToolError("the Linear " + m->linear.node + " of the time features " + m->input +
                            " adds a bias: the Time-Series-Library's TimeFeatureEmbedding has none, and auspex folds "
                            "it bias-free beside the token convolution " +
                            s->conv->node);
        s->marks = m->linear;
        s->marks_input = m->input;
        s->value = m->sum;
    }

    // Time features added to the input Linear's rows (before its scale and positions, or after them: `scale` is the
    // factor the embedding was multiplied by before they were added), into s->marks. True when found.
    bool linear_time_marks(InputSide* s, double scale) {
        std::optional<TimeMarks> m = time_marks_added(g, s->value, "the input Linear " + s->embed.node);
        if (!m) return false;
        s->marks = m->linear;
        s->marks_input = m->input;
        s->marks_scale = scale;
        s->value = m->sum;
        return true;
    }

    // The input block of a token family: Gather of a constant table [vocab, d_model] by the graph's ids, then
    // what follows an embedding.
    InputSide token_side(const std::string& input, int64_t rows) {
        InputSide s;
        for (size_t r : g.consumers(input)) {
            const onnx::Node& n = g.node(r);
            if (g.explained(r) || n.op_type != "Gather" || n.inputs.size() != 2 || n.inputs[1] != input ||
                int_attribute(n, "axis", 0) != 0)
                continue;
            const onnx::Tensor* table = g.constant(n.inputs[0]);
            if (!table || !table->is_float() || table->shape.size() != 2) continue;
            s.tokens.shape = table->shape;
            s.tokens.data = table->f;
            s.tokens.source_dtype = "float32";
            s.value = n.outputs[0];
            g.explain(r);
            return after_embedding(s, rows, table->shape[1]);
        }
        throw ToolError(
            "graph input " + input + " (token ids) is read by " +
            (g.consumers(input).empty() ? std::string("nothing") : g.node(g.consumers(input)[0]).describe()) +
            ", which no block explains: the input block of a token model this converter lowers starts "
            "with a Gather of an embedding table [vocab, d_model] by the ids; nothing was converted");
    }

    // What follows an embedding: an optional scalar scale, then an optional constant position table (or one
    // constant row, folded into the input Linear's bias).
    InputSide after_embedding(InputSide s, int64_t rows, int64_t d) {
        // The embedding permuted to sequence first before its positions (batch_first=False stacks).
        s.value = over_batch_swap(g, s.value, &s.swapped);
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
                       static_cast<int64_t>(t->size()) == d && rows > 1 && s.scale == 1.0 && !s.conv) {
                // One row added to every row (a position table indexed by the batch, so every row of a series
                // gets PE(0); a learned offset): the input Linear's bias plus that row.
                if (s.embed.bias.shape.empty()) {
                    s.embed.bias.shape = {d};
                    s.embed.bias.data.assign(static_cast<size_t>(d), 0.0f);
                }
                for (int64_t j = 0; j < d; ++j)
                    s.embed.bias.data[static_cast<size_t>(j)] += t->f[static_cast<size_t>(j)];
                notes.push_back(a.describe() +
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

}  // namespace ax::onnx_import
