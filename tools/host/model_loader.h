// Loads and validates a .axm file for the host tools; errors become ToolError naming the file.
#pragma once
#include <memory>
#include <string>

#include "models/classifier/classifier.h"
#include "models/forecaster/forecaster.h"
#include "models/seq2seq/seq2seq.h"
#include "models/tvae/tvae.h"
#include "runtime/model_file.h"
#include "tools/common/aligned_buffer.h"

namespace ax::tools {

// A validated model of any family: `family` says which one of the family objects is open.
struct LoadedModel {
    std::string path;
    AlignedBuffer bytes;
    ModelFile file;
    format::Family family = format::Family::forecaster;
    Forecaster forecaster;
    Seq2Seq seq2seq;
    Classifier classifier;
    Tvae tvae;
};

// "forecaster", "seq2seq", "classifier", "tvae".
const char* family_name(format::Family family);

// Returned by pointer: ModelFile and the family object point into `bytes` and at each other.
// open_model accepts every family; load_model is for the forecaster commands and refuses other families
// with a message naming the family and the commands that take it.
std::unique_ptr<LoadedModel> open_model(const std::string& path);
std::unique_ptr<LoadedModel> open_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name);
std::unique_ptr<LoadedModel> load_model(const std::string& path);
std::unique_ptr<LoadedModel> load_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name);

// Throws ToolError unless the model is of `family`, naming the commands that take what it is.
void require_family(const LoadedModel& model, format::Family family);

// Throws ToolError("<context>: <status message>") when the status is an error.
void check_status(const Status& status, const std::string& context);

}  // namespace ax::tools
