// checkpoint + config -> .axm bytes, verified by opening the result with the runtime.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/host/forecast_window.h"

namespace ax::tools {

struct ConvertOptions {
    std::string checkpoint_path;
    std::string config_path;
    format::DType dtype = format::DType::f32;  // storage of weight matrices
    std::string map_path;  // optional rename map (docs/FORMAT.md, "Rename maps"), applied before import
    std::string calib_path;  // optional calibration CSV (tools/convert/calibrate.h)
    size_t calib_window = 0;  // 0: the model's window (tools/host/forecast_window.h)
    size_t calib_horizon = kDefaultHorizon;
};

std::vector<uint8_t> convert_model(const ConvertOptions& options);

}  // namespace ax::tools
