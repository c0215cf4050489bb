// The .axm flat-buffer model format, version 1: the constants and record layouts shared by the writer
// (tools/) and the reader (runtime/model_file). docs/FORMAT.md is the prose specification.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax::format {

// Each enum's spellings (configs, inspect, messages) sit in a table right after it, so a new value needs one
// more row there and nothing else. The first row naming a value is its name; later rows are aliases that
// parse_enum also accepts.
template <typename E>
struct EnumName {
    E value;
    const char* name;
};

template <typename E>
struct EnumNames {
    const EnumName<E>* rows;
    size_t count;
    const EnumName<E>* begin() const { return rows; }
    const EnumName<E>* end() const { return rows + count; }
};

template <typename E, size_t N>
constexpr EnumNames<E> names_table(const EnumName<E> (&rows)[N]) {
    return {rows, N};
}

constexpr char kMagic[8] = {'A', 'U', 'S', 'P', 'E', 'X', 'M', '\0'};
constexpr uint32_t kVersion = 1;
constexpr uint32_t kAlignment = 64;  // every tensor's data and scales start on this boundary
constexpr uint32_t kHeaderBytes = 64;
constexpr uint32_t kTensorRecordBytes = 64;
constexpr uint32_t kConfigRecordBytes = 8;
constexpr uint32_t kMaxRank = 4;
constexpr uint32_t kMaxTensors = 4096;
constexpr uint32_t kMaxConfigRecords = 256;
constexpr uint64_t kChecksumStart = 24;  // the checksum covers bytes [24, file_size)

// Header field offsets (all little-endian).
namespace header {
constexpr size_t magic = 0;           // char[8]
constexpr size_t version = 8;         // u32
constexpr size_t flags = 12;          // u32, must be 0 in version 1
constexpr size_t checksum = 16;       // u64, FNV-1a 64 of bytes [24, file_size)
constexpr size_t file_size = 24;      // u64
constexpr size_t family = 32;         // u32, Family
constexpr size_t config_count = 36;   // u32, number of 8-byte config records
constexpr size_t config_offset = 40;  // u64
constexpr size_t tensor_count = 48;   // u32
constexpr size_t reserved = 52;       // u32, must be 0
constexpr size_t tensor_offset = 56;  // u64
}  // namespace header

enum class Family : uint32_t { forecaster = 1, seq2seq = 2, classifier = 3, tvae = 4 };
inline constexpr EnumName<Family> kFamilyNames[] = {{Family::forecaster, "forecaster"},
                                                    {Family::seq2seq, "seq2seq"},
                                                    {Family::classifier, "classifier"},
                                                    {Family::tvae, "tvae"}};
constexpr EnumNames<Family> names_of(Family) { return names_table(kFamilyNames); }

// i32: integer parameters of the integer-only mode (Role::integer_plan), never a weight matrix.
// i4: a Linear weight [out, in] of signed 4-bit values (-8..7, two's complement), two per byte (column 2j in
// the low nibble of byte j of its row, 2j + 1 in the high one), with one IEEE half scale per group of
// kI4Group consecutive columns of a row (the scales region: [out, in / kI4Group]); in is a multiple of
// kI4Group. 4 + 16 / 32 = 4.5 bits per weight.
enum class DType : uint8_t { f32 = 0, f16 = 1, i8 = 2, i32 = 3, i4 = 4 };
inline constexpr EnumName<DType> kDTypeNames[] = {{DType::f32, "f32"},     {DType::f16, "f16"},     {DType::i8, "int8"},
                                                  {DType::f32, "float32"}, {DType::f16, "float16"}, {DType::i8, "i8"},
                                                  {DType::i32, "int32"},   {DType::i4, "int4"},     {DType::i4, "i4"}};
constexpr EnumNames<DType> names_of(DType) { return names_table(kDTypeNames); }

constexpr uint32_t kI4Group = 32;  // columns sharing one scale in an i4 matrix

// Bytes of one element; i4 (half a byte) answers 1: use dtype_data_bytes for a tensor's size.
inline uint32_t dtype_bytes(DType t) { return t == DType::f32 || t == DType::i32 ? 4u : t == DType::f16 ? 2u : 1u; }
// Bytes of `count` elements (i4: two per byte, count even).
inline uint64_t dtype_data_bytes(DType t, uint64_t count) {
    return t == DType::i4 ? count / 2 : count * dtype_bytes(t);
}
// Whether a matrix of this dtype multiplies activations quantized per row to int8 (quantize_rows_i8).
inline bool dtype_takes_int8_rows(DType t) { return t == DType::i8 || t == DType::i4; }

