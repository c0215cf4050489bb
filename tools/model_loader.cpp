#include "tools/model_loader.h"

#include "tools/checkpoint.h"
#include "tools/tool_error.h"

namespace ax::tools {

void check_status(const Status& status, const std::string& context) {
    if (!status.is_ok()) throw ToolError(context + ": " + status.message());
}

std::unique_ptr<LoadedModel> load_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name) {
    auto m = std::make_unique<LoadedModel>();
    m->path = name;
    m->bytes = AlignedBuffer(bytes);
    check_status(ModelFile::open(m->bytes.data(), m->bytes.size(), Checksum::verify, &m->file), name);
    check_status(Forecaster::open(m->file, &m->forecaster), name);
    return m;
}

std::unique_ptr<LoadedModel> load_model(const std::string& path) { return load_model_bytes(read_file_bytes(path), path); }

}  // namespace ax::tools
