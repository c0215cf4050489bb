#include "runtime/model_identity.h"

#include "runtime/format.h"
#include "runtime/text_records.h"

namespace ax {

const TextRules kModelNameRules{"model name", format::kMaxModelNameBytes, false};
const TextRules kConverterVersionRules{"converter version", format::kMaxConverterVersionBytes, false};

namespace {

size_t copy_text(const ModelFile& f, uint32_t base_key, char* out, size_t capacity) {
    const size_t length = read_text_records(f, base_key, out, capacity > 0 ? capacity - 1 : 0);
    if (out != nullptr && capacity > 0) out[length < capacity - 1 ? length : capacity - 1] = '\0';
    return length;
}

}  // namespace

Status check_model_identity(const ModelFile& f) {
    AX_RETURN_IF_ERROR(check_text_records(f, format::kModelNameKey, kModelNameRules, nullptr));
    return check_text_records(f, format::kConverterVersionKey, kConverterVersionRules, nullptr);
}

size_t model_name(const ModelFile& f, char* out, size_t capacity) {
    return copy_text(f, format::kModelNameKey, out, capacity);
}

size_t converter_version(const ModelFile& f, char* out, size_t capacity) {
    return copy_text(f, format::kConverterVersionKey, out, capacity);
}

bool model_version(const ModelFile& f, uint32_t* version) {
    return f.config(format::ConfigKey::model_version, version);
}

bool model_created_time(const ModelFile& f, uint32_t* unix_seconds) {
    return f.config(format::ConfigKey::created_time, unix_seconds);
}

}  // namespace ax