// Config records: u32 key, u32 value. Float values are stored as their IEEE-754 bit pattern.
// Every config key, once: X(name, number) /* what it holds */. The enum, the names (config keys of the
// converter's JSON of the same name spell them from here, tools/import/config_keys.cpp) and the test that
// every number up to the last has a name (tests/test_format_names.cpp) come from this list.
#define AX_CONFIG_KEYS(X)                                                                                              \
    X(d_model, 1)                                                                                                      \
    X(nhead, 2)                                                                                                        \
    X(dim_feedforward, 3)                                                                                              \
    X(encoder_layers, 4)                                                                                               \
    X(decoder_layers, 5)                                                                                               \
    X(n_features, 6)                                                                                                   \
    X(n_outputs, 7)                                                                                                    \
    X(activation, 8)           /* Activation */                                                                        \
    X(norm_first, 9)           /* 0 | 1 */                                                                             \
    X(layer_norm_eps, 10)      /* f32 bits */                                                                          \
    X(positional_encoding, 11) /* PositionalEncoding */                                                                \
    X(memory_mask, 12)         /* MemoryMask */                                                                        \
    X(encoder_final_norm, 13)  /* 0 | 1 */                                                                             \
    X(decoder_final_norm, 14)  /* 0 | 1 */                                                                             \
    X(normalization, 15)       /* Normalization */                                                                     \
    /* Token and latent families (seq2seq, classifier, tvae): */                                                       \
    X(src_vocab, 16)         /* source (classifier: input) vocabulary size */                                          \
    X(tgt_vocab, 17)         /* target vocabulary size (seq2seq) */                                                    \
    X(pad_id, 18)            /* token id, or kNoToken */                                                               \
    X(bos_id, 19)            /* token id, or kNoToken */                                                               \
    X(eos_id, 20)            /* token id, or kNoToken */                                                               \
    X(max_positions, 21)     /* longest sequence the positions allow (learned table rows...), 0 = unlimited */         \
    X(embed_scale, 22)       /* f32 bits: token embeddings are multiplied by it (sqrt(d_model) in the tutorials) */    \
    X(pooling, 23)           /* Pooling */                                                                             \
    X(output_activation, 24) /* OutputActivation */                                                                    \
    X(latent_size, 25)       /* tvae: size of z */                                                                     \
    X(start_id, 26)          /* classifier with a decoder: the token fed to it, or kNoToken */                         \
    X(kv_cache, 27)          /* optional: 0 float32 caches (the default), 1 int8 with a scale per row */               \
    X(window, 28)            /* forecaster: encoder rows it was trained on (optional; absent or 0 = not stated) */     \
    X(decode_mask_pads, 29)  /* seq2seq, optional (absent = 0): greedy decoding masks generated pad ids as keys */     \
    X(defaults, 30)          /* optional, informational: bit k set = key k was taken by default at conversion */       \
    X(model_version, 31)     /* optional (absent = unversioned): the user's model version, u32, newer is larger */     \
    X(created_time, 32)      /* optional: conversion time, seconds since 1970-01-01 UTC (u32) */                       \
    /* Forecaster variants, all optional (absent = the step-by-step encoder-decoder): */                               \
    X(head, 33)            /* ForecastHead */                                                                          \
    X(horizon, 34)         /* steps a one-pass forecaster predicts at once (its trained horizon) */                    \
    X(encoder_mask, 35)    /* EncoderMask */                                                                           \
    X(input_embedding, 36) /* InputEmbedding (encoder side; the decoder's is always a Linear) */                       \
    X(decoding, 37)        /* Decoding (encoder-decoders) */                                                           \
    X(label_len, 38)       /* one-pass decoding: observed rows fed to the decoder before the placeholders */           \
    X(placeholder, 39)     /* Placeholder (one-pass decoding) */                                                       \
    X(head_hidden, 40)     /* width of a pooled head's hidden Linear (0 = the head is one Linear) */                   \
    X(head_activation, 41) /* Activation between a pooled head's two Linears */                                        \
    X(decoder_positional_encoding, 42) /* PositionalEncoding of the decoder's rows (absent: the encoder's) */          \
    X(decoder_features, 43) /* columns the decoder reads (absent: n_features); n_outputs: the predicted ones */        \
    X(patch_len, 44)        /* patched encoder-only: steps per patch (one token); absent or 0: one row, one token */   \
    X(patch_stride, 45)     /* steps between patches */                                                                \
    X(patch_padding, 46)    /* 0 none, 1 end: the last value repeated patch_stride times (ReplicationPad1d) */         \
    X(revin, 47)            /* Revin */                                                                                \
    X(revin_eps, 48)        /* f32 bits: RevIN's eps (absent: 1e-5) */                                                 \
    X(layer_norms, 49)      /* optional, any family: 0 LayerNorm, 1 BatchNorm1d folded (see LayerOptions) */           \
    X(encoder_output_activation, 50) /* forecaster with a pooled head, optional: Activation on the encoder's rows */   \
    X(time_marks, 51) /* forecaster, optional: trailing input columns that are time features (x_mark), known ahead:    \
                         token_conv embeds them apart, one-pass placeholders take them from `future` */                \
    X(residual_attention, 52) /* optional (absent 0): 1 = each encoder layer adds the previous layer's pre-softmax     \
                                 attention scores to its own (PatchTST's res_attention) */                             \
    X(integer_only, 53) /* optional (absent = 0): 1 = the model runs in the integer-only mode (Role::integer_plan) */  \
    X(encoder_residual, 54) /* forecaster, optional (absent 0): 1 = the encoder's output is x + encoder(x), x its      \
                               embedded rows (a residual around the whole stack) */                                    \
    X(decoder_residual, 55) /* forecaster, optional (absent 0): 1 = the decoder's output is y + decoder(y, memory) */  \
    /* What proved the conversion (runtime/model_identity.h), all optional: a file without them does not say. */       \
    X(proof, 56)            /* Proof */                                                                                \
    X(proof_max_diff, 57)   /* with proof proven: f32 bits, the check's largest |difference| from PyTorch's output */  \
    X(proof_tolerance, 58)  /* with proof proven: f32 bits, the tolerance it was held to */                            \
    X(decoder_mask, 59)     /* forecaster with a decoder, optional (absent 0): DecoderMask */                          \
    X(trained_horizon, 60)  /* forecaster feeding predictions back, optional (absent 0 = not stated): the steps its    \
                               loop was trained to forecast; a longer forecast is noted, not refused */                \
    X(subtract_last, 61)    /* forecaster with RevIN, optional (absent 0): 1 = the window's last value is subtracted   \
                               instead of its mean (the std is still the window's) and added back */                   \
    X(architecture, 62)     /* forecaster, optional (absent 0): Architecture */                                        \
    X(head_dim, 63)         /* t5 layers: attention columns per head (T5's d_kv; nhead * head_dim need not equal d) */ \
    X(relative_buckets, 64) /* relative positions: T5 relative position buckets */                                     \
    X(relative_max_distance, 65) /* relative positions: T5 relative position max distance */                           \
    X(reg_token, 66)             /* patch_mlp input: row of the token table appended to the encoder's, or kNoToken */  \
    X(layer_kind, 67)            /* forecaster, optional (absent 0): LayerKind of both stacks */                       \
    X(quantiles, 68)             /* residual_mlp head: quantile levels per step (Role::quantile_levels) */             \
    X(gated_feed_forward, 69)    /* t5 layers, optional (absent 0): 1 = act(x wi_0) * (x wi_1) -> wo (T5 v1.1) */      \
    X(value_dim, 70) /* torch layers, optional (absent: d_model / nhead): value columns per head of every attention;   \
                        in_proj [2 d + nhead value_dim, d], out_proj [d, nhead value_dim] */

