// Loads and validates a .axm file for the host tools; errors become ToolError naming the file.
#pragma once
#include <memory>
#include <string>

#include "runtime/model_file.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/family/family_model.h"

namespace ax::tools {

// "forecaster", "seq2seq", "classifier", "tvae".
const char* family_name(format::Family family);

// A validated model of any family: `model` holds its open family object, `family` says which.
struct LoadedModel {
    std::string path;
    AlignedBuffer bytes;
    ModelFile file;
    format::Family family = format::Family::forecaster;
    FamilyModel model;

    // The family object as `Model` (Forecaster, Seq2Seq, ...). Commands call require_family first, so a
    // model of another family here is a bug of the tool, not of the input.
    template <typename Model>
    const Model& as() const {
        if (const Model* m = std::get_if<Model>(&model)) return *m;
        throw ToolError("internal error: " + path + " is a " + family_name(family) + " model");
    }
};

// Whether a command takes a Chronos-Bolt file (opened as the forecaster its blocks describe: a quantile model,
// one series in, [quantiles, horizon] out) or refuses it, pointing at `auspex forecast`.
enum class ChronosBoltFiles { refuse, open };

// Returned by pointer: ModelFile and the family object point into `bytes` and at each other.
// open_model accepts every family; load_model is for the forecaster commands and refuses other families
// with a message naming the family and the commands that take it.
std::unique_ptr<LoadedModel> open_model(const std::string& path,
                                        ChronosBoltFiles chronos_bolt = ChronosBoltFiles::refuse);
std::unique_ptr<LoadedModel> open_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name,
                                              ChronosBoltFiles chronos_bolt = ChronosBoltFiles::refuse);
std::unique_ptr<LoadedModel> load_model(const std::string& path);
std::unique_ptr<LoadedModel> load_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name);

// Throws ToolError unless the model is of `family`, naming the commands that take what it is.
void require_family(const LoadedModel& model, format::Family family);

// Throws ToolError("<context>: <status message>") when the status is an error.
void check_status(const Status& status, const std::string& context);

}  // namespace ax::tools
