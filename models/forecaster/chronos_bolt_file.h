// A Chronos-Bolt model in a .axm file (family forecaster, architecture chronos_bolt; docs/FORMAT.md): its
// records read and checked, its tensors bound in place to models/forecaster/chronos_bolt.h's weights.
#pragma once
#include <cstddef>

#include "models/forecaster/chronos_bolt.h"
#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

// Chronos-Bolt's published sizes have at most 12 layers per stack (base); the tables below hold that many.
constexpr size_t kChronosBoltMaxLayers = 12;

// The opened model: weights point into the file and into this object's own layer tables, so it stays where
// it was opened (not copyable).
struct ChronosBoltModel {
    ChronosBoltModel() = default;
    ChronosBoltModel(const ChronosBoltModel&) = delete;
    ChronosBoltModel& operator=(const ChronosBoltModel&) = delete;

    ChronosBoltWeights weights;
    T5EncoderLayerWeights encoder[kChronosBoltMaxLayers];
    T5DecoderLayerWeights decoder[kChronosBoltMaxLayers];
};

// Whether the file is a forecaster whose architecture record says chronos_bolt.
bool is_chronos_bolt(const ModelFile& f);

// Reads the records, checks every size and binds every tensor; refuses a file holding anything else.
Status chronos_bolt_open(const ModelFile& f, ChronosBoltModel* out);

}  // namespace ax
