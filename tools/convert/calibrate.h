// Static calibration (`auspex convert --calib data.csv`): runs the float32 model on real inputs and records,
// for each weight matrix, the largest |x| of any input row it multiplied. Stored in the tensor records
// (docs/FORMAT.md, "Calibration"), these are the static activation scales an integer-only runtime needs
// (x_scale = input_absmax / 127) on a board without an FPU. The float and int8 kernels ignore them.
#pragma once
#include <array>
#include <cstddef>
#include <vector>

#include "tools/axm/axm_writer.h"
#include "tools/host/forecast_window.h"
#include "tools/text/csv.h"

namespace ax::tools {

// Every activation range the integer-only mode needs (tools/convert/integer_plan.h), per index of
// model.tensors: for a weight matrix, its input's and output's max |x| per part (the q, k and v rows of a
// packed in_proj are parts 0, 1, 2; other matrices have part 0 only); for a LayerNorm's weight vector, its
// input's and output's max |x|.
struct ActivationRanges {
    std::vector<std::array<float, 3>> input, output;
    std::vector<float> norm_input, norm_output;
};

struct CalibrationOptions {
    size_t window = 0;  // encoder rows per forecast (0: the model's default_window; all the data's rows when it
                        // holds fewer)
    size_t horizon = kDefaultHorizon;    // forecast steps
    ActivationRanges* ranges = nullptr;  // filled when set
};

// `model` is a float32 forecaster as the importer made it (before quantization); every rank-2 weight
// tensor gets its input_absmax. The data's rows (raw units, one column per feature) are cut into windows,
// `horizon` apart, each forecast `horizon` steps as `auspex forecast` would. Returns the window count.
// Throws ToolError for another family, a wrong column count, or too few rows for one window.
size_t calibrate(AxmModel& model, const Table& data, const CalibrationOptions& options);

}  // namespace ax::tools
