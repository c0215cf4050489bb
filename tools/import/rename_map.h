// Rename maps: how a checkpoint of hand-written modules reaches the canonical names the family importers
// recognise (docs/FORMAT.md, "Rename maps"). A map is a text file of rules, one per line:
//
//     # comment
//     encoder.layers.{N}.self_attention.fc_q.{p} -> encoder.layers.{N}.self_attn.in_proj_{p}[q]
//     encoder.layers.{N}.positionwise_feedforward.fc_1.{p} -> encoder.layers.{N}.linear1.{p}
//     some.training.buffer -> -
//
// `{name}` captures one name component (letters, digits, underscores: a layer number, "weight", "bias") and
// may be used on the right; `{name*}` captures one or more components, dots included
// (`encoder_layer.{rest*} -> -` drops every tensor under encoder_layer). The first rule matching a whole tensor name
// renames it; "-" drops the tensor; names no rule matches pass through unchanged. After renaming:
//  - `X[q]`, `X[k]`, `X[v]` are stacked (in that order, along the first dimension) into X: separate query,
//    key and value Linear layers become a packed in_proj_weight / in_proj_bias;
//  - a renamed tensor of shape [out, in, 1] (Conv1d with kernel_size 1) becomes [out, in];
//  - inside a layer stack (`...layers.N....`), a renamed Linear weight without a bias (bias=False) gets a zero
//    bias, so the runtime's layers need no special case.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "tools/checkpoint/checkpoint.h"

namespace ax::tools {

class RenameMap {
public:
    // Longer rule lines are refused: tensor names are at most 1024 bytes (the checkpoint readers' limit).
    static constexpr size_t kMaxRuleBytes = 4096;

    // Throws ToolError "<source>:<line>: <what>" on a malformed rule.
    static RenameMap parse(const std::string& text, const std::string& source);
    static RenameMap read(const std::string& path);

    // The renamed checkpoint. Throws ToolError when two tensors get one name, a q/k/v group is incomplete or
    // its parts differ in shape. `unmatched` (when given) gets "<source>:<line>: <pattern>" for each rule no
    // tensor matched: where a misspelt module name in the model (or in the map) shows.
    TensorMap apply(const TensorMap& tensors, std::vector<std::string>* unmatched = nullptr) const;

    size_t rule_count() const { return rules_.size(); }

private:
    struct Rule;
    std::vector<std::shared_ptr<const Rule>> rules_;
    std::string source_;
};

}  // namespace ax::tools
