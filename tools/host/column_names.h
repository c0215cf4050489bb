// The feature names stored in a model (docs/FORMAT.md, "Text records"), written by the converter from the
// config's "features" and used by the commands to pick a CSV's columns by name.
#pragma once
#include <string>
#include <vector>

#include "runtime/model_file.h"
#include "tools/axm/axm_writer.h"

namespace ax::tools {

// Empty when the model stores none. The runtime validated them when the model opened.
std::vector<std::string> feature_names(const ModelFile& file);
// The names store_feature_names added to a model being converted.
std::vector<std::string> feature_names(const AxmModel& model);

// The forecaster's output names (config "outputs"), stored the same way; empty when absent.
std::vector<std::string> output_names(const ModelFile& file);
// The CSV header of a forecast or run output: the stored output names, else the feature names of the input
// table when the model predicts every feature, else "output_0", "output_1", ...
std::vector<std::string> output_header(const ModelFile& file, const std::vector<std::string>& input_header,
                                       size_t n_features, size_t n_outputs);
void store_output_names(AxmModel& model, const std::vector<std::string>& names);

// Adds the names as text records; throws ToolError when they do not fit in format::kMaxTextRecords
// records, or their count is not the model's n_features (or the family has no input features).
void store_feature_names(AxmModel& model, const std::vector<std::string>& names);

}  // namespace ax::tools
