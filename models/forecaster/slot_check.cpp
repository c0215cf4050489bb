#include "models/forecaster/slot_check.h"

#include "models/forecaster/forecaster.h"

namespace ax {

Status check_forecaster_for_slot(void* needs_ptr, const ModelFile& model) {
    const ForecasterSlotNeeds& needs = *static_cast<const ForecasterSlotNeeds*>(needs_ptr);
    if (model.family() != format::Family::forecaster) {
        const char* name = format::enum_name(model.family());
        return Status::error(StatusCode::unsupported, "the model is a ")
            .add(name ? name : "model of another family")
            .add(", this firmware runs a forecaster");
    }
    Forecaster f;
    AX_RETURN_IF_ERROR(Forecaster::open(model, &f));
    if (needs.n_features != 0 &&
        (f.config().n_features != needs.n_features || f.config().n_outputs != needs.n_features))
        return Status::error(StatusCode::unsupported, "the model has ")
            .add(f.config().n_features)
            .add(" features, this firmware's history has ")
            .add(needs.n_features);
    const size_t limit = f.config().max_positions;
    const size_t arena = f.arena_bytes(needs.window, needs.horizon);
    if (arena == 0 || (limit != 0 && (needs.window > limit || needs.horizon > limit)))
        return Status::error(StatusCode::unsupported, "the model cannot forecast ")
            .add(needs.horizon)
            .add(" steps from ")
            .add(needs.window)
            .add(" rows");
    if (arena > needs.arena_bytes)
        return Status::error(StatusCode::arena_too_small, "the model needs an arena of ")
            .add(arena)
            .add(" bytes, this firmware has ")
            .add(needs.arena_bytes);
    return Status::ok();
}

}  // namespace ax
