// A Chronos-Bolt model in a .axm file (family forecaster; docs/FORMAT.md) opened as the forecaster's
// description of its blocks (models/forecaster/forecaster.h: T5 layers, ForecastLoop::quantile_paths), its
// layer tables bound in place, for code that runs models/forecaster/chronos_bolt.h's loop on flat memory.
// The forecaster's session (ForecastSession) runs the same model with an arena planned by its blocks.
#pragma once
#include <cstddef>

#include "models/forecaster/chronos_bolt.h"
#include "models/forecaster/forecaster.h"
#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

// The layer tables below hold at most this many layers per stack (Chronos-Bolt's published sizes have up to 12;
// the forecaster's session holds any count in its arena).
constexpr size_t kChronosBoltMaxLayers = 12;

// The opened model: weights point into the file and into this object's own layer tables, so it stays where
// it was opened (not copyable).
struct ChronosBoltModel {
    ChronosBoltModel() = default;
    ChronosBoltModel(const ChronosBoltModel&) = delete;
    ChronosBoltModel& operator=(const ChronosBoltModel&) = delete;

    Forecaster model;
    ChronosBoltWeights weights;
    T5EncoderLayerWeights encoder[kChronosBoltMaxLayers];
    T5DecoderLayerWeights decoder[kChronosBoltMaxLayers];
};

// Whether the file is a forecaster of Chronos-Bolt's blocks (t5 layers, or architecture chronos_bolt in files
// written before the blocks' options).
bool is_chronos_bolt(const ModelFile& f);

// Opens the forecaster (every record and tensor checked) and binds its layer tables; refuses a file holding
// anything else.
Status chronos_bolt_open(const ModelFile& f, ChronosBoltModel* out);

}  // namespace ax
