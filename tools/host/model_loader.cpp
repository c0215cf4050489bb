#include "tools/host/model_loader.h"

#include "models/forecaster/chronos_bolt_file.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/common/tool_error.h"
#include "tools/family/family_descriptor.h"
#include "tools/host/model_file_kind.h"

namespace ax::tools {

const char* family_name(format::Family family) {
    const char* name = format::enum_name(family);
    return name ? name : "unknown";
}

void check_status(const Status& status, const std::string& context) {
    if (!status.is_ok()) throw ToolError(context + ": " + status.message());
}

void require_family(const LoadedModel& m, format::Family family) {
    if (m.family == family) return;
    throw ToolError(m.path + " is a " + family_name(m.family) + " model; this command takes a " + family_name(family) +
                    " model (a " + family_name(m.family) +
                    " model works with: " + family_descriptor(m.family).commands + ")");
}

std::unique_ptr<LoadedModel> open_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name,
                                              ChronosBoltFiles chronos_bolt) {
    auto m = std::make_unique<LoadedModel>();
    m->path = name;
    const std::string mistake = model_file_mistake(bytes, name);
    if (!mistake.empty()) throw ToolError(mistake);
    m->bytes = AlignedBuffer(bytes);
    check_status(ModelFile::open(m->bytes.data(), m->bytes.size(), Checksum::verify, &m->file), name);
    m->family = m->file.family();
    if (chronos_bolt == ChronosBoltFiles::refuse && is_chronos_bolt(m->file))
        throw ToolError(name +
                        " is a Chronos-Bolt model: `auspex forecast` runs it (docs/chronos-bolt.md); this "
                        "command does not take it yet");
    check_status(family_descriptor(m->family).open(m->file, &m->model), name);
    return m;
}

std::unique_ptr<LoadedModel> open_model(const std::string& path, ChronosBoltFiles chronos_bolt) {
    return open_model_bytes(read_file_bytes(path), path, chronos_bolt);
}

std::unique_ptr<LoadedModel> load_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name) {
    auto m = open_model_bytes(bytes, name);
    require_family(*m, format::Family::forecaster);
    return m;
}

std::unique_ptr<LoadedModel> load_model(const std::string& path) {
    return load_model_bytes(read_file_bytes(path), path);
}

}  // namespace ax::tools
