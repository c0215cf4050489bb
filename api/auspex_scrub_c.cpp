// The C API's scrubbing calls (api/auspex.h) over ax::ChecksumScrub, built in the caller's struct.
#include <cstdint>
#include <new>

#include "api/auspex.h"
#include "runtime/checksum_scrub.h"

namespace {

constexpr uint32_t kMagic = 0x41585343u;  // "AXSC": the struct was started

struct ScrubHandle {
    uint32_t magic;
    int last;  // the last call's auspex_status
    ax::ChecksumScrub scrub;
};

static_assert(sizeof(ScrubHandle) <= sizeof(auspex_scrub), "AUSPEX_SCRUB_BYTES is too small for this build");
static_assert(alignof(ScrubHandle) <= alignof(auspex_scrub), "auspex_scrub is under-aligned");

ScrubHandle* handle(const auspex_scrub* s) {
    if (s == nullptr) return nullptr;
    ScrubHandle* h = std::launder(reinterpret_cast<ScrubHandle*>(const_cast<auspex_scrub*>(s)->opaque.bytes));
    return h->magic == kMagic ? h : nullptr;
}

}  // namespace

extern "C" {

int auspex_scrub_start(auspex_scrub* s, const void* model, size_t size) {
    if (s == nullptr) return AUSPEX_INVALID_ARGUMENT;
    ScrubHandle* h = new (s->opaque.bytes) ScrubHandle();
    h->magic = kMagic;
    h->last = static_cast<int>(h->scrub.start(static_cast<const uint8_t*>(model), size).code());
    return h->last;
}

int auspex_scrub_step(auspex_scrub* s, size_t max_bytes) {
    ScrubHandle* h = handle(s);
    if (h == nullptr) return AUSPEX_INVALID_ARGUMENT;
    const ax::Status status = h->scrub.step(max_bytes);
    h->last = !status ? static_cast<int>(status.code()) : h->scrub.finished() ? AUSPEX_OK : AUSPEX_IN_PROGRESS;
    return h->last;
}

const char* auspex_scrub_message(const auspex_scrub* s) {
    if (s == nullptr) return "auspex_scrub is null";
    const ScrubHandle* h = handle(s);
    if (h == nullptr) return "auspex_scrub was never started (call auspex_scrub_start first)";
    if (h->last == AUSPEX_IN_PROGRESS) return "in progress";
    return h->last == AUSPEX_OK ? "ok" : h->scrub.error().message();
}

}  // extern "C"
