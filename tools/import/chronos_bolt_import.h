// Chronos-Bolt as its authors publish it: a Hugging Face directory of config.json (model_type "t5" with a
// "chronos_config" object) and model.safetensors under Hugging Face's T5 key names. Reads both with no auspex
// config, checks every value and shape, and hands out the tensors by role. What is not Chronos-Bolt, or is a
// variant this runtime does not compute (overlapping patches), is refused with a message naming the key and what
// to do. T5 v1.1's gated feed-forward (feed_forward_proj "gated-gelu") is read as well.
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/checkpoint/checkpoint.h"

namespace ax::tools {

struct ChronosBoltConfig {
    // The T5 part.
    size_t d_model = 0;
    size_t d_ff = 0;
    size_t d_kv = 0;
    size_t num_heads = 0;
    size_t encoder_layers = 0;
    size_t decoder_layers = 0;
    size_t num_buckets = 0;                                    // relative_attention_num_buckets
    size_t max_distance = 0;                                   // relative_attention_max_distance
    float eps = 1e-6f;                                         // layer_norm_epsilon
    format::Activation activation = format::Activation::relu;  // dense_act_fn (gelu_new: gelu_tanh)
    bool gated = false;  // is_gated_act: the feed-forward is act(x wi_0) * (x wi_1) -> wo
    size_t reg_token_id = 1;
    size_t decoder_start_token_id = 0;
    // chronos_config.
    size_t context_length = 0;
    size_t patch_size = 0;
    size_t prediction_length = 0;
    std::vector<float> quantiles;
    bool use_reg_token = false;

    size_t inner() const { return num_heads * d_kv; }
    size_t patches() const { return (context_length + patch_size - 1) / patch_size; }
};

// One T5 attention: no biases; q, k, v [inner, d_model], o [d_model, inner].
struct T5AttentionTensors {
    HostTensor q, k, v, o;
};

struct T5EncoderLayerTensors {
    HostTensor attention_norm;  // [d_model], RMS norm weight
    T5AttentionTensors self_attention;
    HostTensor ff_norm;
    HostTensor wi, wo;   // [d_ff, d_model], [d_model, d_ff] (gated: wi is wi_0)
    HostTensor wi_gate;  // gated: wi_1, [d_ff, d_model]
};

struct T5DecoderLayerTensors {
    HostTensor self_norm;
    T5AttentionTensors self_attention;
    HostTensor cross_norm;
    T5AttentionTensors cross_attention;
    HostTensor ff_norm;
    HostTensor wi, wo;
    HostTensor wi_gate;
};

// A residual MLP block: act(x W_hidden^T + b) W_output^T + b + (x W_residual^T + b).
struct ResidualMlpTensors {
    HostTensor hidden_weight, hidden_bias;      // [d_ff, in], [d_ff]
    HostTensor output_weight, output_bias;      // [out, d_ff], [out]
    HostTensor residual_weight, residual_bias;  // [out, in], [out]
};

struct ChronosBoltTensors {
    HostTensor shared;                   // [vocab, d_model]: row 0 the decoder's start token, row 1 [REG]
    ResidualMlpTensors input_embedding;  // in 2 * patch_size, out d_model
    HostTensor encoder_relative_bias;    // [num_buckets, num_heads]
    HostTensor decoder_relative_bias;    // [num_buckets, num_heads]
    std::vector<T5EncoderLayerTensors> encoder;
    HostTensor encoder_final_norm;
    std::vector<T5DecoderLayerTensors> decoder;
    HostTensor decoder_final_norm;
    ResidualMlpTensors output_embedding;  // in d_model, out quantiles * prediction_length
};

struct ChronosBoltCheckpoint {
    ChronosBoltConfig config;
    ChronosBoltTensors tensors;
};

// Whether `path` is a directory whose config.json names model_type "t5" and holds a chronos_config: the
// converter's test for taking this path (any error reading it is left to read_chronos_bolt).
bool is_chronos_bolt_directory(const std::string& path);

// The config values alone, from config.json's text (source names it in messages).
ChronosBoltConfig parse_chronos_bolt_config(const std::string& json_text, const std::string& source);

// The directory's config.json and model.safetensors, checked; throws ToolError naming what is wrong.
ChronosBoltCheckpoint read_chronos_bolt(const std::string& directory);
// The same from a parsed config and tensors already read.
ChronosBoltCheckpoint chronos_bolt_from(const ChronosBoltConfig& config, const TensorMap& tensors);

}  // namespace ax::tools
