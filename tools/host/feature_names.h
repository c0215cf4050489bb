// The feature names stored in a model (docs/FORMAT.md, "Text records"), written by the converter from the
// config's "features" and used by the commands to pick a CSV's columns by name.
#pragma once
#include <string>
#include <vector>

#include "runtime/model_file.h"
#include "tools/convert/axm_writer.h"

namespace ax::tools {

// Empty when the model stores none. The runtime validated them when the model opened.
std::vector<std::string> feature_names(const ModelFile& file);
// The names store_feature_names added to a model being converted.
std::vector<std::string> feature_names(const AxmModel& model);

// Adds the names as text records; throws ToolError when they do not fit in format::kMaxTextRecords
// records, or their count is not the model's n_features (or the family has no input features).
void store_feature_names(AxmModel& model, const std::vector<std::string>& names);

}  // namespace ax::tools
