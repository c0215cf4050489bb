#include "runtime/feature_names.h"

#include <cstdint>

#include "runtime/format.h"
#include "runtime/text_records.h"

namespace ax {

namespace {

constexpr TextRules kFeatureNameRules{"feature names", 4 * format::kMaxTextRecords, true};

}  // namespace

size_t feature_names_text(const ModelFile& f, char* out, size_t capacity) {
    return read_text_records(f, format::kFeatureNamesKey, out, capacity);
}

Status check_feature_names(const ModelFile& f) {
    TextShape text;
    AX_RETURN_IF_ERROR(check_text_records(f, format::kFeatureNamesKey, kFeatureNameRules, &text));
    if (text.bytes == 0) return Status::ok();
    auto bad = [](const char* what) { return Status::error(StatusCode::bad_model, "feature names: ").add(what); };
    if (text.empty_line) return bad("an empty name");
    uint32_t n_features = 0;
    if (!f.config(format::ConfigKey::n_features, &n_features))
        return bad("stored by a model family without input features");
    if (text.lines != n_features) return bad("").add(text.lines).add(" names for ").add(n_features).add(" features");
    return Status::ok();
}

}  // namespace ax