enum class ConfigKey : uint32_t {
#define AX_CONFIG_KEY_ENUM(name, number) name = number,
    AX_CONFIG_KEYS(AX_CONFIG_KEY_ENUM)
#undef AX_CONFIG_KEY_ENUM
};
inline constexpr EnumName<ConfigKey> kConfigKeyNames[] = {
#define AX_CONFIG_KEY_NAME(name, number) {ConfigKey::name, #name},
    AX_CONFIG_KEYS(AX_CONFIG_KEY_NAME)
#undef AX_CONFIG_KEY_NAME
};
constexpr EnumNames<ConfigKey> names_of(ConfigKey) { return names_table(kConfigKeyNames); }

// Per-window instance normalization of each input column (RevIN), undone on the outputs: z = (x - mean) /
// sqrt(var + eps) over the window (var without Bessel's correction), then z * weight + bias (affine);
// outputs y -> (y - bias) / (weight + eps^2) (affine), then y * std + mean.
enum class Revin : uint32_t { none = 0, affine = 1, plain = 2 };
inline constexpr EnumName<Revin> kRevinNames[] = {
    {Revin::none, "none"}, {Revin::affine, "affine"}, {Revin::plain, "plain"}};
constexpr EnumNames<Revin> names_of(Revin) { return names_table(kRevinNames); }

// elu: alpha 1 (torch.nn.ELU()), x for x > 0, exp(x) - 1 otherwise. gelu_tanh: GELU's tanh approximation,
// 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) (gelu(approximate="tanh"), Hugging Face's gelu_new).
enum class Activation : uint32_t { relu = 0, gelu = 1, elu = 2, gelu_tanh = 3 };
inline constexpr EnumName<Activation> kActivationNames[] = {{Activation::relu, "relu"},
                                                            {Activation::gelu, "gelu"},
                                                            {Activation::elu, "elu"},
                                                            {Activation::gelu_tanh, "gelu_tanh"}};
constexpr EnumNames<Activation> names_of(Activation) { return names_table(kActivationNames); }

// How the decoder's key/value caches store their rows (config key kv_cache).
enum class CacheType : uint32_t { f32 = 0, i8 = 1 };
inline constexpr EnumName<CacheType> kCacheTypeNames[] = {
    {CacheType::f32, "f32"}, {CacheType::i8, "int8"}, {CacheType::f32, "float32"}, {CacheType::i8, "i8"}};
