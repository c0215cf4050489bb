// `auspex convert --integer-only`: the integer plan of a calibrated int8 forecaster (docs/integer-only.md).
// Every activation's scale comes from the calibration ranges (tools/convert/calibrate.h); from the scales and
// the float parameters (biases, LayerNorm weights) it derives the integers the runtime's integer path reads
// (models/forecaster/forecaster_integer.h lists their order) and stores them as one int32 tensor, with the
// config key integer_only.
#pragma once
#include <string>
#include <vector>

#include "tools/axm/axm_writer.h"
#include "tools/convert/calibrate.h"

namespace ax::tools {

// `model`: a forecaster whose weight matrices are all int8 already, tensors in the order calibration saw
// them. Throws ToolError for a model the integer mode cannot run (naming why). notes (optional) gets what the
// user should know, such as activations whose calibrated range was 0.
void add_integer_plan(AxmModel& model, const ActivationRanges& ranges, std::vector<std::string>* notes);

}  // namespace ax::tools
