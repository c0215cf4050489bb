// Two model slots in flash (A/B) with a commit record per slot, so a device can take a new model over the
// air without ever being left without a good one: an update is written to the inactive slot, validated,
// and only then committed; the model in use is never written.
//
// Flash layout (the board chooses the addresses, SlotFlash):
//   slot 0, slot 1            one model each, 64-byte aligned, slot_bytes long
//   record 0, record 1        the commit record of each slot, each in an erase unit of its own, outside
//                             the slots (kRecordBytes: magic, slot, sequence, model size, the model's
//                             checksum and version, then a checksum of the record itself)
// The active slot is the one whose valid record has the highest sequence and whose model still opens
// (checksum verified) and passes the caller's check; when that model fails (flash damage found later,
// or revert()), the other committed slot — the last good model — is used.
//
// Power loss: an update first erases the target slot's record (so a half-written slot is never a
// candidate), then writes the model, validates it, and writes the record last. Cut power at any point and
// mount() finds either the old model or, once the whole record is written, the new one: a torn record
// fails its own checksum.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/model_file.h"
#include "runtime/model_signature.h"
#include "runtime/status.h"

namespace ax {

// The board's flash as the slots see it: read through memory-mapped pointers, changed through the board's
// driver. erase sets [at, at + bytes) to 0xFF (whole erase units); program writes bytes into erased flash.
// Both return false on a flash error (or a power cut, in a test).
struct SlotFlash {
    const uint8_t* slot[2] = {nullptr, nullptr};
    size_t slot_bytes = 0;
    const uint8_t* record[2] = {nullptr, nullptr};
    void* driver = nullptr;
    bool (*erase)(void* driver, const uint8_t* at, size_t bytes) = nullptr;
    bool (*program)(void* driver, const uint8_t* at, const void* data, size_t bytes) = nullptr;
};

// What the application requires of a model besides a valid file and checksum (its family, an arena that
// fits its RAM, ...): ok, or an error saying why the model cannot be used.
using SlotCheck = Status (*)(void* context, const ModelFile& model);

class ModelSlots {
public:
    static constexpr size_t kRecordBytes = 48;

    // Reads both records and picks the active slot (see above). ok when a slot holds a good model;
    // bad_model when none does (fresh flash: install a first model with the update calls).
    Status mount(const SlotFlash& flash, SlotCheck check, void* context);

    // Requires every model the slots hold or take to be signed by one of `keys` (runtime/model_signature.h):
    // mount() then passes over a slot whose model is not, and commit_update() refuses such an update, so
    // the running model stays. Call before mount(); `keys` must outlive the slots.
    void require_signature(const TrustedKeys& keys) {
        trusted_ = keys;
        signature_check_ = check_model_signature;
    }

    // The active slot (0 or 1, -1 when none), its model bytes and its version (config key model_version,
    // 0 when the model has none), and its commit sequence.
    int active() const { return active_; }
    const uint8_t* model() const { return active_ < 0 ? nullptr : flash_.slot[active_]; }
    size_t model_bytes() const { return active_ < 0 ? 0 : static_cast<size_t>(model_bytes_); }
    uint32_t version() const { return version_; }
    uint64_t sequence() const { return sequence_; }
    // True when mount() skipped the newest committed slot; fallback_reason() says why.
    bool fell_back() const { return fell_back_; }
    const Status& fallback_reason() const { return fallback_reason_; }

    // An update: begin_update() erases the inactive slot's record, then the slot; write_update() appends
    // the model's bytes in order, in chunks of any size; commit_update() validates the written model —
    // structure and checksum (ModelFile::open), the caller's check, a version newer than the active
    // model's (an unversioned model, version 0, never replaces a versioned one) — and only then writes
    // its record, making it active. A failed step leaves the active model as it was.
    Status begin_update();
    Status write_update(const void* data, size_t bytes);
    Status commit_update();

    // Gives up the active model (say its session failed to start): erases its record and mounts the
    // other slot, which must still hold a good model.
    Status revert();

private:
    Status try_slot(int slot, const uint8_t* record, uint64_t* model_bytes, uint32_t* version) const;

    SlotFlash flash_;
    TrustedKeys trusted_;
    // Set by require_signature only, so firmware without signed models links no Ed25519.
    Status (*signature_check_)(const uint8_t* data, size_t size, const TrustedKeys& trusted) = nullptr;
    SlotCheck check_ = nullptr;
    void* context_ = nullptr;
    int active_ = -1;
    uint64_t model_bytes_ = 0;
    uint32_t version_ = 0;
    uint64_t sequence_ = 0;
    bool fell_back_ = false;
    Status fallback_reason_;
    int target_ = -1;  // the slot an update is being written to, -1 when none
    uint64_t written_ = 0;
};

// The model's version (runtime/model_identity.h) for comparing updates: 0 when it states none.
uint32_t model_version_of(const ModelFile& model);

}  // namespace ax
