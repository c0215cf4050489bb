// A/B model slots (runtime/model_slots.h) on flash emulated in RAM, as a device would use them: a first
// install, updates that must be refused (truncated, a flipped bit, another family, an arena too large, an
// older or missing version) leaving the old model active, a good update, power cut at every stage of an
// update, flash damage found at boot, and revert().
#include <doctest/doctest.h>

#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "apps/firmware/ram_flash.h"
#include "apps/firmware/update_image.h"
#include "models/forecaster/forecaster.h"
#include "models/forecaster/slot_check.h"
#include "ports/ports.h"
#include "runtime/bytes.h"
#include "runtime/model_slots.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/converter.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

std::vector<uint8_t> convert(const std::string& name, format::CacheType cache,
                             std::optional<uint32_t> version = std::nullopt) {
    tools::ConvertOptions o;
    o.kv_cache = cache;
    o.model_version = version;
    o.checkpoint_path = test::fixture_path("forecaster/" + name + "/model.pt");
    o.config_path = test::fixture_path("forecaster/" + name + "/config.json");
    o.dtype = format::DType::i8;
    return tools::convert_model(o);
}

const std::vector<uint8_t>& base_model() {
    static const std::vector<uint8_t> bytes = convert("post_relu_tril", format::CacheType::i8);
    return bytes;
}

std::vector<uint8_t> version(uint32_t v) { return convert("post_relu_tril", format::CacheType::i8, v); }

size_t arena_of(const std::vector<uint8_t>& bytes, size_t window, size_t horizon) {
    tools::AlignedBuffer b(bytes);
    ModelFile file;
    Forecaster f;
    REQUIRE(ModelFile::open(b.data(), b.size(), Checksum::verify, &file).is_ok());
    REQUIRE(Forecaster::open(file, &f).is_ok());
    return f.arena_bytes(window, horizon);
}

bool has(const Status& s, const char* text) { return std::strstr(s.message(), text) != nullptr; }

constexpr size_t kSector = 4096;
constexpr size_t kWindow = 16;
constexpr size_t kHorizon = 8;

// A device: emulated flash, the slots, and what its firmware needs of a model.
struct Device {
    size_t slot_bytes;
    tools::AlignedBuffer memory;
    example::RamFlash flash;
    ForecasterSlotNeeds needs;
    ModelSlots slots;

    explicit Device(size_t slot) : slot_bytes(slot), memory(2 * kSector + 2 * slot) {
        flash.base = memory.data();
        flash.bytes = memory.size();
        REQUIRE(example::RamFlash::erase(&flash, memory.data(), memory.size()));
        needs.arena_bytes = arena_of(base_model(), kWindow, kHorizon);
        needs.window = kWindow;
        needs.horizon = kHorizon;
    }
    Status boot() {
        flash.reboot();
        return slots.mount(example::ram_slot_flash(&flash, kSector, slot_bytes), &check_forecaster_for_slot, &needs);
    }
    Status send(const std::vector<uint8_t>& bytes, size_t count, size_t chunk = 333) {
        AX_RETURN_IF_ERROR(slots.begin_update());
        for (size_t at = 0; at < count; at += chunk)
            AX_RETURN_IF_ERROR(slots.write_update(bytes.data() + at, count - at < chunk ? count - at : chunk));
        return slots.commit_update();
    }
    Status send(const std::vector<uint8_t>& bytes) { return send(bytes, bytes.size()); }
    // The active model's forecast of the fixture's history.
    std::vector<float> forecast() {
        const tools::Table history = tools::read_csv(test::fixture_path("forecaster/post_relu_tril/history.csv"));
        REQUIRE(history.rows >= kWindow);
        ModelFile file;
        Forecaster f;
        ForecastSession session;
        tools::AlignedBuffer arena(needs.arena_bytes);
        REQUIRE(ModelFile::open(slots.model(), slots.model_bytes(), Checksum::verify, &file).is_ok());
        REQUIRE(Forecaster::open(file, &f).is_ok());
        REQUIRE(session.init(f, best_kernels(), arena.data(), arena.size(), kWindow, kHorizon).is_ok());
        std::vector<float> out(kHorizon * history.cols);
        const float* last = history.values.data() + (history.rows - kWindow) * history.cols;
        REQUIRE(session.forecast(last, kWindow, kHorizon, out.data()).is_ok());
        return out;
    }
};

