// `auspex convert DIR`: Chronos-Bolt's published directory (tools/import/chronos_bolt_import.h) to a .axm
// forecaster of architecture chronos_bolt (docs/chronos-bolt.md), float32, verified by opening it with the
// runtime (models/forecaster/chronos_bolt_file.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "tools/axm/axm_writer.h"
#include "tools/import/chronos_bolt_import.h"

namespace ax::tools {

// The model's records and tensors: T5's q, k, v packed into one [3 inner, d] matrix per attention, the
// residual MLPs as layers 0 (input) and 1 (head) of the patch_mlp roles.
AxmModel chronos_bolt_axm(const ChronosBoltCheckpoint& checkpoint);

// The directory to .axm bytes, weight matrices stored as `dtype` (f32 or int8: one scale per row; the lookup
// tables stay float32); `notes` (when given) gets what the user should know.
std::vector<uint8_t> convert_chronos_bolt(const std::string& directory, format::DType dtype = format::DType::f32,
                                          std::vector<std::string>* notes = nullptr);

}  // namespace ax::tools
