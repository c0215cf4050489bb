// The converter's config file: what cannot be read off the checkpoint's tensor shapes.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "runtime/format.h"

namespace ax::tools {

class JsonValue;

struct NormalizationSpec {
    format::Normalization mode = format::Normalization::none;
    std::vector<float> mean;  // global only
    std::vector<float> scale;
};

// What a config file states, one field per key; each key's row in tools/import/config_keys.cpp reads it.
struct ConvertConfig {
    format::Family arch = format::Family::forecaster;
    int64_t nhead = 0;
    format::Activation activation = format::Activation::relu;
    bool norm_first = false;
    double layer_norm_eps = 1e-5;
    // sinusoidal | none (every family), learned | sinusoidal_pad0 (token families); absent: inferred from
    // the tensors (a `pe` buffer, a position table)
    std::optional<format::PositionalEncoding> positional_encoding;
    format::MemoryMask memory_mask = format::MemoryMask::none;
    NormalizationSpec normalization;
    // Token families: special ids (absent: none), the token embedding scale (a number, or "sqrt_d_model"
    // as the translation tutorial; absent: the family's default), the classifier's pooling, output
    // activation and decoder start token.
    std::optional<int64_t> pad_id, bos_id, eos_id, start_id;
    std::optional<double> embed_scale;
    bool embed_scale_sqrt_d = false;
    std::optional<format::Pooling> pooling;
    std::optional<format::OutputActivation> output_activation;
    // Optional statements about the shapes; each must agree with the tensors.
    std::optional<int64_t> d_model, dim_feedforward, num_encoder_layers, num_decoder_layers, n_features, n_outputs;
    // Value columns per attention head (d_model / nhead unless the attention was written with value heads of
    // their own width); read off the in- and out-projections.
    std::optional<int64_t> value_dim;
    std::optional<int64_t> src_vocab, tgt_vocab, n_labels, latent_size, max_positions;
    std::optional<int64_t> window;         // forecaster: the encoder rows it was trained on
    std::optional<bool> decode_mask_pads;  // seq2seq greedy decoding; absent: false (the tutorial's)
    // Forecaster variants (runtime/format.h documents each); absent: inferred from the tensors or the
    // step-by-step encoder-decoder's value.
    std::optional<format::ForecastHead> head;
    std::optional<format::PositionalEncoding> decoder_positional_encoding;
    std::optional<format::InputEmbedding> input_embedding;
    std::optional<format::Decoding> decoding;
    std::optional<format::Placeholder> placeholder;
    std::optional<format::Activation> head_activation;
    std::optional<int64_t> horizon, label_len;
    // The last input columns that are time features known ahead (x_mark); absent: a token convolution's own, else 0.
    std::optional<int64_t> time_marks;
    // Patches (PatchTST's own argument names): steps per patch, steps between patches, "end" padding.
    std::optional<int64_t> patch_len, stride;
    std::optional<std::string> padding_patch;
    // PatchTST's res_attention: each encoder layer adds the previous one's pre-softmax scores.
    std::optional<bool> res_attention;
    // The order a flatten head reads the encoded rows in: "rows" (x.reshape(B, -1) of [rows, d_model], the
    // default) or "d_model_first" ([d_model, rows], as PatchTST's backbone permutes before Flatten_Head).
    std::optional<std::string> head_flatten;
    std::optional<bool> revin;  // RevIN without affine tensors; with them it is read off the checkpoint
    std::optional<double> revin_eps;
    std::vector<std::string> outputs;           // names of the predicted columns, each one of "features"
    std::vector<std::string> decoder_features;  // the decoder's columns, in order, each one of "features"
    // Input columns computed from timestamps: feature name and calendar feature (tools/host/calendar.h).
    std::vector<std::pair<std::string, std::string>> calendar;
    // The keys of a model description's options stated as they land in its records (the key table's rows
    // made with Described<>): the family's own reader reads them back, its blocks' checks judge them.
    std::map<format::ConfigKey, uint32_t> described;
    std::set<std::string> stated;  // every key the config file holds, so conversion can say what it assumed
    // Names of the input features (CSV header names), stored in the model to pick CSV columns by name.
    std::vector<std::string> features;
    std::vector<std::string> keys;  // every key the file gives, in order
};

// Unknown keys and wrong types are errors naming the key, so that a typo never goes unnoticed.
ConvertConfig parse_convert_config(const JsonValue& root, const std::string& source);
ConvertConfig read_convert_config(const std::string& path);

}  // namespace ax::tools
