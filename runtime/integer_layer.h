// Post-norm Transformer encoder and decoder layers in the integer-only mode (docs/integer-only.md): int8
// rows in and out, every step an integer kernel (runtime/integer_kernels.h), the parameters integers the
// converter derived from calibrated scales, referenced in place in the model file.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/fixed_point.h"
#include "runtime/integer_kernels.h"
#include "runtime/memory_plan.h"

namespace ax {

// y = clamp(zero + requantize(bias + x W^T, m), lo, hi); W int8 [out, in] in the file.
struct LinearQ {
    const int8_t* weight = nullptr;
    const int32_t* bias = nullptr;
    const fixed::Requant* m = nullptr;
    size_t in = 0;
    size_t out = 0;
    int32_t zero = 0;
    int32_t lo = -128;
    int32_t hi = 127;
};

struct LayerNormQ {
    const int32_t* gamma = nullptr;
    const int32_t* beta = nullptr;
    int32_t shift = 0;
    uint64_t eps = 0;
};

// A residual step: the stream (a) and the sublayer's output (b) onto the LayerNorm input's int16 scale.
struct AddQ {
    fixed::Requant a;
    fixed::Requant b;
};

struct AttentionQ {
    LinearQ q, k, v, out;
    fixed::Requant to_exp;  // scores -> softmax_q15's 1/8192 units (includes 1/sqrt(head_dim))
    fixed::Requant values;  // Q15-weighted values -> the attention output's scale
};

struct FeedForwardQ {
    LinearQ ff1, ff2;
    const int8_t* table = nullptr;  // GELU/ELU between them (lookup_q8); null: ReLU, in ff1's clamp
};

struct EncoderLayerQ {
    AttentionQ attn;
    AddQ add1;
    LayerNormQ norm1;
    FeedForwardQ ff;
    AddQ add2;
    LayerNormQ norm2;
};

struct DecoderLayerQ {
    AttentionQ self, cross;
    AddQ add1, add2, add3;
    LayerNormQ norm1, norm2, norm3;
    FeedForwardQ ff;
};

struct LayerShapeQ {
    size_t d_model = 0;
    size_t nhead = 0;
    size_t dim_feedforward = 0;
};

// Working memory of the integer layers, from a session's memory plan. The encoder's queries, keys, values
// and attention output cover all its rows; the other buffers a tile of kRowTileQ rows.
constexpr size_t kRowTileQ = 8;
struct LayerScratchQ {
    int8_t* q = nullptr;        // [rows, d]
    int8_t* k = nullptr;        // encoder only: [rows, d]
    int8_t* v = nullptr;        // encoder only: [rows, d]
    int8_t* att = nullptr;      // [rows, d]
    int8_t* sub = nullptr;      // [tile, d] a sublayer's output
    int16_t* sum = nullptr;     // [tile, d] residual sums
    int8_t* ff = nullptr;       // [tile, dim_feedforward]
    int32_t* scores = nullptr;  // [max_keys]
    size_t rows = 0;

    // encoder_rows > 0: the encoder's scratch; 0: the decoder's (rows = kRowTileQ), attending over up to
    // max_keys keys.
    void allocate(MemoryPlan& plan, const LayerShapeQ& s, size_t encoder_rows, size_t max_keys, Phase first,
                  Phase last);
};

// int8 keys and values of one attention, [capacity, d] each, at the scales of the projections.
struct KvCacheQ {
    static constexpr size_t kArenaRecordBytes = 32;
    int8_t* key = nullptr;
    int8_t* value = nullptr;
    size_t capacity = 0;
};

// x: [rows, d] int8, updated in place (rows <= the scratch's rows). causal: row i attends to rows <= i.
void encoder_layer_q(const IntegerKernels& k, const LayerShapeQ& s, const EncoderLayerQ& w, int8_t* x, size_t rows,
                     bool causal, LayerScratchQ& scratch);

// The cross-attention keys and values of the encoder output [mem_rows, d] (the first cross.capacity rows).
void decoder_layer_q_prepare(const IntegerKernels& k, const LayerShapeQ& s, const DecoderLayerQ& w,
                             const int8_t* memory, size_t mem_rows, KvCacheQ& cross);

// Decoder rows [first, first + rows) of x, in place, a tile at a time; appends their keys and values to
// self_cache (which holds [0, first)). memory_causal: the tril memory mask.
void decoder_layer_q(const IntegerKernels& k, const LayerShapeQ& s, const DecoderLayerQ& w, int8_t* x, size_t rows,
                     size_t first, KvCacheQ& self_cache, const KvCacheQ& cross, size_t mem_rows, bool memory_causal,
                     LayerScratchQ& scratch);

// y = x W^T through the kernel for rows of int8 in and int8 out.
void linear_q(const IntegerKernels& k, const LinearQ& l, const int8_t* x, size_t rows, int8_t* y);
// y[i] = LayerNorm(x[i]) for `rows` rows of d.
void layer_norm_q(const IntegerKernels& k, const LayerNormQ& n, const int16_t* x, size_t rows, size_t d, int8_t* y);

}  // namespace ax
