// Writing and reading texts stored in config records (docs/FORMAT.md, "Text records"; the rules are
// runtime/text_records.h): the feature names, the model's name, the converter's version.
#pragma once
#include <cstdint>
#include <string>

#include "runtime/model_file.h"
#include "tools/axm/axm_writer.h"

namespace ax::tools {

// Adds `text` as records base_key, base_key + 1, ... (4 bytes each, the last zero-padded); nothing when it is
// empty. Throws ToolError naming `what` when it does not fit in format::kMaxTextRecords records or the model
// already holds records from base_key.
void store_text_records(AxmModel& model, uint32_t base_key, const std::string& text, const std::string& what);

// The text store_text_records added to a model being converted ("" when none).
std::string stored_text_records(const AxmModel& model, uint32_t base_key);
// The text stored in an opened model ("" when none).
std::string stored_text_records(const ModelFile& file, uint32_t base_key);

}  // namespace ax::tools