constexpr EnumNames<CacheType> names_of(CacheType) { return names_table(kCacheTypeNames); }

// learned: a [max_positions, d] table indexed 0..L-1. sinusoidal_pad0: the sinusoidal table indexed by
// 1 + the token's index for non-pad tokens and 0 (a zero row) for pads. sinusoidal_pad_pe0: the same
// indexing over a table whose row 0 holds PE(0) = [0, 1, 0, 1, ...] (get_sinusoid_encoding_table(n + 1, d)
// kept whole), so pads get PE(0).
enum class PositionalEncoding : uint32_t {
    none = 0,
    sinusoidal = 1,
    learned = 2,
    sinusoidal_pad0 = 3,
    sinusoidal_pad_pe0 = 4,
    relative = 5
};
inline constexpr EnumName<PositionalEncoding> kPositionalEncodingNames[] = {
    {PositionalEncoding::none, "none"},
    {PositionalEncoding::sinusoidal, "sinusoidal"},
    {PositionalEncoding::learned, "learned"},
    {PositionalEncoding::sinusoidal_pad0, "sinusoidal_pad0"},
    {PositionalEncoding::sinusoidal_pad_pe0, "sinusoidal_pad_pe0"},
    {PositionalEncoding::relative, "relative"},
};
constexpr EnumNames<PositionalEncoding> names_of(PositionalEncoding) { return names_table(kPositionalEncodingNames); }
// Positions counted from 1 with pads at row 0: the model needs a pad id.
inline bool positions_from_one(PositionalEncoding p) {
    return p == PositionalEncoding::sinusoidal_pad0 || p == PositionalEncoding::sinusoidal_pad_pe0;
}

enum class MemoryMask : uint32_t { none = 0, tril = 1 };
inline constexpr EnumName<MemoryMask> kMemoryMaskNames[] = {{MemoryMask::none, "none"}, {MemoryMask::tril, "tril"}};
constexpr EnumNames<MemoryMask> names_of(MemoryMask) { return names_table(kMemoryMaskNames); }

// instance: each window's own mean and population std over its present values (NaN = missing, anywhere), the
// outputs mapped back with them (Chronos-Bolt's InstanceNorm, runtime/instance_norm.h).
enum class Normalization : uint32_t { none = 0, global = 1, last_value = 2, instance = 3 };
inline constexpr EnumName<Normalization> kNormalizationNames[] = {{Normalization::none, "none"},
                                                                  {Normalization::global, "global"},
                                                                  {Normalization::last_value, "last_value"},
                                                                  {Normalization::instance, "instance"}};
constexpr EnumNames<Normalization> names_of(Normalization) { return names_table(kNormalizationNames); }

enum class Pooling : uint32_t { mean = 0, max = 1, first = 2 };
inline constexpr EnumName<Pooling> kPoolingNames[] = {
    {Pooling::mean, "mean"}, {Pooling::max, "max"}, {Pooling::first, "first"}};
constexpr EnumNames<Pooling> names_of(Pooling) { return names_table(kPoolingNames); }

enum class OutputActivation : uint32_t { none = 0, sigmoid = 1, softmax = 2 };
inline constexpr EnumName<OutputActivation> kOutputActivationNames[] = {
    {OutputActivation::none, "none"}, {OutputActivation::sigmoid, "sigmoid"}, {OutputActivation::softmax, "softmax"}};
constexpr EnumNames<OutputActivation> names_of(OutputActivation) { return names_table(kOutputActivationNames); }

// What turns the encoder's rows into the forecast. generator: one Linear per row ([n_outputs, d]), fed
// back step by step. The others predict `horizon` steps of n_outputs at once from the encoder output:
// flatten (all window rows as one [window x d] vector), last_row, mean (over the rows); each through an
// optional hidden Linear + activation and a final Linear [horizon x n_outputs, ...].
// Which published architecture a forecaster was converted from. Its blocks and their options say what is
// computed; chronos_bolt stands for Chronos-Bolt's blocks in files written before those options
// (models/forecaster/chronos_bolt_alias.h).
enum class Architecture : uint32_t { blocks = 0, chronos_bolt = 1 };
inline constexpr EnumName<Architecture> kArchitectureNames[] = {{Architecture::blocks, "blocks"},
                                                                {Architecture::chronos_bolt, "chronos_bolt"}};
constexpr EnumNames<Architecture> names_of(Architecture) { return names_table(kArchitectureNames); }

