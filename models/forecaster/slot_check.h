// What a forecasting firmware requires of a model before it may become active in a slot
// (runtime/model_slots.h): a forecaster whose session, for the firmware's window and horizon, fits the
// arena the firmware reserved, and whose features match the data the firmware feeds it.
#pragma once
#include <cstddef>

#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

struct ForecasterSlotNeeds {
    size_t arena_bytes = 0;  // the firmware's arena
    size_t window = 0;       // rows it forecasts from
    size_t horizon = 0;      // steps it forecasts
    size_t n_features = 0;   // columns of its history, 0 = any
};

// A SlotCheck: `needs` is a ForecasterSlotNeeds*.
Status check_forecaster_for_slot(void* needs, const ModelFile& model);

}  // namespace ax
