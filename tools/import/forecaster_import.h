// Maps a forecaster checkpoint's tensors to the .axm roles by structure (a prefix holding
// `layers.N.self_attn.in_proj_weight` and so on), checks every shape against the others and the config,
// and builds the float32 model.
#pragma once
#include "tools/axm/axm_writer.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"

namespace ax::tools {

AxmModel import_forecaster(const TensorMap& tensors, const ConvertConfig& config);

}  // namespace ax::tools
