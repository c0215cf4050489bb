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
    format::CacheType kv_cache = format::CacheType::f32;  // the decoder's key/value caches (config kv_cache)
    std::string map_path;  // optional rename map (docs/FORMAT.md, "Rename maps"), applied before import
    std::string calib_path;  // optional calibration CSV (tools/calibrate.h)
    size_t calib_window = 96;
    size_t calib_horizon = 24;
};

std::vector<uint8_t> convert_model(const ConvertOptions& options);

}  // namespace ax::tools
