// Update images for the A/B slot test: the example model with a few bytes replaced (a config value, a
// flipped bit), its checksum recomputed with the runtime's own fnv1a64, streamed in chunks without a copy
// of the whole model (the emulated boards' RAM holds the two slots already). The base model carries a
// model_version record (`auspex convert --model-version 1`), whose value is patched here; a radio link that damages
// bytes is a flipped bit.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "runtime/bytes.h"
#include "runtime/checksum.h"
#include "runtime/format.h"

namespace ax::example {

struct UpdateImage {
    struct Patch {
        size_t at;
        uint8_t bytes[8];
        size_t n;
    };
    const uint8_t* base = nullptr;
    size_t model_bytes = 0;  // the model's size (the header's file size)
    size_t send_bytes = 0;   // bytes sent; fewer than model_bytes is a truncated update
    Patch patches[8] = {};
    size_t count = 0;

    UpdateImage(const uint8_t* model, size_t size) : base(model), model_bytes(size), send_bytes(size) {}

    bool set(size_t at, const uint8_t* bytes, size_t n) {
        if (count == sizeof patches / sizeof patches[0] || n > 8 || at + n > model_bytes) return false;
        Patch& p = patches[count++];
        p.at = at;
        p.n = n;
        std::memcpy(p.bytes, bytes, n);
        return true;
    }
    bool set_u32(size_t at, uint32_t v) {
        const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
        return set(at, b, 4);
    }
    // Rewrites the config record with key `find` as (key, value); false when the model has no such record.
    bool set_record(uint32_t find, uint32_t key, uint32_t value) {
        const uint64_t offset = load_u64(base + format::header::config_offset);
        const uint32_t n = load_u32(base + format::header::config_count);
        for (uint32_t i = 0; i < n; ++i) {
            const size_t at = static_cast<size_t>(offset) + i * format::kConfigRecordBytes;
            if (load_u32(base + at) == find) return set_u32(at, key) && set_u32(at + 4, value);
        }
        return false;
    }
    bool set_config(uint32_t key, uint32_t value) { return set_record(key, key, value); }
    // A bit flipped in transit (after reseal(): the checksum no longer matches).
    bool flip(size_t at, uint8_t bit) {
        uint8_t b = 0;
        read(at, 1, &b);
        b ^= bit;
        return set(at, &b, 1);
    }
    // Bytes [offset, offset + n) of the image.
    void read(size_t offset, size_t n, uint8_t* out) const {
        std::memcpy(out, base + offset, n);
        for (size_t k = 0; k < count; ++k) {
            const Patch& p = patches[k];
            for (size_t i = 0; i < p.n; ++i)
                if (p.at + i >= offset && p.at + i < offset + n) out[p.at + i - offset] = p.bytes[i];
        }
    }
    // Recomputes the header's checksum over the patched bytes.
    bool reseal() {
        uint64_t h = kFnvOffsetBasis;
        uint8_t chunk[256];
        for (size_t at = format::kChecksumStart; at < model_bytes; at += sizeof chunk) {
            const size_t n = model_bytes - at < sizeof chunk ? model_bytes - at : sizeof chunk;
            read(at, n, chunk);
            h = fnv1a64(chunk, n, h);
        }
        uint8_t b[8];
        for (int i = 0; i < 8; ++i) b[i] = static_cast<uint8_t>(h >> (8 * i));
        return set(format::header::checksum, b, 8);
    }
};

}  // namespace ax::example
