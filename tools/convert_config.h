// The converter's config file: what cannot be read off the checkpoint's tensor shapes.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ax::tools {

class JsonValue;

struct NormalizationSpec {
    std::string mode = "none";  // none | global | last_value
    std::vector<float> mean;    // global only
    std::vector<float> scale;
};

struct ConvertConfig {
    std::string arch;                       // "forecaster"
    int64_t nhead = 0;
    std::string activation = "relu";        // relu | gelu
    bool norm_first = false;
    double layer_norm_eps = 1e-5;
    std::optional<std::string> positional_encoding;  // sinusoidal | none; absent: inferred from a `pe` buffer
    std::string memory_mask = "none";       // none | tril
    NormalizationSpec normalization;
    // Optional statements about the shapes; each must agree with the tensors.
    std::optional<int64_t> d_model, dim_feedforward, num_encoder_layers, num_decoder_layers, n_features, n_outputs;
};

// Unknown keys and wrong types are errors naming the key, so that a typo never goes unnoticed.
ConvertConfig parse_convert_config(const JsonValue& root, const std::string& source);
ConvertConfig read_convert_config(const std::string& path);

}  // namespace ax::tools
