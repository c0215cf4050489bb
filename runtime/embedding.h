// Token embeddings (torch.nn.Embedding) and learned position tables, read in place in any stored dtype:
// an int8 table has one scale per row, i.e. per token. Plus the whole input step of the token families:
// token rows times a scale, plus positions.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/format.h"
#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

struct EmbeddingTable {
    format::DType dtype = format::DType::f32;
    const void* data = nullptr;     // [rows, dim]
    const float* scales = nullptr;  // int8: per row
    size_t rows = 0;
    size_t dim = 0;
};

// out[0, dim) = table[row] * scale, dequantized.
void embedding_row(const EmbeddingTable& table, size_t row, float scale, float* out);
// out[0, dim) += table[row], dequantized.
void embedding_add_row(const EmbeddingTable& table, size_t row, float* out);

// How a token sequence becomes model input rows.
struct TokenInput {
    EmbeddingTable tokens;
    EmbeddingTable positions;  // PositionalEncoding::learned only
    format::PositionalEncoding positional_encoding = format::PositionalEncoding::none;
    float scale = 1.0f;  // applied to the token rows only, as `embedding(x) * sqrt(d_model) + pe`
    uint32_t pad_id = format::kNoToken;
};

// x[r] = tokens[ids[r]] * scale + PE(first_position + r) for `rows` rows of width tokens.dim. The ids must
// have been checked (check_tokens). Positions: sinusoidal and learned use the index; sinusoidal_pad0 uses
// index + 1, and for a pad token 0 (no position added; sinusoidal_pad_pe0: PE(0)). Learned positions need
// first_position + rows <= positions.rows (the caller checks lengths against max_positions).
void embed_tokens(const TokenInput& in, const int32_t* ids, size_t rows, size_t first_position, float* x);

// The token families' input config (docs/FORMAT.md keys positional_encoding, max_positions, embed_scale),
// checked against d_model (sinusoidal tables need it even) and pad_id (sinusoidal_pad0 needs one).
Status read_token_input_config(const ModelFile& f, size_t d_model, uint32_t pad_id,
                               format::PositionalEncoding* positional_encoding, size_t* max_positions,
                               float* embed_scale);

// Every id in [0, vocab); `what` names the sequence in the message.
Status check_tokens(const int32_t* ids, size_t n, size_t vocab, const char* what);

// valid[i] = ids[i] is not pad_id. Returns valid, or nullptr when no id is a pad (the attention then
// takes its unmasked path).
const uint8_t* mark_non_pad(const int32_t* ids, size_t n, uint32_t pad_id, uint8_t* valid);

// A pad id a session may switch to: inside vocab, or kNoToken when the positions do not need one.
Status check_pad_id(uint32_t pad_id, size_t vocab, format::PositionalEncoding positional_encoding);

}  // namespace ax
