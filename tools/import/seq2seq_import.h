// Maps a seq2seq translator checkpoint (the nn.Transformer translation tutorial's layout, or any layout a
// rename map brought to canonical names) to the .axm roles by structure, checking every shape.
#pragma once
#include "tools/axm/axm_writer.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"

namespace ax::tools {

AxmModel import_seq2seq(const TensorMap& tensors, const ConvertConfig& config);

}  // namespace ax::tools
