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
    // n_kv rows of keys (head_dim columns per head) and values (value_dim per head): floats, or with k_scale set
    // an int8 cache's rows (k_i8, v_i8) with one scale per row. (One pointer each: the struct lives in the
    // layers' frames, which a microcontroller's stack budget counts.)
    union {
        const float* k;
        const int8_t* k_i8;
    };
    union {
        const float* v;
        const int8_t* v_i8;
    };
    size_t kv_stride;  // the keys' row stride
    // Value columns per head and the values' row stride: head_dim and kv_stride as torch.nn.MultiheadAttention
    // has them; attention written one head at a time may have value heads of another width (LayerOptions::
    // value_dim), its values then in rows of their own. Each head's output is value_dim wide.
    size_t value_dim;
    size_t v_stride;
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
    // An int8 cache: the scales of its key and value rows (k_i8, v_i8).
    const float* k_scale = nullptr;
    const float* v_scale = nullptr;
    // Residual attention (PatchTST's res_attention): [nhead, n_q, n_kv] pre-softmax scores of the previous
    // layer, added to this layer's and replaced by the sums, which the next layer reads (zeros before the
    // first layer).
    float* residual_scores = nullptr;
};

// out: n_q rows of nhead * in.value_dim values, out_stride apart (0: contiguous). scores: scratch for n_kv floats.
// With a parallel-for (optional), a port's attention_rows_f32 calls go to its workers by heads and groups of
// rows (each output row computed by one call, as without it: the same bits).
void attend(const Kernels& k, const AttentionInput& in, size_t nhead, size_t head_dim, float* scores, float* out,
            size_t out_stride = 0, const ParallelFor* parallel = nullptr);

// attention_rows_f32's row groups (runtime/kernels.h): row ranges split at multiples of this many rows.
constexpr size_t kAttentionRowGroup = 8;

}  // namespace ax
