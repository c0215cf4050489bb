// Maps a Transformer-VAE checkpoint (seq_embedding, positions, encoder, z_mean / z_log_var, z_embedding,
// decoder, r_seq_embedding) to the .axm roles by structure, checking every shape.
#pragma once
#include "tools/axm/axm_writer.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"

namespace ax::tools {

AxmModel import_tvae(const TensorMap& tensors, const ConvertConfig& config);

}  // namespace ax::tools
