// The parts of a forecaster checkpoint outside its layer stacks that vary between the forecasters people
// write: learned position tables, and an encoder-only model's input Linear and head Linears, told apart
// by shape (names only where shapes cannot tell).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tools/import/import_common.h"

namespace ax::tools {

// A learned position table: an nn.Parameter [1, L, d], [L, 1, d] or [L, d], or an nn.Embedding weight
// [L, d], named with "pos" (sinusoidal `pe` buffers are found by their values before this runs).
struct PositionTable {
    std::string name;
    int64_t rows = 0;
};
std::vector<PositionTable> find_position_tables(const CheckpointTensors& ck, int64_t d);

// The Linear modules of an encoder-only forecaster: the input embedding [d, n_features] (absent when the
// rows go in as they are), an optional hidden Linear and the final Linear of the head. The head's first
// Linear reads d values (one row: per-row generator, last row, mean) or k x d (the window flattened).
struct EncoderOnlyLinears {
    std::string input, hidden, final;
};
EncoderOnlyLinears find_encoder_only_linears(const CheckpointTensors& ck, int64_t d);

}  // namespace ax::tools

namespace ax::tools {

// The Time-Series-Library's DataEmbedding, named by its map (tools/import/maps/tslib_transformer.map):
// `<side>_token_conv.weight` (Conv1d(c, d, kernel_size=3, padding=1, padding_mode="circular", bias=False),
// [d, c, 3]) and an optional `<side>_time_marks.weight` (TimeFeatureEmbedding's bias-free Linear, [d, k]) are
// folded into one Linear `<side>_embed` [d, 3c + k] with a zero bias, reading [x[t-1], x[t], x[t+1], marks[t]]
// (runtime format.h, InputEmbedding::token_conv). Returns k, or -1 when the side has no token convolution.
struct TokenConv {
    int64_t values = 0, marks = 0;
};
bool fold_token_conv(TensorMap& tensors, const std::string& side, TokenConv* out);

// A flatten head's first Linear (its f32 weight [out, rows x d]) reordered from reading [d, rows] (config
// "head_flatten": "d_model_first", PatchTST's Flatten_Head after its backbone's permute) to reading the
// rows back to back, as the runtime flattens them.
void reorder_flatten_head(AxmTensor& weight, int64_t rows, int64_t d);

}  // namespace ax::tools
