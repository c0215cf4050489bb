// Binds tensors of an opened model to the runtime's layer structures, checking each one's shape and dtype
// against what the family expects. Shared by every model family.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/embedding.h"
#include "runtime/linear.h"
#include "runtime/model_file.h"
#include "runtime/status.h"
#include "runtime/transformer_layer.h"
#include "runtime/vocabulary.h"

namespace ax {

class TensorBinder {
public:
    explicit TensorBinder(const ModelFile& file) : file_(file) {}

    // A weight [out, in] of any stored dtype plus its float32 bias [out].
    Status linear(format::Role weight, format::Role bias, uint16_t layer, size_t out, size_t in, Linear* result);
    // A weight [out, in] of any stored dtype without a bias (T5's projections).
    Status linear_no_bias(format::Role weight, uint16_t layer, size_t out, size_t in, Linear* result);
    // A float32 [rows, cols] table read as it is (T5's relative position bias, a small token embedding).
    Status table_f32(format::Role role, uint16_t layer, size_t rows, size_t cols, const float** result);
    // A float32 vector of n values.
    Status vector(format::Role role, uint16_t layer, size_t n, const float** result);
    Status layer_norm(format::Role gamma, format::Role beta, uint16_t layer, size_t n, LayerNormWeights* result);
    // An attention's in_proj [2d + values, d] (queries, keys, values stacked) and out_proj [d, values], with their
    // biases; values: the heads' value columns (d, or nhead x value_dim).
    Status attention(format::Role in_w, uint16_t layer, size_t d, size_t values, AttentionWeights* result);
    // A [rows, dim] lookup table (token embeddings, learned positions) of any stored dtype.
    Status embedding(format::Role role, uint16_t layer, size_t rows, size_t dim, EmbeddingTable* result);

    // An int32 vector (the integer-only mode's parameters): its words and their count.
    Status words(format::Role role, uint16_t layer, const int32_t** result, size_t* count);

    // A stored vocabulary for an embedding of `size` tokens (runtime/vocabulary.h); absent, an empty one.
    Status vocabulary(format::Role role, size_t size, Vocabulary* result);

    // After binding everything the family uses: refuses a file holding tensors nobody asked for.
    Status check_all_used() const;

private:
    Status find(format::Role role, uint16_t layer, TensorView* view);
    // A [rows, cols] tensor of any stored dtype: the weight of a linear, an embedding table.
    Status matrix(format::Role role, uint16_t layer, size_t rows, size_t cols, TensorView* view);

    // Whether the file stores any weight matrix as int8: its float32 ones then multiply in a fixed order.
    bool has_int8_matrices();

    const ModelFile& file_;
    uint32_t bound_ = 0;
    int int8_matrices_ = -1;  // -1: not looked at yet
};

}  // namespace ax
