// Checks every model family's session makes on what its caller passes in: lengths, arena, input values.
#pragma once
#include <cstddef>

#include "runtime/status.h"

namespace ax {

// 1..kMaxSequenceLength (runtime/config_reader.h).
bool sequence_length_ok(size_t n);

// A length a session call was given: 1..declared (what init() sized the session for), then within the
// model's positions (`limit`; 0: no limit). `what` and `unit` frame the length in the message, e.g.
// "source of " 40 " tokens outside 1..32 declared for this session" or "max length " 90 " is longer than the
// model's 64 positions".
Status check_session_length(size_t len, size_t declared, size_t limit, const char* what, const char* unit);

// The arena is non-null, 16-byte aligned and at least `needed` bytes (needed 0: the lengths were refused).
Status check_session_arena(const void* arena, size_t arena_bytes, size_t needed);

bool all_finite(const float* x, size_t n);
// Inputs come from sensors and files: NaN or Inf is refused, naming `what`.
Status check_finite_input(const float* x, size_t n, const char* what);

// A config record that contradicts the family.
Status bad_model_config(const char* text);

}  // namespace ax
