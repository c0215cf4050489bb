#include "runtime/model_slots.h"

#include <cstring>

#include "runtime/bytes.h"
#include "runtime/checksum.h"
#include "runtime/model_identity.h"

namespace ax {

namespace {

// Commit record fields (little-endian).
constexpr uint32_t kRecordMagic = 0x52535841u;  // "AXSR"
constexpr size_t kMagicAt = 0;                  // u32
constexpr size_t kSlotAt = 4;                   // u32, 0 or 1: which slot the record commits
constexpr size_t kSequenceAt = 8;               // u64, larger = newer
constexpr size_t kModelBytesAt = 16;            // u64, the model's file size
constexpr size_t kModelChecksumAt = 24;         // u64, the model header's checksum
constexpr size_t kVersionAt = 32;               // u32, the model's model_version (0: none)
constexpr size_t kReservedAt = 36;              // u32, 0
constexpr size_t kCheckAt = 40;                 // u64, FNV-1a 64 of bytes [0, 40)
static_assert(kCheckAt + 8 == ModelSlots::kRecordBytes, "the record ends with its own checksum");

void store_u32(uint8_t* p, uint32_t v) {
    for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
void store_u64(uint8_t* p, uint64_t v) {
    store_u32(p, static_cast<uint32_t>(v));
    store_u32(p + 4, static_cast<uint32_t>(v >> 32));
}

// A record is valid when it is whole (its checksum matches: a torn or erased record does not) and names
// the slot it belongs to.
bool valid_record(const uint8_t* r, int slot, size_t slot_bytes) {
    return load_u32(r + kMagicAt) == kRecordMagic && load_u32(r + kSlotAt) == static_cast<uint32_t>(slot) &&
           load_u32(r + kReservedAt) == 0 && load_u64(r + kModelBytesAt) <= slot_bytes &&
           load_u64(r + kCheckAt) == fnv1a64(r, kCheckAt);
}

Status refused(const Status& why) { return Status::error(why.code(), "update refused: ").add(why.message()); }

}  // namespace

uint32_t model_version_of(const ModelFile& model) {
    uint32_t v = 0;
    return model_version(model, &v) ? v : 0;
}

Status ModelSlots::try_slot(int slot, const uint8_t* record, uint64_t* model_bytes, uint32_t* version) const {
    *model_bytes = load_u64(record + kModelBytesAt);
    ModelFile file;
    AX_RETURN_IF_ERROR(ModelFile::open(flash_.slot[slot], static_cast<size_t>(*model_bytes), Checksum::verify, &file));
    if (signature_check_ != nullptr)
        AX_RETURN_IF_ERROR(signature_check_(flash_.slot[slot], flash_.slot_bytes, trusted_));
    if (load_u64(flash_.slot[slot] + format::header::checksum) != load_u64(record + kModelChecksumAt))
        return Status::error(StatusCode::bad_model, "the model is not the one its commit record names");
    if (check_ != nullptr) AX_RETURN_IF_ERROR(check_(context_, file));
    *version = model_version_of(file);
    return Status::ok();
}

Status ModelSlots::mount(const SlotFlash& flash, SlotCheck check, void* context) {
    const TrustedKeys trusted = trusted_;
    const auto signature_check = signature_check_;
    *this = ModelSlots();
    trusted_ = trusted;  // require_signature's choice outlives a remount
    signature_check_ = signature_check;
    for (int i = 0; i < 2; ++i) {
        if (flash.slot[i] == nullptr || flash.record[i] == nullptr ||
            reinterpret_cast<uintptr_t>(flash.slot[i]) % format::kAlignment != 0)
            return Status::error(StatusCode::invalid_argument, "slot flash: a slot or record address is null or a ")
                .add("slot is not 64-byte aligned");
    }
    if (flash.slot_bytes < format::kHeaderBytes || flash.erase == nullptr || flash.program == nullptr)
        return Status::error(StatusCode::invalid_argument, "slot flash: no slot size or no flash driver");
    // The four regions must not overlap: erasing one must never touch another.
    const uintptr_t begin[4] = {reinterpret_cast<uintptr_t>(flash.slot[0]), reinterpret_cast<uintptr_t>(flash.slot[1]),
                                reinterpret_cast<uintptr_t>(flash.record[0]),
                                reinterpret_cast<uintptr_t>(flash.record[1])};
    const size_t length[4] = {flash.slot_bytes, flash.slot_bytes, kRecordBytes, kRecordBytes};
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < a; ++b)
            if (begin[a] < begin[b] + length[b] && begin[b] < begin[a] + length[a])
                return Status::error(StatusCode::invalid_argument, "slot flash: the slots and records overlap");
    flash_ = flash;
    check_ = check;
    context_ = context;