// residual_mlp: the decoder's row through a residual MLP (runtime/residual_mlp.h) to quantiles x horizon values,
// row q the forecast of quantile level q (Role::quantile_levels).
enum class ForecastHead : uint32_t { generator = 0, flatten = 1, last_row = 2, mean = 3, residual_mlp = 4 };
inline constexpr EnumName<ForecastHead> kForecastHeadNames[] = {{ForecastHead::generator, "generator"},
                                                                {ForecastHead::flatten, "flatten"},
                                                                {ForecastHead::last_row, "last_row"},
                                                                {ForecastHead::mean, "mean"},
                                                                {ForecastHead::residual_mlp, "residual_mlp"}};
constexpr EnumNames<ForecastHead> names_of(ForecastHead) { return names_table(kForecastHeadNames); }

// causal: encoder row i attends to rows <= i (generate_square_subsequent_mask passed to the encoder).
enum class EncoderMask : uint32_t { none = 0, causal = 1 };
inline constexpr EnumName<EncoderMask> kEncoderMaskNames[] = {{EncoderMask::none, "none"},
                                                              {EncoderMask::causal, "causal"}};
constexpr EnumNames<EncoderMask> names_of(EncoderMask) { return names_table(kEncoderMaskNames); }

// The decoder's self-attention: causal (row i attends to rows <= i, the tgt_mask of the tutorials), or none
// (every decoder row attends to every other: a forward called without tgt_mask). Without the mask a row's
// output changes when a later row is appended, so a forecast recomputes the whole decoder at each step.
enum class DecoderMask : uint32_t { causal = 0, none = 1 };
inline constexpr EnumName<DecoderMask> kDecoderMaskNames[] = {{DecoderMask::causal, "causal"},
                                                              {DecoderMask::none, "none"}};
constexpr EnumNames<DecoderMask> names_of(DecoderMask) { return names_table(kDecoderMaskNames); }

// Whether a check pair proved the conversion: unproven (converted without one: nothing compared the model
// with PyTorch), proven (the float32 model reproduced PyTorch's output for the pair's input).
enum class Proof : uint32_t { unproven = 0, proven = 1 };
inline constexpr EnumName<Proof> kProofNames[] = {{Proof::unproven, "unproven"}, {Proof::proven, "proven"}};
constexpr EnumNames<Proof> names_of(Proof) { return names_table(kProofNames); }

// How input rows become d_model-wide rows: linear (nn.Linear(n_features, d)), none (the rows are used as
// they are: n_features == d_model), broadcast (one feature added to every column, as `x + pe` does when x
// is [S, B, 1]).
// token_conv: the Time-Series-Library's DataEmbedding, a Conv1d(kernel 3, circular padding, no bias) over the
// value columns plus a bias-free Linear over the trailing time_marks columns, stored as one Linear over
// [x[t-1], x[t], x[t+1] of the values, the marks of t] (the neighbours wrap around the sequence).
// patch_mlp: the window left-padded with missing values to whole patches of patch_len, each patch's values (0
// where missing) and its mask through a residual MLP (runtime/patch_rows.h, residual_mlp.h), then the token row
// reg_token appended (Chronos-Bolt's input).
enum class InputEmbedding : uint32_t { linear = 0, none = 1, broadcast = 2, token_conv = 3, patch_mlp = 4 };
inline constexpr EnumName<InputEmbedding> kInputEmbeddingNames[] = {{InputEmbedding::linear, "linear"},
                                                                    {InputEmbedding::none, "none"},
                                                                    {InputEmbedding::broadcast, "broadcast"},
                                                                    {InputEmbedding::token_conv, "token_conv"},
                                                                    {InputEmbedding::patch_mlp, "patch_mlp"}};
constexpr EnumNames<InputEmbedding> names_of(InputEmbedding) { return names_table(kInputEmbeddingNames); }

// autoregressive: the decoder is fed its own predictions one step at a time. one_pass: it runs once over
// label_len observed rows followed by horizon placeholder rows (the Informer convention).
// start_token: one decoder step from the token row start_id, the head giving the whole horizon (Chronos-Bolt).
enum class Decoding : uint32_t { autoregressive = 0, one_pass = 1, start_token = 2 };
inline constexpr EnumName<Decoding> kDecodingNames[] = {{Decoding::autoregressive, "autoregressive"},
                                                        {Decoding::one_pass, "one_pass"},
                                                        {Decoding::start_token, "start_token"}};

// The layers of both stacks: torch (nn.TransformerEncoderLayer / DecoderLayer) or t5 (runtime/t5_layer.h: RMS
// norms, attention without the 1/sqrt(d) scale and without biases, head_dim columns per head).
enum class LayerKind : uint32_t { torch = 0, t5 = 1 };
inline constexpr EnumName<LayerKind> kLayerKindNames[] = {{LayerKind::torch, "torch"}, {LayerKind::t5, "t5"}};
constexpr EnumNames<LayerKind> names_of(LayerKind) { return names_table(kLayerKindNames); }
constexpr EnumNames<Decoding> names_of(Decoding) { return names_table(kDecodingNames); }

