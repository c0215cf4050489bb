#include "tools/axm/text_record_store.h"

#include <algorithm>

#include "runtime/text_records.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

format::ConfigKey key_at(uint32_t base_key, size_t index) {
    return static_cast<format::ConfigKey>(base_key + static_cast<uint32_t>(index));
}

}  // namespace

void store_text_records(AxmModel& model, uint32_t base_key, const std::string& text, const std::string& what) {
    if (text.empty()) return;
    const size_t records = (text.size() + 3) / 4;
    if (records > format::kMaxTextRecords)
        throw ToolError(what + ": the text takes " + std::to_string(text.size()) + " bytes, a model stores at most " +
                        std::to_string(4 * format::kMaxTextRecords));
    if (std::any_of(model.config.begin(), model.config.end(),
                    [base_key](const auto& record) { return record.first == key_at(base_key, 0); }))
        throw ToolError("internal error: " + what + " stored twice");
    std::string padded = text;
    padded.resize(records * 4, '\0');
    for (size_t i = 0; i < records; ++i) {
        uint32_t value = 0;
        for (size_t b = 0; b < 4; ++b) value |= uint32_t{static_cast<uint8_t>(padded[4 * i + b])} << (8 * b);
        model.config.emplace_back(key_at(base_key, i), value);
    }
}

std::string stored_text_records(const AxmModel& model, uint32_t base_key) {
    std::string text;
    for (uint32_t i = 0; i < format::kMaxTextRecords; ++i) {
        const auto it = std::find_if(model.config.begin(), model.config.end(),
                                     [&](const auto& record) { return record.first == key_at(base_key, i); });
        if (it == model.config.end()) break;
        for (int b = 0; b < 4; ++b)
            if (const char c = static_cast<char>(it->second >> (8 * b))) text += c;
    }
    return text;
}

std::string stored_text_records(const ModelFile& file, uint32_t base_key) {
    std::string text(read_text_records(file, base_key, nullptr, 0), '\0');
    read_text_records(file, base_key, text.data(), text.size());
    return text;
}

}  // namespace ax::tools