    // Newest valid record first.
    int order[2] = {-1, -1};
    int n = 0;
    for (int i = 0; i < 2; ++i)
        if (valid_record(flash.record[i], i, flash.slot_bytes)) order[n++] = i;
    if (n == 2 && load_u64(flash.record[order[1]] + kSequenceAt) > load_u64(flash.record[order[0]] + kSequenceAt)) {
        order[0] = 1;
        order[1] = 0;
    }
    for (int k = 0; k < n; ++k) {
        const int slot = order[k];
        uint64_t bytes = 0;
        uint32_t version = 0;
        const Status s = try_slot(slot, flash.record[slot], &bytes, &version);
        if (!s) {
            if (k == 0)
                fallback_reason_ =
                    Status::error(s.code(), "slot ").add(static_cast<int64_t>(slot)).add(": ").add(s.message());
            continue;
        }
        active_ = slot;
        model_bytes_ = bytes;
        version_ = version;
        sequence_ = load_u64(flash.record[slot] + kSequenceAt);
        fell_back_ = k > 0;
        return Status::ok();
    }
    if (n == 0) return Status::error(StatusCode::bad_model, "no committed model in either slot (fresh flash?)");
    return Status::error(StatusCode::bad_model, "no slot holds a good model; ").add(fallback_reason_.message());
}

Status ModelSlots::begin_update() {
    if (flash_.erase == nullptr) return Status::error(StatusCode::invalid_argument, "slots: call mount() first");
    target_ = -1;
    const int t = active_ == 0 ? 1 : 0;
    // The record first: from here on the slot is no candidate, whatever state its bytes are in.
    if (!flash_.erase(flash_.driver, flash_.record[t], kRecordBytes) ||
        !flash_.erase(flash_.driver, flash_.slot[t], flash_.slot_bytes))
        return Status::error(StatusCode::bad_model, "flash erase of slot ")
            .add(static_cast<int64_t>(t))
            .add(" failed; the active model is unchanged");
    target_ = t;
    written_ = 0;
    return Status::ok();
}

Status ModelSlots::write_update(const void* data, size_t bytes) {
    if (target_ < 0) return Status::error(StatusCode::invalid_argument, "slots: call begin_update() first");
    if (bytes > flash_.slot_bytes - written_) {
        target_ = -1;
        return Status::error(StatusCode::bad_model, "update refused: it is larger than a slot (")
            .add(flash_.slot_bytes)
            .add(" bytes)");
    }
    if (!flash_.program(flash_.driver, flash_.slot[target_] + written_, data, bytes)) {
        target_ = -1;
        return Status::error(StatusCode::bad_model, "flash write failed at byte ")
            .add(written_)
            .add(" of the update; the active model is unchanged");
    }
    written_ += bytes;
    return Status::ok();
}

Status ModelSlots::commit_update() {
    if (target_ < 0) return Status::error(StatusCode::invalid_argument, "slots: no update to commit");
    const int t = target_;
    target_ = -1;  // one commit per begin_update()
    ModelFile file;
    // Only the bytes written: a truncated update is refused even if the slot held more before.
    Status s = ModelFile::open(flash_.slot[t], static_cast<size_t>(written_), Checksum::verify, &file);
    if (s && signature_check_ != nullptr) s = signature_check_(flash_.slot[t], static_cast<size_t>(written_), trusted_);
    if (s && check_ != nullptr) s = check_(context_, file);
    if (!s) return refused(s);
    const uint32_t version = model_version_of(file);
    if (active_ >= 0 && version <= version_) {
        if (version == 0) {
            Status e = Status::error(StatusCode::bad_model, "update refused: it has no model version and the active ");
            if (version_ == 0) return e.add("model has none either (give models a version to update them)");
            return e.add("model has version ").add(version_);
        }
        return Status::error(StatusCode::bad_model, "update refused: model version ")
            .add(version)
            .add(" is not newer than the active model's version ")
            .add(version_);
    }

    uint64_t sequence = 0;
    for (int i = 0; i < 2; ++i) {
        const uint64_t seq = load_u64(flash_.record[i] + kSequenceAt);
        if (valid_record(flash_.record[i], i, flash_.slot_bytes) && seq > sequence) sequence = seq;
    }
    ++sequence;
    uint8_t r[kRecordBytes] = {};
    store_u32(r + kMagicAt, kRecordMagic);
    store_u32(r + kSlotAt, static_cast<uint32_t>(t));
    store_u64(r + kSequenceAt, sequence);
    store_u64(r + kModelBytesAt, file.file_size());
    store_u64(r + kModelChecksumAt, load_u64(flash_.slot[t] + format::header::checksum));
    store_u32(r + kVersionAt, version);
    store_u64(r + kCheckAt, fnv1a64(r, kCheckAt));
    // The record last: until it is whole, the old model stays the active one.
    if (!flash_.program(flash_.driver, flash_.record[t], r, kRecordBytes) ||
        std::memcmp(flash_.record[t], r, kRecordBytes) != 0)
        return Status::error(StatusCode::bad_model, "flash write of the commit record failed; the active model is ")
            .add("unchanged");
    active_ = t;
    model_bytes_ = file.file_size();
    version_ = version;
    sequence_ = sequence;
    fell_back_ = false;
    fallback_reason_ = Status::ok();
    return Status::ok();
}

Status ModelSlots::revert() {
    if (active_ < 0) return Status::error(StatusCode::invalid_argument, "slots: no active model to revert");
    if (!flash_.erase(flash_.driver, flash_.record[active_], kRecordBytes))
        return Status::error(StatusCode::bad_model, "flash erase of the commit record failed");
    const SlotFlash flash = flash_;  // mount() starts from a blank state
    return mount(flash, check_, context_);
}

}  // namespace ax