size_t slot_size_for(size_t bytes) { return (bytes + 2 * kSector - 1) / kSector * kSector; }

}  // namespace

TEST_CASE("A/B slots: every bad update is refused with a reason and the old model keeps forecasting") {
    const std::vector<uint8_t> v1 = version(1), v2 = version(2);
    Device d(slot_size_for(v1.size()));
    const Status fresh = d.boot();
    CHECK(fresh.code() == StatusCode::bad_model);
    CHECK(has(fresh, "no committed model"));
    CHECK(d.slots.active() == -1);

    REQUIRE(d.send(v1).is_ok());
    CHECK(d.slots.active() == 0);
    CHECK(d.slots.version() == 1);
    REQUIRE(d.boot().is_ok());
    CHECK(d.slots.active() == 0);
    CHECK(d.slots.model_bytes() == v1.size());
    const std::vector<float> expected = d.forecast();

    int want_slot = 0;  // the model that must stay active
    uint32_t want_version = 1;
    auto refused = [&](const char* what, const std::vector<uint8_t>& bytes, size_t count, const char* why) {
        INFO(std::string(what));
        const Status s = d.send(bytes, count);
        CHECK(!s.is_ok());
        CHECK_MESSAGE(has(s, why), s.message());
        CHECK(has(s, "update refused"));
        CHECK(d.slots.active() == want_slot);
        CHECK(d.slots.version() == want_version);
        CHECK(d.forecast() == expected);
        REQUIRE(d.boot().is_ok());  // and after a reboot
        CHECK(d.slots.active() == want_slot);
        CHECK(d.forecast() == expected);
    };
    refused("truncated", v2, v2.size() / 2, "truncated");
    refused("truncated to its header", v2, 64, "truncated");
    std::vector<uint8_t> flipped = v2;
    flipped[flipped.size() - 100] ^= 0x02;
    refused("bit flip", flipped, flipped.size(), "checksum mismatch");

    std::vector<uint8_t> other_family = v2;
    other_family[format::header::family] = static_cast<uint8_t>(format::Family::classifier);
    tools::reseal_axm(other_family);
    refused("another family", other_family, other_family.size(), "this firmware runs a forecaster");

    // The same network with float key/value caches: its session outgrows the arena sized for int8 caches.
    const std::vector<uint8_t> big = convert("post_relu_tril", format::CacheType::f32, 2);
    REQUIRE(arena_of(big, kWindow, kHorizon) > d.needs.arena_bytes);
    REQUIRE(big.size() <= d.slot_bytes);
    refused("arena too large", big, big.size(), "needs an arena of");

    refused("same version", version(1), version(1).size(), "is not newer than the active model's version 1");
    refused("unversioned", base_model(), base_model().size(), "no model version");

    REQUIRE(d.send(v2).is_ok());
    CHECK(d.slots.active() == 1);
    CHECK(d.slots.version() == 2);
    CHECK(d.forecast() == expected);  // same weights, other version
    want_slot = 1;
    want_version = 2;
    refused("older version", v1, v1.size(), "model version 1 is not newer than the active model's version 2");
    CHECK(d.slots.active() == 1);

    // Larger than a slot.
    std::vector<uint8_t> huge(d.slot_bytes + 64, 0);
    const Status too_big = d.send(huge);
    CHECK(has(too_big, "larger than a slot"));
    REQUIRE(d.boot().is_ok());
    CHECK(d.slots.version() == 2);
}

