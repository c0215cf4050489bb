// Scaled dot-product attention over many heads, as torch.nn.MultiheadAttention computes it after the
// input projections. Keys and values may sit in a KV cache or inside a packed qkv buffer (strides).
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/kernels.h"
#include "runtime/parallel.h"

namespace ax {

struct AttentionInput {
    const float* q;  // n_q rows
    size_t q_stride;
    const float* k;  // n_kv rows
    const float* v;
    size_t kv_stride;
    size_t n_q;
    size_t n_kv;
    size_t first_position;  // absolute position of query row 0
    // Causal: query at position p sees keys [0, p] (a decoder's self-attention, or the "tril" memory mask:
    // torch.tril(ones(tgt, src)) as 0/-inf); otherwise all n_kv keys.
    bool causal;
    // Key padding: key j takes part only when key_valid[j] != 0 (nullptr: every key does), as PyTorch's
    // key_padding_mask with true = pad. A query row that sees no valid key gets an all-zero output (where
    // PyTorch produces NaN and masks filled with -1e9 give the mean of the values).
    const uint8_t* key_valid = nullptr;
    // An int8 cache (k and v unused): rows of int8 keys and values, kv_stride apart, one scale per row.
    const int8_t* k_i8 = nullptr;
    const int8_t* v_i8 = nullptr;
    const float* k_scale = nullptr;
    const float* v_scale = nullptr;
    // Residual attention (PatchTST's res_attention): [nhead, n_q, n_kv] pre-softmax scores of the previous
    // layer, added to this layer's and replaced by the sums, which the next layer reads (zeros before the
    // first layer).
    float* residual_scores = nullptr;
};

// out: n_q rows of nhead * head_dim values, out_stride apart (0: contiguous). scores: scratch for n_kv floats.
// With a parallel-for (optional), a port's attention_rows_f32 calls go to its workers by heads and groups of
// rows (each output row computed by one call, as without it: the same bits).
void attend(const Kernels& k, const AttentionInput& in, size_t nhead, size_t head_dim, float* scores, float* out,
            size_t out_stride = 0, const ParallelFor* parallel = nullptr);

// attention_rows_f32's row groups (runtime/kernels.h): row ranges split at multiples of this many rows.
constexpr size_t kAttentionRowGroup = 8;

}  // namespace ax
