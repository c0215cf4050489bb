#include "tools/converter.h"

#include "tools/axm_writer.h"
#include "tools/checkpoint.h"
#include "tools/convert_config.h"
#include "tools/forecaster_import.h"
#include "tools/model_loader.h"
#include "tools/quantize.h"
#include "tools/tool_error.h"

namespace ax::tools {

std::vector<uint8_t> convert_model(const ConvertOptions& options) {
    const ConvertConfig config = read_convert_config(options.config_path);
    const TensorMap tensors = read_checkpoint(options.checkpoint_path);
    AxmModel model = import_forecaster(tensors, config);
    store_weights_as(model, options.dtype);
    std::vector<uint8_t> bytes = serialize_axm(model);
    // The converter's own output must open cleanly; anything else is our bug, reported as such.
    try {
        load_model_bytes(bytes, "converted model");
    } catch (const ToolError& e) {
        throw ToolError(std::string("internal error, the converted model does not validate: ") + e.what());
    }
    return bytes;
}

}  // namespace ax::tools
