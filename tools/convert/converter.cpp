#include "tools/convert/converter.h"

#include "tools/convert/axm_writer.h"
#include "tools/import/assumed_defaults.h"
#include "tools/convert/calibrate.h"
#include "tools/import/classifier_import.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"
#include "tools/import/forecaster_import.h"
#include "tools/host/model_loader.h"
#include "tools/convert/quantize.h"
#include "tools/import/rename_map.h"
#include "tools/import/seq2seq_import.h"
#include "tools/common/tool_error.h"
#include "tools/import/tvae_import.h"

namespace ax::tools {

AxmModel import_model(const TensorMap& tensors, const ConvertConfig& config) {
    if (config.window && config.arch != format::Family::forecaster)
        throw ToolError("config key window applies to a forecaster only (the encoder rows it was trained on)");
    if (config.decode_mask_pads && config.arch != format::Family::seq2seq)
        throw ToolError("config key decode_mask_pads is for a seq2seq model's greedy decoding");
    if (config.arch != format::Family::forecaster) {
        AxmModel m = config.arch == format::Family::seq2seq      ? import_seq2seq(tensors, config)
                     : config.arch == format::Family::classifier ? import_classifier(tensors, config)
                                                                 : import_tvae(tensors, config);
        record_assumed_defaults(m, config);
        return m;
    }
    if (config.pad_id || config.bos_id || config.eos_id || config.start_id || config.embed_scale ||
        config.embed_scale_sqrt_d || config.pooling || config.output_activation || config.src_vocab ||
        config.tgt_vocab || config.n_labels || config.latent_size)
        throw ToolError("config keys pad_id, bos_id, eos_id, start_id, embed_scale, pooling, output_activation, "
                        "src_vocab, tgt_vocab, n_labels and latent_size do not apply to a forecaster");
    if (config.positional_encoding && *config.positional_encoding != format::PositionalEncoding::sinusoidal &&
        *config.positional_encoding != format::PositionalEncoding::none)
        throw ToolError("a forecaster's \"positional_encoding\" is \"sinusoidal\" or \"none\"");
    AxmModel m = import_forecaster(tensors, config);
    record_assumed_defaults(m, config);
    return m;
}

TensorMap read_model_tensors(const ConvertOptions& options) {
    TensorMap tensors = read_checkpoint(options.checkpoint_path);
    if (!options.map_path.empty()) tensors = RenameMap::read(options.map_path).apply(tensors);
    return tensors;
}

std::vector<uint8_t> convert_model(const ConvertOptions& options, std::vector<std::string>* notes) {
    const ConvertConfig config = read_convert_config(options.config_path);
    AxmModel model = import_model(read_model_tensors(options), config);
    if (notes) *notes = model.notes;
    return finish_model(std::move(model), options);
}

std::vector<uint8_t> finish_model(AxmModel model, const ConvertOptions& options) {
    if (!options.calib_path.empty())
        calibrate(model, read_csv(options.calib_path), CalibrationOptions{options.calib_window, options.calib_horizon});
    store_weights_as(model, options.dtype);
    set_kv_cache(model, options.kv_cache);
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
