#include "tools/convert/converter.h"

#include "tools/axm/axm_writer.h"
#include "tools/import/assumed_defaults.h"
#include "tools/convert/calibrate.h"
#include "tools/convert/input_magnitudes.h"
#include "tools/convert/integer_plan.h"
#include "tools/convert/model_stamp.h"
#include "tools/import/config_scope.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"
#include "tools/family/family_descriptor.h"
#include "tools/host/calendar.h"
#include "tools/host/column_names.h"
#include "tools/host/model_loader.h"
#include "tools/convert/quantize.h"
#include "tools/import/rename_map.h"
#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

// Fewer calibration windows than this get a note under --integer-only.
constexpr size_t kFewCalibrationWindows = 8;

AxmModel import_family(const TensorMap& tensors, const ConvertConfig& config) {
    check_config_values_scope(config);
    return family_descriptor(config.arch).import(tensors, config);
}

}  // namespace

AxmModel import_model(const TensorMap& tensors, const ConvertConfig& config,
                      const std::vector<std::string>& unmatched_map_lines) {
    check_config_scope(config);
    AxmModel model;
    try {
        model = import_family(tensors, config);
    } catch (const ToolError& e) {
        if (unmatched_map_lines.empty()) throw;
        std::string lines;
        for (size_t i = 0; i < unmatched_map_lines.size() && i < 8; ++i)
            lines += (i ? "; " : "") + unmatched_map_lines[i];
        if (unmatched_map_lines.size() > 8)
            lines += "; ... (" + std::to_string(unmatched_map_lines.size()) + " in all)";
        throw ToolError(std::string(e.what()) + ". Map lines that matched no tensor: " + lines);
    }
    record_assumed_defaults(model, config);
    store_feature_names(model, config.features);
    store_output_names(model, config.outputs);
    store_calendar(model, config.features, config.calendar);
    return model;
}

TensorMap read_model_tensors(const ConvertOptions& options, std::vector<std::string>* unmatched_map_lines) {
    StateDictChoice choice{options.state_dict_key, {}, {}};
    TensorMap tensors = read_checkpoint(options.checkpoint_path, &choice);
    if (options.notes && !choice.taken.empty()) {
        std::string others;
        for (const std::string& k : choice.others) others += (others.empty() ? "" : ", ") + k;
        options.notes->push_back("the checkpoint holds several state_dicts; took the one under '" + choice.taken +
                                 "' (others: " + others + "; --state-dict-key NAME takes another)");
    }
    if (!options.map_path.empty()) tensors = RenameMap::read(options.map_path).apply(tensors, unmatched_map_lines);
    return tensors;
}

std::vector<uint8_t> convert_model(const ConvertOptions& options, std::vector<std::string>* notes) {
    const ConvertConfig config = read_convert_config(options.config_path);
    const std::vector<std::string> ignored = check_config_scope(config);
    if (options.notes && !ignored.empty()) {
        std::string list;
        for (const std::string& k : ignored) list += (list.empty() ? "" : ", ") + k;
        options.notes->push_back(options.config_path + ": ignoring config key(s) " + list + " (training-only, or the " +
                                 enum_text(config.arch) + " family's behaviour anyway)");
    }
    std::vector<std::string> unmatched;
    const TensorMap tensors = read_model_tensors(options, &unmatched);
    AxmModel model = import_model(tensors, config, unmatched);
    // Without a check pair nothing else would catch a wrong reading of what the weights leave open.
    if (!model.unproven.empty()) throw ToolError(model.unproven[0]);
    if (notes) *notes = model.notes;
    if (options.notes) options.notes->insert(options.notes->end(), model.notes.begin(), model.notes.end());
    return finish_model(std::move(model), options);
}

std::vector<uint8_t> finish_model(AxmModel model, const ConvertOptions& options) {
    if (options.integer_only && (options.dtype != format::DType::i8 || options.calib_path.empty()))
        throw ToolError("--integer-only goes with --dtype int8 and --calib data.csv (activation scales come from it)");
    ActivationRanges ranges;
    // Whether data showed the model's inputs as raw columns of very different magnitudes (int8 then keeps
    // the matrices that read them float32): the calibration log, or the check pair's input.
    bool raw_inputs = options.check_input != nullptr && magnitudes_spread(*options.check_input);
    if (!options.calib_path.empty()) {
        // Calendar columns are computed from the time column, as forecast computes them.
        CsvOptions csv = options.calib_csv;
        const std::vector<std::string> features = feature_names(model);
        std::vector<std::string> kinds = calendar_of(model);
        kinds.resize(features.size());
        for (size_t i = 0; i < features.size(); ++i)
            if (kinds[i].empty()) csv.features.push_back(features[i]);
        const Table data = with_calendar(read_csv(options.calib_path, csv), kinds, features, options.calib_path);
        if (options.notes && !data.ignored.empty() && csv.columns.empty()) {
            std::string list;
            for (const std::string& n : data.ignored) list += (list.empty() ? "" : ", ") + n;
            options.notes->push_back(options.calib_path + ": ignoring column(s) not among the features: " + list);
        }
        const size_t windows =
            calibrate(model, data, CalibrationOptions{options.calib_window, options.calib_horizon, &ranges});
        raw_inputs = raw_inputs || magnitudes_spread(data);
        // The integer-only mode quantizes the input rows with one scale: columns of very different magnitudes
        // (a raw-unit model's load next to its calendar) lose the small ones.
        bool normalized = false;
        for (const auto& [key, value] : model.config)
            normalized = normalized || (key == format::ConfigKey::normalization && value != 0);
        if (options.integer_only && options.notes && !normalized) {
            const std::string note = magnitude_spread_note(data, csv.features);
            if (!note.empty()) options.notes->push_back("--integer-only: " + note);
        }
        // Every activation scale of the integer mode comes from these windows: say how many there were.
        if (options.integer_only && options.notes && windows < kFewCalibrationWindows)
            options.notes->push_back("--integer-only: calibrated on " + std::to_string(windows) + " window(s) of " +
                                     options.calib_path +
                                     ": activations beyond what they reached saturate; "
                                     "calibrate on data covering the range the model will see");
    }
    if (format::dtype_takes_int8_rows(options.dtype) && !options.integer_only && options.notes &&
        options.calib_path.empty() && options.check_input == nullptr && feeds_raw_rows_to_attention(model))
        options.notes->push_back(
            std::string(dtype_name(options.dtype)) +
            ": the model reads its rows as they come (no \"normalization\"): if its input columns are raw "
            "units of very different magnitudes (kW beside calendar values), convert with --calib DATA.csv or a "
            "check pair, so that the matrices reading them stay float32 (docs/quantization.md)");
    store_weights_as(model, options.dtype, options.integer_only, options.notes, raw_inputs);
    if (options.integer_only) add_integer_plan(model, ranges, options.notes);
    set_kv_cache(model, options.kv_cache);
    add_vocabularies(model, options.vocab, options.notes);
    stamp_model(model, options.model_name, options.model_version, options.proof);
    std::vector<uint8_t> bytes = serialize_axm(model);
    // The converter's own output must open cleanly; anything else is our bug, reported as such.
    try {
        open_model_bytes(bytes, "converted model");
    } catch (const ToolError& e) {
        throw ToolError(std::string("internal error, the converted model does not validate: ") + e.what());
    }
    return bytes;
}

}  // namespace ax::tools
