#include "tools/host/column_names.h"

#include "tools/common/split_text.h"

#include "tools/common/tool_error.h"
#include "tools/axm/text_record_store.h"

namespace ax::tools {

std::vector<std::string> feature_names(const ModelFile& file) {
    return split_text(stored_text_records(file, format::kFeatureNamesKey), '\n');
}

std::vector<std::string> feature_names(const AxmModel& model) {
    return split_text(stored_text_records(model, format::kFeatureNamesKey), '\n');
}

namespace {

// The names as text records under `base`, one per column counted by `count_key`.
void store_names(AxmModel& model, const std::vector<std::string>& names, uint32_t base, format::ConfigKey count_key,
                 const char* key, const char* verb, const char* columns) {
    if (names.empty()) return;
    uint32_t count = 0;
    bool has_count = false;
    for (const auto& [k, value] : model.config) {
        if (k == count_key) {
            count = value;
            has_count = true;
        }
    }
    if (!has_count) throw ToolError(std::string("\"") + key + "\" names CSV columns: a model of token inputs has none");
    if (names.size() != count)
        throw ToolError(std::string("\"") + key + "\" lists " + std::to_string(names.size()) + " name(s), the model " +
                        verb + " " + std::to_string(count) + " " + columns);
    std::string text;
    for (const std::string& n : names) text += (text.empty() ? "" : "\n") + n;
    store_text_records(model, base, text, std::string("\"") + key + "\"");
}

}  // namespace

void store_feature_names(AxmModel& model, const std::vector<std::string>& names) {
    store_names(model, names, format::kFeatureNamesKey, format::ConfigKey::n_features, "features", "takes",
                "feature(s)");
}

void store_output_names(AxmModel& model, const std::vector<std::string>& names) {
    store_names(model, names, format::kOutputNamesKey, format::ConfigKey::n_outputs, "outputs", "predicts",
                "output(s)");
}

std::vector<std::string> output_names(const ModelFile& file) {
    return split_text(stored_text_records(file, format::kOutputNamesKey), '\n');
}

std::vector<std::string> output_header(const ModelFile& file, const std::vector<std::string>& input_header,
                                       size_t n_features, size_t n_outputs) {
    std::vector<std::string> names = output_names(file);
    if (!names.empty()) return names;
    if (n_outputs == n_features && input_header.size() == n_features) return input_header;
    for (size_t i = 0; i < n_outputs; ++i) names.push_back("output_" + std::to_string(i));
    return names;
}

}  // namespace ax::tools
