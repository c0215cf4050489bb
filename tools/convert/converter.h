// checkpoint + config -> .axm bytes, verified by opening the result with the runtime.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"

namespace ax::tools {

struct ConvertOptions {
    std::string checkpoint_path;
    std::string config_path;
    format::DType dtype = format::DType::f32;  // storage of weight matrices
    std::string map_path;  // optional rename map (docs/FORMAT.md, "Rename maps"), applied before import
    std::string calib_path;  // optional calibration CSV (tools/convert/calibrate.h)
    size_t calib_window = 96;
    size_t calib_horizon = 24;
};

// *notes (when given) gets one line per thing the importer assumed or left out, for the user to read.
std::vector<uint8_t> convert_model(const ConvertOptions& options, std::vector<std::string>* notes = nullptr);

}  // namespace ax::tools
