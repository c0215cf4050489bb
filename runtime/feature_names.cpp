#include "runtime/feature_names.h"

#include <cstdint>

#include "runtime/format.h"
#include "runtime/text_records.h"

namespace ax {

namespace {

constexpr TextRules kFeatureNameRules{"feature names", 4 * format::kMaxTextRecords, true};
constexpr TextRules kOutputNameRules{"output names", 4 * format::kMaxTextRecords, true};

// A '\n'-separated list naming each of the `count_key` columns once.
Status check_names(const ModelFile& f, uint32_t base, const TextRules& rules, format::ConfigKey count_key,
                   const char* columns) {
    TextShape text;
    AX_RETURN_IF_ERROR(check_text_records(f, base, rules, &text));
    if (text.bytes == 0) return Status::ok();
    auto bad = [&](const char* what) { return Status::error(StatusCode::bad_model, rules.what).add(": ").add(what); };
    if (text.empty_line) return bad("an empty name");
    uint32_t count = 0;
    if (!f.config(count_key, &count)) return bad("stored by a model family without such columns");
    if (text.lines != count) return bad("").add(text.lines).add(" names for ").add(count).add(columns);
    return Status::ok();
}

}  // namespace

size_t feature_names_text(const ModelFile& f, char* out, size_t capacity) {
    return read_text_records(f, format::kFeatureNamesKey, out, capacity);
}

Status check_feature_names(const ModelFile& f) {
    AX_RETURN_IF_ERROR(
        check_names(f, format::kFeatureNamesKey, kFeatureNameRules, format::ConfigKey::n_features, " features"));
    return check_names(f, format::kOutputNamesKey, kOutputNameRules, format::ConfigKey::n_outputs, " outputs");
}

}  // namespace ax
