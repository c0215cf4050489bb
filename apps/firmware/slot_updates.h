// What the A/B slot firmwares (forecast_slots_main.cpp, forecast_signed_main.cpp) share: each step's check
// printed as the test log reads it, and an update sent as a radio would, in chunks into the inactive slot.
#pragma once
#include <cstdio>
#include <cstring>

#include "apps/firmware/update_image.h"
#include "runtime/model_slots.h"
#include "runtime/status.h"

namespace ax::example {

struct Checks {
    int count = 0;
    int failures = 0;
    void expect(bool ok, const char* what, const Status& s = Status::ok()) {
        std::fprintf(stderr, "  [%s] %s%s%s\n", ok ? "ok" : "FAIL", what, s.is_ok() ? "" : ": ",
                     s.is_ok() ? "" : s.message());
        ++count;
        if (!ok) ++failures;
    }
};

inline bool has(const Status& s, const char* text) { return std::strstr(s.message(), text) != nullptr; }

template <size_t N>
Status send(ModelSlots& slots, const UpdateImage& image, uint8_t (&chunk)[N]) {
    AX_RETURN_IF_ERROR(slots.begin_update());
    for (size_t at = 0; at < image.send_bytes; at += N) {
        const size_t n = image.send_bytes - at < N ? image.send_bytes - at : N;
        image.read(at, n, chunk);
        AX_RETURN_IF_ERROR(slots.write_update(chunk, n));
    }
    return slots.commit_update();
}

}  // namespace ax::example
