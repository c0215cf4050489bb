// Maps a sequence classifier checkpoint (token embedding, positions, nn.TransformerEncoder, optional
// nn.TransformerDecoder, linear head) to the .axm roles by structure, checking every shape.
#pragma once
#include "tools/axm/axm_writer.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"

namespace ax::tools {

AxmModel import_classifier(const TensorMap& tensors, const ConvertConfig& config);

}  // namespace ax::tools
