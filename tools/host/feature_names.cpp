#include "tools/host/feature_names.h"

#include "tools/common/tool_error.h"
#include "tools/convert/text_records.h"

namespace ax::tools {

namespace {

std::vector<std::string> split_names(const std::string& text) {
    std::vector<std::string> names;
    if (text.empty()) return names;
    size_t start = 0;
    for (;;) {
        const size_t end = text.find('\n', start);
        names.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) return names;
        start = end + 1;
    }
}

}  // namespace

std::vector<std::string> feature_names(const ModelFile& file) {
    return split_names(stored_text_records(file, format::kFeatureNamesKey));
}

std::vector<std::string> feature_names(const AxmModel& model) {
    return split_names(stored_text_records(model, format::kFeatureNamesKey));
}

void store_feature_names(AxmModel& model, const std::vector<std::string>& names) {
    if (names.empty()) return;
    uint32_t n_features = 0;
    bool has_features = false;
    for (const auto& [key, value] : model.config) {
        if (key == format::ConfigKey::n_features) {
            n_features = value;
            has_features = true;
        }
    }
    if (!has_features) throw ToolError("\"features\" names CSV columns: a model of token inputs has none");
    if (names.size() != n_features)
        throw ToolError("\"features\" lists " + std::to_string(names.size()) + " name(s), the model takes " +
                        std::to_string(n_features) + " feature(s)");
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : "\n") + n;
    store_text_records(model, format::kFeatureNamesKey, text, "\"features\"");
}

}  // namespace ax::tools
