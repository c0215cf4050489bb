// The count-then-allocate step every model family's session shares. A family describes its session's
// buffers once, in Layout::allocate(MemoryPlan&, const Config&, lengths...) (with the phases each buffer is
// live in): run on a planning MemoryPlan it counts (the model's arena_bytes, `auspex inspect`), run again
// on a placing MemoryPlan over the caller's arena it gets the pointers. One code path, so the figure a
// model reports is exactly what its session uses.
#pragma once
#include <cstddef>

#include "runtime/memory_plan.h"
#include "runtime/session_checks.h"
#include "runtime/status.h"

namespace ax {

// Plans a session for `config` and its maximum lengths. False when a length is outside
// 1..kMaxSequenceLength or a size overflows.
template <class Layout, class Config, class... Lengths>
bool plan_session(const Config& config, MemoryPlan* plan, Lengths... lengths) {
    if (!(sequence_length_ok(lengths) && ...)) return false;
    Layout counted;
    counted.allocate(*plan, config, lengths...);
    return plan->solve();
}

// The exact arena bytes of such a session for up to `workers` parallel tasks (runtime/parallel.h); 0 when
// plan_session refuses.
template <class Layout, class Config, class... Lengths>
size_t session_arena_bytes(const Config& config, size_t workers, Lengths... lengths) {
    MemoryPlan plan(workers);
    return plan_session<Layout>(config, &plan, lengths...) ? plan.total_bytes() : 0;
}

// Lays a session out over the caller's arena (checked by check_session_arena); *out gets the pointers only
// when every buffer was placed.
template <class Layout, class Config, class... Lengths>
Status place_session(const Config& config, size_t workers, void* arena, size_t arena_bytes, Layout* out,
                     Lengths... lengths) {
    MemoryPlan planned(workers);
    const size_t needed = plan_session<Layout>(config, &planned, lengths...) ? planned.total_bytes() : 0;
    AX_RETURN_IF_ERROR(check_session_arena(arena, arena_bytes, needed));
    MemoryPlan placing(planned, arena, arena_bytes);
    Layout placed;
    placed.allocate(placing, config, lengths...);
    if (placing.failed()) return Status::error(StatusCode::arena_too_small, "arena exhausted");
    *out = placed;
    return Status::ok();
}

}  // namespace ax
