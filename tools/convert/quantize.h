// Weight storage types: float32 as read, IEEE half, or int8 symmetric per output row (docs/FORMAT.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/axm/axm_writer.h"

namespace ax::tools {

// Converts the weight matrices (rank-2 Linear/attention weights) to `dtype`, except the few small ones
// docs/FORMAT.md names; biases, LayerNorm parameters and normalization constants stay float32. int4 takes the
// Linear weights whose columns are a multiple of 32 and keeps the matrices int8 would keep float32; the rest
// (lookup tables, narrower matrices) go to int8.
// every_matrix: no matrix stays float32 (the integer-only mode multiplies every one in int8). int8 keeps a
// forecaster's input embeddings float32 (they are tiny); `raw_inputs` (data showed the model's input columns
// in their own units, of very different magnitudes) also keeps a post-norm model's first attention
// in-projections float32 when it has no normalization (their inputs carry those magnitudes); notes gets a
// line naming what was kept.
void store_weights_as(AxmModel& model, format::DType dtype, bool every_matrix = false,
                      std::vector<std::string>* notes = nullptr, bool raw_inputs = false);

// True for a forecaster that reads its input rows as they come (no normalization, no RevIN) through a
// post-norm first layer: int8 costs it accuracy when those rows are raw units of very different magnitudes.
bool feeds_raw_rows_to_attention(const AxmModel& model);

// The int4 rule (docs/FORMAT.md): per group of 32 columns of a row, scale = half(max |w| / 7) (nearest even),
// q = clamp(round_half_even(w / float(scale)), -7, 7), two per byte (even column in the low nibble); a group
// whose scale rounds to 0 stores 0 and zeros. cols is a multiple of 32; throws on a non-finite weight or a
// scale beyond half's range (`name` says which tensor).
void quantize_matrix_i4(const float* w, size_t rows, size_t cols, uint8_t* packed, uint16_t* scales,
                        const std::string& name);

format::DType parse_dtype(const std::string& name);  // "f32" | "f16" | "int8" | "int4"
const char* dtype_name(format::DType dtype);

format::CacheType parse_kv_cache(const std::string& name);  // "f32" | "int8" (runtime/format.h names)
// Records how the session keeps its decoder's key/value caches. A float32 cache is the default and adds
// no record (the file stays as before); int8 needs a model with a decoder.
void set_kv_cache(AxmModel& model, format::CacheType type);

}  // namespace ax::tools
