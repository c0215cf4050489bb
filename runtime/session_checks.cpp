#include "runtime/session_checks.h"

#include <cmath>
#include <cstdint>

#include "runtime/config_reader.h"

namespace ax {

bool sequence_length_ok(size_t n) { return n >= 1 && n <= kMaxSequenceLength; }

Status check_session_length(size_t len, size_t declared, size_t limit, const char* what, const char* unit) {
    if (len < 1 || len > declared)
        return Status::error(StatusCode::invalid_argument, what)
            .add(len)
            .add(unit)
            .add(" outside 1..")
            .add(declared)
            .add(" declared for this session");
    if (limit != 0 && len > limit)
        return Status::error(StatusCode::invalid_argument, what)
            .add(len)
            .add(unit)
            .add(" is longer than the model's ")
            .add(limit)
            .add(" positions");
    return Status::ok();
}

Status check_session_arena(const void* arena, size_t arena_bytes, size_t needed) {
    if (needed == 0)
        return Status::error(StatusCode::invalid_argument, "sequence lengths must be 1..").add(kMaxSequenceLength);
    if (arena == nullptr || reinterpret_cast<uintptr_t>(arena) % 16 != 0)
        return Status::error(StatusCode::invalid_argument, "arena must be non-null and 16-byte aligned");
    if (arena_bytes < needed)
        return Status::error(StatusCode::arena_too_small, "arena of ")
            .add(arena_bytes)
            .add(" bytes, the session needs ")
            .add(needed);
    return Status::ok();
}

bool all_finite(const float* x, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (!std::isfinite(x[i])) return false;
    return true;
}

Status check_finite_input(const float* x, size_t n, const char* what) {
    if (x == nullptr) return Status::error(StatusCode::invalid_argument, what).add(" is null");
    if (!all_finite(x, n)) return Status::error(StatusCode::bad_input, what).add(" holds NaN or Inf");
    return Status::ok();
}

Status bad_model_config(const char* text) { return Status::error(StatusCode::bad_model, text); }

}  // namespace ax
