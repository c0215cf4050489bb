// checkpoint + config -> .axm bytes, verified by opening the result with the runtime.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/text/csv.h"

namespace ax::tools {

struct ConvertOptions {
    std::string checkpoint_path;
    std::string config_path;
    format::DType dtype = format::DType::f32;  // storage of weight matrices
    std::string map_path;  // optional rename map (docs/FORMAT.md, "Rename maps"), applied before import
    std::string calib_path;  // optional calibration CSV (tools/convert/calibrate.h)
    size_t calib_window = 96;
    size_t calib_horizon = 24;
    CsvOptions calib_csv;        // how to read it; the config's "features" pick its columns by name
    std::string state_dict_key;  // a torch.save dict holding several state_dicts: the one under this key
    std::vector<std::string>* notes = nullptr;  // when set, gets what the user should know (choices made)
};

std::vector<uint8_t> convert_model(const ConvertOptions& options);

}  // namespace ax::tools
