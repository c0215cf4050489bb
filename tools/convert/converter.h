// checkpoint + config -> .axm bytes, verified by opening the result with the runtime.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/model_stamp.h"
#include "tools/convert/vocabulary_store.h"
#include "tools/import/convert_config.h"
#include "tools/host/forecast_window.h"
#include "tools/text/csv.h"

namespace ax::tools {

struct ConvertOptions {
    std::string checkpoint_path;
    std::string config_path;
    format::DType dtype = format::DType::f32;             // storage of weight matrices
    format::CacheType kv_cache = format::CacheType::f32;  // the decoder's key/value caches (config kv_cache)
    bool integer_only = false;  // + the integer plan (tools/convert/integer_plan.h): needs dtype int8 and calib_path
    std::string map_path;       // optional rename map (docs/FORMAT.md, "Rename maps"), applied before import
    std::string calib_path;     // optional calibration CSV (tools/convert/calibrate.h)
    size_t calib_window = 0;    // 0: the model's window (tools/host/forecast_window.h)
    size_t calib_horizon = kDefaultHorizon;
    CsvOptions calib_csv;                       // how to read it; the config's "features" pick its columns by name
    std::string state_dict_key;                 // a torch.save dict holding several state_dicts: the one under this key
    std::vector<std::string>* notes = nullptr;  // when set, gets what the user should know (choices made)
    std::string model_name;                     // optional (tools/convert/model_stamp.h)
    std::optional<uint32_t> model_version;      // optional; absent = unversioned
    ConversionProof proof;                      // what the CLI's check pair proved (unproven without one)
    // The check pair's input (model units, as forward saw it), when the CLI has one: with --calib's data, what
    // tells int8 whether the model reads raw columns of very different magnitudes (store_weights_as).
    const Table* check_input = nullptr;
    VocabularyOptions vocab;  // --vocab, --src-vocab, --tgt-vocab (tools/convert/vocabulary_store.h)
};

// *notes (when given) gets one line per thing the importer assumed or left out, for the user to read. A
// statement the weights leave unproven (AxmModel::unproven) is a ToolError here: no check pair runs.
std::vector<uint8_t> convert_model(const ConvertOptions& options, std::vector<std::string>* notes = nullptr);

// The stages of convert_model, for callers that check or search configs between importing and writing
// (tools/convert/conversion_check.h, config_search.h):
// the checkpoint's tensors with the rename map applied,
// with, in `unmatched_map_lines` (when given), the map's rules no tensor matched,
TensorMap read_model_tensors(const ConvertOptions& options, std::vector<std::string>* unmatched_map_lines = nullptr);
// the family's importer picked by config.arch (a float32 model),
// an error naming those map lines besides its own, when the import fails (a missing canonical tensor is most
// often a map line that matched nothing),
AxmModel import_model(const TensorMap& tensors, const ConvertConfig& config,
                      const std::vector<std::string>& unmatched_map_lines = {});
// and calibration, weight storage as options.dtype, serialisation and the validating reopen.
std::vector<uint8_t> finish_model(AxmModel model, const ConvertOptions& options);

}  // namespace ax::tools
