// Loads and validates a .axm file for the host tools; errors become ToolError naming the file.
#pragma once
#include <memory>
#include <string>

#include "models/forecaster/forecaster.h"
#include "runtime/model_file.h"
#include "tools/aligned_buffer.h"

namespace ax::tools {

struct LoadedModel {
    std::string path;
    AlignedBuffer bytes;
    ModelFile file;
    Forecaster forecaster;
};

// Returned by pointer: ModelFile and Forecaster point into `bytes` and at each other.
std::unique_ptr<LoadedModel> load_model(const std::string& path);
std::unique_ptr<LoadedModel> load_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name);

// Throws ToolError("<context>: <status message>") when the status is an error.
void check_status(const Status& status, const std::string& context);

}  // namespace ax::tools
