// What a family's lowering of an ONNX graph gives: the tensors under the module names a checkpoint of the family
// has, the config facts the graph shows, and where the graph's blocks begin and end.
#pragma once
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"

namespace ax::onnx_import {

// A value of the graph where a block of the stacks ends: "encoder input" (the stack's input), "encoder layer 0"
// (with its tensors' prefix, "transformer.encoder.layers.0."), "encoder final norm", and the decoder's alike.
struct BlockValue {
    std::string block, value, prefix;
};

// What a family's lowering gives: the tensors under a checkpoint's module names and the config facts the graph
// shows, for that family's checkpoint importer.
struct LoweredGraph {
    format::Family family = format::Family::forecaster;
    tools::TensorMap tensors;
    // What the graph shows, as config statements; the user's config adds what it cannot show.
    tools::ConvertConfig facts;
    std::vector<std::string> stated;   // the keys of `facts` the graph set
    std::string src_input, tgt_input;  // the graph's inputs (tgt empty for an encoder-only model, a classifier)
    // Each side's time features when the graph takes them as inputs of their own (the Time-Series-Library's
    // x_mark_enc, x_mark_dec): auspex reads them as the last columns of that side's rows.
    std::string src_marks, tgt_marks;
    // One-pass decoding from one input: the value the graph builds the decoder's input as (the window's last
    // label_len rows, RevIN-normalized when the graph normalizes them, and zero rows after them), which the proof
    // feeds the lowered model's decoder.
    std::string decoder_input;
    std::string output;
    // The position table the graph holds is only the rows the export ran (a fixed-axes export folds the slice of
    // a longer table): its row count is no limit the model had, and a config may state a longer one.
    bool positions_cut = false;
    // A one-pass head's output shows its outputs per step ([batch, horizon, outputs]); [batch, values] does not.
    bool outputs_shown = true;
    // The value the decoder attends to when it is not the encoder's output (a Transformer-VAE's latent embedded
    // and repeated over the rows); empty otherwise.
    std::string memory;
    // The stacks run laid out [length, batch, d_model] (batch_first=False): the rows' first axis is the sequence.
    bool sequence_first = false;
    // A translator's decoder masks its own padding keys (the proof then pads the target's last id).
    bool target_pad = false;
    std::vector<std::string> notes;
    // The ONNX values where each block of the stacks begins and ends, in order, for telling which block differs.
    std::vector<BlockValue> block_outputs;
};

}  // namespace ax::onnx_import