// One-pass decoding's placeholder rows: zeros, or the last observed row repeated (model space).
enum class Placeholder : uint32_t { zeros = 0, last_value = 1 };
inline constexpr EnumName<Placeholder> kPlaceholderNames[] = {{Placeholder::zeros, "zeros"},
                                                              {Placeholder::last_value, "last_value"}};
constexpr EnumNames<Placeholder> names_of(Placeholder) { return names_table(kPlaceholderNames); }

// The name of a value (its first row), or nullptr for a value without one (an unchecked cast).
template <typename E>
const char* enum_name(E value) {
    for (const EnumName<E>& row : names_of(value))
        if (row.value == value) return row.name;
    return nullptr;
}

// The largest value with a name (every enum here numbers its values 0.. or 1.. without gaps).
template <typename E>
constexpr uint32_t enum_max() {
    uint32_t top = 0;
    for (const EnumName<E>& row : names_of(E{}))
        if (static_cast<uint32_t>(row.value) > top) top = static_cast<uint32_t>(row.value);
    return top;
}

// The value named `text` (a name or an alias); false when no row has that name.
template <typename E>
bool parse_enum(const char* text, E* out) {
    for (const EnumName<E>& row : names_of(E{})) {
        const char* a = row.name;
        const char* b = text;
        while (*a != '\0' && *a == *b) ++a, ++b;
        if (*a == '\0' && *b == '\0') {
            *out = row.value;
            return true;
        }
    }
    return false;
}

// How a stored vocabulary turns text into ids (runtime/tokenizer.h). words: split on whitespace, each word
// looked up as it is; basic_english: torchtext's get_tokenizer("basic_english") rules, then looked up;
// unigram, bpe: SentencePiece's encoders over its normalized text.
enum class Tokenizer : uint32_t { words = 0, basic_english = 1, unigram = 2, bpe = 3 };
inline constexpr EnumName<Tokenizer> kTokenizerNames[] = {{Tokenizer::words, "whitespace"},
                                                          {Tokenizer::basic_english, "basic_english"},
                                                          {Tokenizer::unigram, "sentencepiece_unigram"},
                                                          {Tokenizer::bpe, "sentencepiece_bpe"},
                                                          {Tokenizer::words, "words"}};
constexpr EnumNames<Tokenizer> names_of(Tokenizer) { return names_table(kTokenizerNames); }

// A token-id config value meaning "no such token".
constexpr uint32_t kNoToken = 0xFFFFFFFFu;

// Text records (docs/FORMAT.md, "Text records"; runtime/text_records.h): config keys base + i (i <
// kMaxTextRecords) hold bytes 4i..4i+3 of one UTF-8 text, the last record zero-padded; the feature names are
// separated by '\n'. Readers that do not know a key ignore it, as every reader looks keys up by number.
constexpr uint32_t kFeatureNamesKey = 0x1000;
constexpr uint32_t kOutputNamesKey = 0x1100;  // forecaster: the predicted columns' names, same layout
// Forecaster whose decoder reads its outputs only (decoder_features == n_outputs < n_features): record
// kOutputFeatureKey + i holds the input column of output i (< n_features), for i < n_outputs <= 256.
constexpr uint32_t kOutputFeatureKey = 0x1200;
// Forecaster whose decoder reads a list of columns that are not all outputs (the outputs beside known-future
// inputs such as calendar features): record kDecoderFeatureKey + j holds the input column of the decoder's
// column j (< n_features), for j < decoder_features <= 256. Absent: the decoder reads the outputs' columns.
constexpr uint32_t kDecoderFeatureKey = 0x1300;
// Forecaster: which input columns are calendar features computed from timestamps (tools/host/calendar.h),
// a text of one line per input feature, the calendar feature's name or an empty line; same layout as the
// feature names. Only the host tools read it: the runtime takes every input as values.
constexpr uint32_t kCalendarKey = 0x1400;
constexpr uint32_t kModelNameKey = 0x2000;         // the user's model name, same layout as the feature names
constexpr uint32_t kConverterVersionKey = 0x2100;  // the converter's version string, same layout
// With proof proven: the file name of the check output the conversion reproduced (no folders).
constexpr uint32_t kProofAgainstKey = 0x2200;
constexpr uint32_t kMaxModelNameBytes = 64;         // one line of printable UTF-8, 1..64 bytes
constexpr uint32_t kMaxConverterVersionBytes = 64;  // one line of printable UTF-8, 1..64 bytes
constexpr uint32_t kMaxProofAgainstBytes = 128;     // one line of printable UTF-8, 1..128 bytes
constexpr uint32_t kMaxTextRecords = 256;

