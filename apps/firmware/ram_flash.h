// A flash chip emulated in RAM, the model store of the emulated boards (their code memory is plain RAM):
// erase sets bytes to 0xFF, program only clears bits (as NOR flash does; writing over bytes that are not
// erased is an error), and a power cut can be scheduled after a number of programmed bytes, after which
// nothing more is written until reboot(). A real board passes its flash driver's functions instead.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/model_slots.h"

namespace ax::example {

struct RamFlash {
    uint8_t* base = nullptr;
    size_t bytes = 0;
    long long cut_after = -1;  // bytes programmed before the power fails; -1 = never
    bool powered_off = false;

    void reboot() {
        powered_off = false;
        cut_after = -1;
    }

    static bool erase(void* self, const uint8_t* at, size_t n) {
        RamFlash& f = *static_cast<RamFlash*>(self);
        if (f.powered_off || at < f.base || n > f.bytes || static_cast<size_t>(at - f.base) > f.bytes - n) return false;
        std::memset(f.base + (at - f.base), 0xFF, n);
        return true;
    }

    static bool program(void* self, const uint8_t* at, const void* data, size_t n) {
        RamFlash& f = *static_cast<RamFlash*>(self);
        if (f.powered_off || at < f.base || n > f.bytes || static_cast<size_t>(at - f.base) > f.bytes - n) return false;
        uint8_t* dst = f.base + (at - f.base);
        const uint8_t* src = static_cast<const uint8_t*>(data);
        for (size_t i = 0; i < n; ++i) {
            if (f.cut_after == 0) {
                f.powered_off = true;
                return false;
            }
            if (f.cut_after > 0) --f.cut_after;
            if (dst[i] != 0xFF) return false;  // not erased
            dst[i] = src[i];
        }
        return true;
    }
};

// The slots in a RamFlash of at least 2 * (sector + slot_bytes) bytes: the two commit records first, one
// sector each, then the two slots (slot_bytes a multiple of 64, base 64-byte aligned).
inline SlotFlash ram_slot_flash(RamFlash* flash, size_t sector, size_t slot_bytes) {
    SlotFlash s;
    s.record[0] = flash->base;
    s.record[1] = flash->base + sector;
    s.slot[0] = flash->base + 2 * sector;
    s.slot[1] = flash->base + 2 * sector + slot_bytes;
    s.slot_bytes = slot_bytes;
    s.driver = flash;
    s.erase = &RamFlash::erase;
    s.program = &RamFlash::program;
    return s;
}

}  // namespace ax::example
