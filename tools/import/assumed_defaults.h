// What a conversion took by default: every config value the family needs that the config file did not
// state. Recorded in the model (config key "defaults", a bit per key, so `inspect` shows it) and as one
// note line for convert's summary, so that a default that differs from the user's model (a forecaster's
// memory mask, an embedding scale, an eps) is visible where the user looks.
#pragma once
#include "tools/axm/axm_writer.h"
#include "tools/import/convert_config.h"

namespace ax::tools {

void record_assumed_defaults(AxmModel& m, const ConvertConfig& config);

// "activation, memory_mask, ..." for a "defaults" config value (inspect); "" when none.
std::string assumed_defaults_text(uint32_t bits);

}  // namespace ax::tools
