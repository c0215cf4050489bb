// Weight storage types: float32 as read, IEEE half, or int8 symmetric per output row (docs/FORMAT.md).
#pragma once
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/convert/axm_writer.h"

namespace ax::tools {

// Converts the weight matrices (rank-2 Linear/attention weights) to `dtype`, except the few small ones
// docs/FORMAT.md names; biases, LayerNorm parameters and normalization constants stay float32.
// every_matrix: no matrix stays float32 (the integer-only mode multiplies every one in int8). int8 keeps a
// forecaster's input embeddings float32, and a post-norm one without normalization its first layers' attention
// in-projections too (their inputs carry the columns' own magnitudes); notes gets a line naming them.
void store_weights_as(AxmModel& model, format::DType dtype, bool every_matrix = false,
                      std::vector<std::string>* notes = nullptr);

format::DType parse_dtype(const std::string& name);  // "f32" | "f16" | "int8"
const char* dtype_name(format::DType dtype);

format::CacheType parse_kv_cache(const std::string& name);  // "f32" | "int8" (runtime/format.h names)
// Records how the session keeps its decoder's key/value caches. A float32 cache is the default and adds
// no record (the file stays as before); int8 needs a model with a decoder.
void set_kv_cache(AxmModel& model, format::CacheType type);

}  // namespace ax::tools