// Tensor record field offsets.
namespace tensor {
constexpr size_t role = 0;           // u16, Role
constexpr size_t layer = 2;          // u16, layer index, kNoLayer when the role is not per layer
constexpr size_t dtype = 4;          // u8, DType
constexpr size_t rank = 5;           // u8, 1..kMaxRank
constexpr size_t reserved = 6;       // u16, must be 0
constexpr size_t dims = 8;           // u32[4], unused dims are 0
constexpr size_t data_offset = 24;   // u64, multiple of kAlignment
constexpr size_t data_bytes = 32;    // u64, product(dims) * dtype_bytes (i4: product(dims) / 2)
constexpr size_t scale_offset = 40;  // u64, int8: one f32 scale per row (dims[0]); i4: f16 per group; else 0
constexpr size_t scale_bytes = 48;   // u64
constexpr size_t input_absmax = 56;  // u32, float32 bits: calibrated max |input| of a weight matrix, 0 = none
constexpr size_t reserved2 = 60;     // u32, must be 0
}  // namespace tensor

constexpr uint16_t kNoLayer = 0xFFFF;

// What a tensor is for. Weight matrices keep PyTorch's [out, in] layout. The numbers are part of the
// format; roles from kFirstLayerRole on are per layer (the record's layer field says which).
// Every tensor role, once: X(name, number, "state_dict-style name"). The enum and role_name come from it.
#define AX_ROLES(X)                                                                                                    \
    X(src_embed_weight, 1, "embedding_src.weight")                                                                     \
    X(src_embed_bias, 2, "embedding_src.bias")                                                                         \
    X(tgt_embed_weight, 3, "embedding_tgt.weight")                                                                     \
    X(tgt_embed_bias, 4, "embedding_tgt.bias")                                                                         \
    X(generator_weight, 5, "generator.weight")                                                                         \
    X(generator_bias, 6, "generator.bias")                                                                             \
    X(encoder_norm_weight, 7, "encoder.norm.weight")                                                                   \
    X(encoder_norm_bias, 8, "encoder.norm.bias")                                                                       \
    X(decoder_norm_weight, 9, "decoder.norm.weight")                                                                   \
    X(decoder_norm_bias, 10, "decoder.norm.bias")                                                                      \
    X(input_mean, 11, "normalization.mean")                                                                            \
    X(input_scale, 12, "normalization.scale") /* normalization parameters, [n_features] */                             \
    X(src_token_embed, 13,                                                                                             \
      "src_token_embed.weight") /* [src_vocab, d]: nn.Embedding, any stored dtype (int8: one scale per token) */       \
    X(tgt_token_embed, 14, "tgt_token_embed.weight") /* [tgt_vocab, d] */                                              \
    X(src_pos_embed, 15, "src_pos_embed.weight")     /* [max_positions, d]: learned positions (nn.Embedding) */        \
    X(tgt_pos_embed, 16, "tgt_pos_embed.weight")     /* [max_positions, d] */                                          \
    X(head_weight, 17, "head.weight")                                                                                  \
    X(head_bias, 18, "head.bias") /* classifier head [n_labels, d], [n_labels] */                                      \
    X(z_mean_weight, 19, "z_mean.weight")                                                                              \
    X(z_mean_bias, 20, "z_mean.bias") /* tvae [latent, d], [latent] */                                                 \
    X(z_log_var_weight, 21, "z_log_var.weight")                                                                        \
    X(z_log_var_bias, 22, "z_log_var.bias") /* tvae [latent, d], [latent] */                                           \
    X(z_embed_weight, 23, "z_embedding.weight")                                                                        \
    X(z_embed_bias, 24, "z_embedding.bias") /* tvae [d, latent], [d] */                                                \
    X(seq_embed_weight, 25, "seq_embedding.weight")                                                                    \
    X(seq_embed_bias, 26, "seq_embedding.bias") /* tvae [d, n_features], [d] */                                        \
    X(r_seq_embed_weight, 27, "r_seq_embedding.weight")                                                                \
    X(r_seq_embed_bias, 28, "r_seq_embedding.bias") /* tvae [n_features, d], [n_features] */                           \
    X(revin_weight, 29, "revin.affine_weight")      /* forecaster RevIN affine [n_features] */                         \
    X(revin_bias, 30, "revin.affine_bias")          /* [n_features] */                                                 \
    X(integer_plan, 31, "integer_plan") /* int32 [words]: the integer-only mode's parameters (docs/integer-only.md) */ \
    X(enc_attn_in_weight, 32, "encoder.layers.{}.self_attn.in_proj_weight")                                            \
    X(enc_attn_in_bias, 33, "encoder.layers.{}.self_attn.in_proj_bias")                                                \
    X(enc_attn_out_weight, 34, "encoder.layers.{}.self_attn.out_proj.weight")                                          \
    X(enc_attn_out_bias, 35, "encoder.layers.{}.self_attn.out_proj.bias")                                              \
    X(enc_ff1_weight, 36, "encoder.layers.{}.linear1.weight")                                                          \
    X(enc_ff1_bias, 37, "encoder.layers.{}.linear1.bias")                                                              \
    X(enc_ff2_weight, 38, "encoder.layers.{}.linear2.weight")                                                          \
    X(enc_ff2_bias, 39, "encoder.layers.{}.linear2.bias")                                                              \
    X(enc_norm1_weight, 40, "encoder.layers.{}.norm1.weight")                                                          \
    X(enc_norm1_bias, 41, "encoder.layers.{}.norm1.bias")                                                              \
    X(enc_norm2_weight, 42, "encoder.layers.{}.norm2.weight")                                                          \
    X(enc_norm2_bias, 43, "encoder.layers.{}.norm2.bias")                                                              \
    X(mlp_hidden_weight, 44, "patch_mlp.{}.hidden_layer.weight") /* chronos_bolt residual MLPs: layer 0 the input      \
                                                                    patch embedding, layer 1 the output head */        \
    X(mlp_hidden_bias, 45, "patch_mlp.{}.hidden_layer.bias")                                                           \
    X(mlp_output_weight, 46, "patch_mlp.{}.output_layer.weight")                                                       \
    X(mlp_output_bias, 47, "patch_mlp.{}.output_layer.bias")                                                           \
    X(mlp_residual_weight, 48, "patch_mlp.{}.residual_layer.weight")                                                   \
    X(mlp_residual_bias, 49, "patch_mlp.{}.residual_layer.bias")                                                       \
    X(relative_bias, 50, "relative_attention_bias.{}.weight") /* [buckets, nhead]: layer 0 encoder, 1 decoder */       \
    X(quantile_levels, 51, "quantiles.{}") /* layer 0: [quantiles] levels of the output rows, rising in (0, 1) */      \
    X(enc_ff_gate_weight, 52, "encoder.layers.{}.linear1_gate.weight") /* gated t5 layers: wi_1 [d_ff, d] */           \
    X(dec_ff_gate_weight, 53, "decoder.layers.{}.linear1_gate.weight")                                                 \
    X(dec_attn_in_weight, 64, "decoder.layers.{}.self_attn.in_proj_weight")                                            \
    X(dec_attn_in_bias, 65, "decoder.layers.{}.self_attn.in_proj_bias")                                                \
    X(dec_attn_out_weight, 66, "decoder.layers.{}.self_attn.out_proj.weight")                                          \
    X(dec_attn_out_bias, 67, "decoder.layers.{}.self_attn.out_proj.bias")                                              \
    X(dec_cross_in_weight, 68, "decoder.layers.{}.multihead_attn.in_proj_weight")                                      \
    X(dec_cross_in_bias, 69, "decoder.layers.{}.multihead_attn.in_proj_bias")                                          \
    X(dec_cross_out_weight, 70, "decoder.layers.{}.multihead_attn.out_proj.weight")                                    \
    X(dec_cross_out_bias, 71, "decoder.layers.{}.multihead_attn.out_proj.bias")                                        \
    X(dec_ff1_weight, 72, "decoder.layers.{}.linear1.weight")                                                          \
    X(dec_ff1_bias, 73, "decoder.layers.{}.linear1.bias")                                                              \
    X(dec_ff2_weight, 74, "decoder.layers.{}.linear2.weight")                                                          \
    X(dec_ff2_bias, 75, "decoder.layers.{}.linear2.bias")                                                              \
    X(dec_norm1_weight, 76, "decoder.layers.{}.norm1.weight")                                                          \
    X(dec_norm1_bias, 77, "decoder.layers.{}.norm1.bias")                                                              \
    X(dec_norm2_weight, 78, "decoder.layers.{}.norm2.weight")                                                          \
    X(dec_norm2_bias, 79, "decoder.layers.{}.norm2.bias")                                                              \
    X(dec_norm3_weight, 80, "decoder.layers.{}.norm3.weight")                                                          \
    X(dec_norm3_bias, 81, "decoder.layers.{}.norm3.bias")                                                              \
    /* Vocabularies (docs/FORMAT.md, "Vocabularies"; runtime/vocabulary.h): int32 [words], not per layer. */           \
    X(src_vocabulary, 128, "src_vocabulary") /* the source side's (a classifier's input) */                            \
    X(tgt_vocabulary, 129, "tgt_vocabulary") /* a translator's target side */

enum class Role : uint16_t {
#define AX_ROLE_ENUM(name, number, text) name = number,
    AX_ROLES(AX_ROLE_ENUM)
#undef AX_ROLE_ENUM
};
;
constexpr uint16_t kFirstLayerRole = 32;
constexpr uint16_t kFirstLateModelRole = 128;  // roles from here on are again one per model (no layer)

// Canonical PyTorch-style name of a role, for inspect and error messages (nullptr when unknown), e.g.
// "encoder.layers.{}.self_attn.in_proj_weight" where {} stands for the layer index.
const char* role_name(Role role);
inline bool role_is_per_layer(Role role) {
    return static_cast<uint16_t>(role) >= kFirstLayerRole && static_cast<uint16_t>(role) < kFirstLateModelRole;
}

}  // namespace ax::format
