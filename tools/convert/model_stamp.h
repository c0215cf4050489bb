// What the converter writes about the model it made (docs/FORMAT.md, "Model identity"): the user's name and
// version (`convert --model-name NAME --model-version N`), the conversion time, the converter's version and
// whether a check pair proved the conversion against PyTorch.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "tools/axm/axm_writer.h"

namespace ax::tools {

// "auspex 0.9.0": this converter, as stored in the models it writes.
std::string converter_version_text();

// The conversion time stored in a model: SOURCE_DATE_EPOCH when set (reproducible builds: the same inputs give
// the same bytes; https://reproducible-builds.org/specs/source-date-epoch/), else the clock. Throws ToolError
// when SOURCE_DATE_EPOCH is not a whole number of seconds in 0..4294967295.
uint32_t conversion_time();

// Throws ToolError (starting "--model-name") unless `name` is one line of printable UTF-8 of
// 1..format::kMaxModelNameBytes bytes: the rules the runtime checks when the model opens.
void check_model_name(const std::string& name);

// What proved a conversion: nothing (converted without a check pair), or the float32 model reproducing a
// check output (tools/convert/conversion_check.h) to max_diff within tolerance.
struct ConversionProof {
    bool proven = false;
    double max_diff = 0, tolerance = 0;
    std::string against;  // the check output's path: its file name is stored
};

// Adds the identity records: the name (when not empty) and version (when given), conversion_time(),
// converter_version_text() and the proof.
void stamp_model(AxmModel& model, const std::string& name, std::optional<uint32_t> version,
                 const ConversionProof& proof);

}  // namespace ax::tools
