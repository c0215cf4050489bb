#include "tools/host/model_loader.h"

#include "tools/checkpoint/checkpoint.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

const char* family_name(format::Family family) {
    const char* name = format::enum_name(family);
    return name ? name : "unknown";
}

namespace {

const char* commands_for(format::Family family) {
    switch (family) {
        case format::Family::forecaster:
            return "run, forecast, verify, bench, header";
        case format::Family::seq2seq:
            return "translate, run, verify, bench, header";
        case format::Family::classifier:
            return "classify, verify, bench, header";
        case format::Family::tvae:
            return "reconstruct, generate, verify, bench, header";
    }
    return "none";
}

}  // namespace

void check_status(const Status& status, const std::string& context) {
    if (!status.is_ok()) throw ToolError(context + ": " + status.message());
}

void require_family(const LoadedModel& m, format::Family family) {
    if (m.family == family) return;
    throw ToolError(m.path + " is a " + family_name(m.family) + " model; this command takes a " + family_name(family) +
                    " model (a " + family_name(m.family) + " model works with: " + commands_for(m.family) + ")");
}

std::unique_ptr<LoadedModel> open_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name) {
    auto m = std::make_unique<LoadedModel>();
    m->path = name;
    m->bytes = AlignedBuffer(bytes);
    check_status(ModelFile::open(m->bytes.data(), m->bytes.size(), Checksum::verify, &m->file), name);
    m->family = m->file.family();
    switch (m->family) {
        case format::Family::forecaster:
            check_status(Forecaster::open(m->file, &m->forecaster), name);
            break;
        case format::Family::seq2seq:
            check_status(Seq2Seq::open(m->file, &m->seq2seq), name);
            break;
        case format::Family::classifier:
            check_status(Classifier::open(m->file, &m->classifier), name);
            break;
        case format::Family::tvae:
            check_status(Tvae::open(m->file, &m->tvae), name);
            break;
    }
    return m;
}

std::unique_ptr<LoadedModel> open_model(const std::string& path) {
    return open_model_bytes(read_file_bytes(path), path);
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
