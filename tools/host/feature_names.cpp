#include "tools/host/feature_names.h"

#include <algorithm>

#include "runtime/feature_names.h"
#include "tools/common/tool_error.h"

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
    std::string text(feature_names_text(file, nullptr, 0), '\0');
    feature_names_text(file, text.data(), text.size());
    return split_names(text);
}

std::vector<std::string> feature_names(const AxmModel& model) {
    std::string text;
    for (uint32_t i = 0; i < format::kMaxTextRecords; ++i) {
        const auto key = static_cast<format::ConfigKey>(format::kFeatureNamesKey + i);
        const auto it = std::find_if(model.config.begin(), model.config.end(),
                                     [key](const auto& record) { return record.first == key; });
        if (it == model.config.end()) break;
        for (int b = 0; b < 4; ++b)
            if (const char c = static_cast<char>(it->second >> (8 * b))) text += c;
    }
    return split_names(text);
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
    const size_t records = (text.size() + 3) / 4;
    if (records > format::kMaxTextRecords)
        throw ToolError("\"features\": the names take " + std::to_string(text.size()) +
                        " bytes, a model stores at most " + std::to_string(4 * format::kMaxTextRecords));
    text.resize(records * 4, '\0');
    for (size_t i = 0; i < records; ++i) {
        uint32_t value = 0;
        for (size_t b = 0; b < 4; ++b) value |= uint32_t{static_cast<uint8_t>(text[4 * i + b])} << (8 * b);
        model.config.emplace_back(static_cast<format::ConfigKey>(format::kFeatureNamesKey + i), value);
    }
}

}  // namespace ax::tools