TEST_CASE("A/B slots: power cut at any point of an update leaves the old model or the new one, never none") {
    const std::vector<uint8_t> v1 = version(1), v2 = version(2);
    Device d(slot_size_for(v1.size()));
    REQUIRE(d.boot().code() == StatusCode::bad_model);
    REQUIRE(d.send(v1).is_ok());
    const size_t total = v2.size() + ModelSlots::kRecordBytes;  // bytes an update programs
    std::vector<size_t> cuts = {0, 1, 63, 64, 65, v2.size() / 2, v2.size() - 1, v2.size()};
    for (size_t i = 1; i < ModelSlots::kRecordBytes; ++i) cuts.push_back(v2.size() + i);  // inside the record
    for (size_t cut : cuts) {
        INFO("power cut after " << cut << " of " << total << " bytes");
        d.flash.cut_after = static_cast<long long>(cut);
        CHECK(!d.send(v2).is_ok());
        REQUIRE(d.boot().is_ok());
        CHECK(d.slots.active() == 0);
        CHECK(d.slots.version() == 1);
    }
    d.flash.cut_after = static_cast<long long>(total);  // the last byte written, then the power fails
    CHECK(d.send(v2).is_ok());
    REQUIRE(d.boot().is_ok());
    CHECK(d.slots.active() == 1);
    CHECK(d.slots.version() == 2);
    CHECK(d.slots.sequence() == 2);
}

TEST_CASE("A/B slots: damage in the active slot falls back at boot; revert() gives up a model") {
    const std::vector<uint8_t> v1 = version(1), v2 = version(2), v3 = version(3);
    Device d(slot_size_for(v1.size()));
    REQUIRE(d.boot().code() == StatusCode::bad_model);
    REQUIRE(d.send(v1).is_ok());
    const std::vector<float> expected = d.forecast();
    REQUIRE(d.send(v2).is_ok());
    REQUIRE(d.slots.active() == 1);

    // A bit flips in slot 1's flash: the next boot finds it and runs the last good model.
    uint8_t* slot1 = d.memory.data() + 2 * kSector + d.slot_bytes;
    slot1[v2.size() / 2] ^= 0x40;
    REQUIRE(d.boot().is_ok());
    CHECK(d.slots.active() == 0);
    CHECK(d.slots.version() == 1);
    CHECK(d.slots.fell_back());
    CHECK(has(d.slots.fallback_reason(), "slot 1: checksum mismatch"));
    CHECK(d.forecast() == expected);
    // The next update goes to the damaged slot and is committed with a newer sequence.
    REQUIRE(d.send(v3).is_ok());
    CHECK(d.slots.active() == 1);
    CHECK(d.slots.version() == 3);
    CHECK(!d.slots.fell_back());

    // The firmware could not start a session with version 3 (say): revert to version 1, also after a reboot.
    REQUIRE(d.slots.revert().is_ok());
    CHECK(d.slots.active() == 0);
    CHECK(d.slots.version() == 1);
    REQUIRE(d.boot().is_ok());
    CHECK(d.slots.active() == 0);
    // Nothing left to fall back to.
    const Status none = d.slots.revert();
    CHECK(none.code() == StatusCode::bad_model);
    CHECK(d.slots.active() == -1);

    // A broken setup: a misaligned slot, overlapping regions, no mount.
    ModelSlots s;
    SlotFlash bad = example::ram_slot_flash(&d.flash, kSector, d.slot_bytes);
    bad.slot[1] += 4;
    CHECK(s.mount(bad, nullptr, nullptr).code() == StatusCode::invalid_argument);
    bad = example::ram_slot_flash(&d.flash, kSector, d.slot_bytes);
    bad.record[1] = bad.slot[0] + 64;  // a record inside a slot
    CHECK(has(s.mount(bad, nullptr, nullptr), "overlap"));
    CHECK(s.begin_update().code() == StatusCode::invalid_argument);
    CHECK(s.commit_update().code() == StatusCode::invalid_argument);
}
