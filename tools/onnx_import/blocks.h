// The recognisers of the forecaster's blocks in a folded ONNX graph: each reads the nodes one block of an
// nn.Transformer-style model exports to (in the forms torch.onnx.export writes them), takes their weights in
// PyTorch's layout and marks the nodes explained. A recogniser that does not see its block returns nothing and
// leaves the marks as they were.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/onnx_import/graph_view.h"

namespace ax::onnx_import {

// An nn.Linear: MatMul by a constant [in, out] (plus an Add of a constant [out]), or Gemm.
struct Linear {
    tools::HostTensor weight;  // [out, in], as nn.Linear holds it
    tools::HostTensor bias;    // [out]; empty shape when the graph adds none
    std::string output;
    std::string node;  // the MatMul's or Gemm's name (the module path)
};
// The Linear reading `x` (the first such MatMul or Gemm among x's readers that no block explained yet).
std::optional<Linear> linear_from(GraphView& g, const std::string& x);

// LayerNormalization over the last axis, or its decomposition (ReduceMean, Sub, Pow, ReduceMean, Add eps, Sqrt,
// Div, Mul, Add) that exporters write below opset 17; or a BatchNorm1d over the channels in evaluation mode
// (Transpose to [batch, d_model, rows], BatchNormalization, Transpose back), as PatchTST's and mvts_transformer's
// layers norm.
struct Norm {
    tools::HostTensor weight, bias;
    float eps = 1e-5f;
    std::string output;
    bool batch = false;                // BatchNorm1d: its running statistics below
    tools::HostTensor mean, variance;  // [d_model]
};
std::optional<Norm> layer_norm_from(GraphView& g, const std::string& x);

// ReLU, or exact GELU (Gelu, or x * 0.5 * (1 + erf(x / sqrt(2))) in the order torch writes it).
struct Act {
    format::Activation kind = format::Activation::relu;
    std::string output;
};
std::optional<Act> activation_from(GraphView& g, const std::string& x);

// A linear projection feeding attention: its weight and bias (rows sliced out of a packed in-projection where
// the graph slices one), and the value it reads (layout ops before it walked over).
struct Projection {
    tools::HostTensor weight, bias;
    std::string source;
};

// One multi-head attention, found from its Softmax: q/k/v projections, scores (MatMul or Einsum), the scale
// (every scalar Mul/Div on the way, as a product,
// folded into the query projection when it is not 1/sqrt(head_dim)), an additive mask (a constant, or Where of a
// constant condition), the value product and the output projection. causal: query i sees keys 0..i + (keys - queries)
// (the last query sees every key); tril: query i sees keys 0..i (a memory mask torch.tril writes for more memory rows
// than decoder rows). Square scores are called causal.
enum class MaskKind { none, causal, tril };
struct Attention {
    Projection q, k, v;
    Linear out;
    int64_t head_dim = 0;   // query and key columns per head
    int64_t value_dim = 0;  // value columns per head: head_dim, or wider or narrower in attention written by head
    MaskKind mask = MaskKind::none;
    bool square = true;   // as many queries as keys (where the mask was classified)
    int64_t pad_id = -1;  // keys whose id is this are masked (a key-padding mask made from the ids), or -1
    std::string output;   // the attention's result in the model's layout (one head's, when `concat` is set)
    int concat = -1;      // one head of several written apart: the Concat joining them (join_heads)
    std::string softmax;  // the Softmax node's name, for messages
    std::string scores;   // the Softmax's input: the pre-softmax scores (a next layer may add them to its own)
    // Residual attention (PatchTST's res_attention): the scores of another attention added to these before the
    // softmax (that attention's `scores` value), or empty.
    std::string residual_scores;
    std::vector<size_t> nodes;  // what it explains, marked when a layer takes it
};
// ToolError naming the Softmax node when the nodes around it are no attention this lowering knows.
Attention attention_at(GraphView& g, size_t softmax);
// Attentions whose heads are written apart (a Linear per head for q, k and v, one Softmax each, the heads joined
// by a Concat into the output Linear) joined into one: their projections' rows stacked in the Concat's order. The
// heads' values may be wider or narrower than their queries and keys (nanoGPT-style heads as wide as d_model), all
// of one width.
std::vector<Attention> join_heads(GraphView& g, std::vector<Attention> heads);
// The output projection after `value` (the heads' joined values) and the layout ops after it; checks the shapes:
// queries and keys [d_model, d_model] in heads of head_dim, values nhead x value_dim rows, which the output
// projection [d_model, nhead x value_dim] reads. ToolError naming the Softmax otherwise.
void finish_attention(GraphView& g, Attention& a, std::string value);

// Matching helpers the recognisers share.
// The reduction axes of a ReduceMean (attribute below opset 18, input from it on).
std::vector<int64_t> reduce_axes(const GraphView& g, const onnx::Node& n);
// The one unexplained reader of `value` with op `op` whose other input is a scalar constant (after `value` for
// Div, Sub and Pow); its value in *c. -1 when there is none.
int scalar_reader(const GraphView& g, const std::string& value, const std::string& op, double* c);
// The one unexplained reader of `value` with op `op` whose other input is `other` (either order), or -1.
int pair_reader(const GraphView& g, const std::string& value, const std::string& op, const std::string& other);
// `value`'s only reader when it is `op` with a constant of d values (any shape of d elements) as its other
// input; the constant in *out. -1 otherwise.
int vector_reader(const GraphView& g, const std::string& value, const std::string& op, int64_t d,
                  tools::HostTensor* out);

// Whether `source` (what an attention's projection reads, layout ops walked over) is `x`, or the channels-first
// value of a BatchNorm whose Transpose back is `x` (the exporter fuses that Transpose with the next layer's).
bool same_rows(const GraphView& g, const std::string& source, const std::string& x);

// The Add of `a` and `b` (in either order) no block explained yet, or -1.
int add_of(const GraphView& g, const std::string& a, const std::string& b);

// Walks forward from `value` over single-reader layout ops (Transpose, Reshape, Flatten, Squeeze, Unsqueeze),
// marking them; the value reached.
std::string forward_over_layout(GraphView& g, std::string value);

// `value`'s one unexplained reader when it is a Transpose of perm {1, 0, 2} (rows and batch swapped: the permute
// batch_first=False code writes around its stacks), marked, and *swapped toggled; else `value` as it is.
std::string over_batch_swap(GraphView& g, const std::string& value, bool* swapped);

}  // namespace ax::onnx_import
