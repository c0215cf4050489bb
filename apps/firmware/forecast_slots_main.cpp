// The example forecaster with A/B model slots on an emulated board: the device's loop (mount the slots,
// forecast from the active model, scrub its flash between forecasts, take updates into the inactive slot)
// driven through the updates a device meets in the field. Every update that must be refused (truncated,
// a flipped bit, an arena larger than this firmware's, an older or missing version) has to leave the old
// model forecasting exactly the host's forecast; a good update becomes active; a power cut while an update
// is written or committed, and flash damage found by the scrubber, leave a good model running.
// The flash is emulated in RAM (ram_flash.h); updates are the bundled model with its version patched
// (update_image.h), all with the same weights, so every model forecasts the host's forecast. stdout: the last forecast,
// compared with the host's; stderr: one line per step.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <initializer_list>

#include "example_expected.h"  // generated: the host's forecast for the same model and history
#include "example_future.h"    // generated: the inputs known ahead of the forecast's steps (no rows: none)
#include "example_history.h"   // generated: EXAMPLE_HISTORY_ROWS x EXAMPLE_HISTORY_COLS floats, raw units
// The bundled model with a model_version record (version 1), in the board's model store.
#define EXAMPLE_MODEL_V_SECTION __attribute__((section(".axm_model")))
#include "example_model_v.h"  // generated: example_model_v[], EXAMPLE_MODEL_V_ARENA_BYTES, ...
#include "apps/firmware/ram_flash.h"
#include "apps/firmware/slot_updates.h"
#include "apps/firmware/update_image.h"
#include "models/forecaster/forecaster.h"
#include "models/forecaster/slot_check.h"
#include "ports/ports.h"
#include "runtime/checksum_scrub.h"
#include "runtime/model_slots.h"

namespace {

using namespace ax;

static_assert(EXAMPLE_HISTORY_ROWS == EXAMPLE_MODEL_V_WINDOW, "the arena is sized for the history's length");
static_assert(EXAMPLE_EXPECTED_ROWS == EXAMPLE_MODEL_V_HORIZON && EXAMPLE_EXPECTED_COLS == EXAMPLE_MODEL_V_N_OUTPUTS,
              "the host's forecast has the firmware's shape");

constexpr size_t kSector = 4096;
constexpr size_t kSlotBytes = (EXAMPLE_MODEL_V_SIZE + kSector - 1) / kSector * kSector;
constexpr uint32_t kVersionKey = static_cast<uint32_t>(format::ConfigKey::model_version);

alignas(64) uint8_t flash_memory[2 * kSector + 2 * kSlotBytes];
alignas(64) uint8_t arena[EXAMPLE_MODEL_V_ARENA_BYTES];
float forecast[EXAMPLE_MODEL_V_HORIZON * EXAMPLE_MODEL_V_N_OUTPUTS];
uint8_t chunk[1024];

example::RamFlash flash;
ModelSlots slots;
ForecasterSlotNeeds needs;
ModelFile file;
Forecaster model;
ForecastSession session;
example::Checks checks;

void expect(bool ok, const char* what, const Status& s = Status::ok()) { checks.expect(ok, what, s); }
using example::has;

// Boot: mount the slots and lay a session out on the active model.
Status boot() {
    flash.reboot();
    Status s = slots.mount(ram_slot_flash(&flash, kSector, kSlotBytes), &check_forecaster_for_slot, &needs);
    if (s) s = ModelFile::open(slots.model(), slots.model_bytes(), Checksum::skip, &file);  // mount verified it
    if (s) s = Forecaster::open(file, &model);
    if (s)
        s = session.init(model, best_kernels(), arena, sizeof arena, EXAMPLE_MODEL_V_WINDOW, EXAMPLE_MODEL_V_HORIZON);
    return s;
}

// A forecast from the active model, compared with the host's bit for bit; the scrubber re-checks the
// active model's flash a few KB at a time around it, as a device would between forecasts.
bool forecast_matches(const char* when) {
    std::memset(forecast, 0xFF, sizeof forecast);
    ChecksumScrub scrub;
    Status s = scrub.start(slots.model(), slots.model_bytes());
    while (s && !scrub.finished()) {
        s = scrub.step(64 * 1024);
        if (s && scrub.bytes_done() == 64 * 1024)
            s = session.forecast(example_history, EXAMPLE_MODEL_V_WINDOW, EXAMPLE_MODEL_V_HORIZON, forecast,
                                 EXAMPLE_FUTURE_ROWS != 0 ? example_future : nullptr, EXAMPLE_FUTURE_ROWS);
    }
    const bool same = s && std::memcmp(forecast, example_expected, sizeof forecast) == 0;
    std::fprintf(stderr, "    %s: slot %d, version %lu: forecast %s the host's, scrub %s\n", when, slots.active(),
                 static_cast<unsigned long>(slots.version()), same ? "equals" : "DIFFERS from", s.message());
    return same;
}

Status send(const example::UpdateImage& image) { return example::send(slots, image, chunk); }

example::UpdateImage versioned(uint32_t version) {
    example::UpdateImage image(example_model_v, EXAMPLE_MODEL_V_SIZE);
    // Version 0: the record becomes an informational one (no defaults assumed), so the model has no version.
    const bool ok = version != 0 ? image.set_config(kVersionKey, version)
                                 : image.set_record(kVersionKey, static_cast<uint32_t>(format::ConfigKey::defaults), 0);
    if (!ok || !image.reseal()) expect(false, "the base model has a model_version record");
    return image;
}

// An update that must be refused: the message names why, and the old model keeps forecasting.
void refused(const char* what, const example::UpdateImage& image, const char* why) {
    const int before = slots.active();
    const uint32_t version = slots.version();
    const Status s = send(image);
    expect(!s && has(s, why) && slots.active() == before && slots.version() == version, what, s);
    expect(forecast_matches("after it") && boot() && slots.active() == before, "the old model survives a reboot");
}

}  // namespace

int main() {
    flash.base = flash_memory;
    flash.bytes = sizeof flash_memory;
    needs.arena_bytes = sizeof arena;
    needs.window = EXAMPLE_MODEL_V_WINDOW;
    needs.horizon = EXAMPLE_MODEL_V_HORIZON;
    needs.n_features = EXAMPLE_MODEL_V_N_FEATURES;
    example::RamFlash::erase(&flash, flash_memory, sizeof flash_memory);

    const Status fresh = boot();
    expect(!fresh && has(fresh, "no committed model"), "fresh flash holds no model", fresh);
    expect(send(versioned(2)).is_ok() && boot() && slots.active() == 0 && slots.version() == 2,
           "factory install: version 2 in slot 0");
    expect(forecast_matches("factory model"), "the factory model forecasts");

    example::UpdateImage truncated = versioned(3);
    truncated.send_bytes = EXAMPLE_MODEL_V_SIZE / 2;
    refused("truncated update refused", truncated, "truncated");

    example::UpdateImage flipped = versioned(3);
    flipped.flip(EXAMPLE_MODEL_V_SIZE - EXAMPLE_MODEL_V_SIZE / 3, 0x08);
    refused("bit-flipped update refused", flipped, "checksum mismatch");

    // Float key/value caches instead of int8: a valid model whose session outgrows this firmware's arena.
    example::UpdateImage big = versioned(3);
    expect(big.set_config(static_cast<uint32_t>(format::ConfigKey::kv_cache), 0) && big.reseal(),
           "a variant with float caches");
    refused("too-large-arena update refused", big, "arena");

    refused("older-version update refused", versioned(1), "not newer");
    refused("same-version update refused", versioned(2), "not newer");
    refused("unversioned update refused", versioned(0), "no model version");

    const Status good = send(versioned(3));
    expect(good && slots.active() == 1 && slots.version() == 3, "good update: version 3 active in slot 1", good);
    expect(boot() && slots.active() == 1 && slots.version() == 3 && forecast_matches("after reboot"),
           "version 3 forecasts after a reboot");

    // A bit flipped in the active slot's flash (radiation, a weak cell): the scrubber finds it between
    // forecasts; the next boot falls back to the last good model, version 2 in slot 0.
    flash_memory[2 * kSector + kSlotBytes + EXAMPLE_MODEL_V_SIZE / 2] ^= 0x20;
    ChecksumScrub scrub;
    Status s = scrub.start(slots.model(), slots.model_bytes());
    while (s && !scrub.finished()) s = scrub.step(16 * 1024);
    expect(!s && has(s, "checksum mismatch"), "the scrubber finds the damaged slot", s);
    const Status after = boot();
    expect(after && slots.active() == 0 && slots.version() == 2 && slots.fell_back(), "fallback to version 2",
           slots.fallback_reason());
    expect(forecast_matches("after the fallback"), "the last good model keeps forecasting");

    // Power cuts while version 4 is written, and while its commit record is written: the next boot runs the
    // same model as before; with the power back, the update goes through.
    for (long long cut : {5000LL, static_cast<long long>(EXAMPLE_MODEL_V_SIZE) + 20}) {
        flash.cut_after = cut;
        const Status s = send(versioned(4));
        expect(!s && flash.powered_off,
               cut == 5000 ? "power cut while the update is written" : "power cut while the commit record is written",
               s);
        expect(boot() && slots.active() == 0 && slots.version() == 2 && forecast_matches("after the power cut"),
               "version 2 still runs");
    }
    const Status last = send(versioned(4));
    expect(last && boot() && slots.active() == 1 && slots.version() == 4 && forecast_matches("after the update"),
           "version 4 becomes active in slot 1", last);

    std::fprintf(stderr, "auspex: A/B slots of %lu bytes: %d checks, %d failed\n",
                 static_cast<unsigned long>(kSlotBytes), checks.count, checks.failures);
    for (size_t t = 0; t < EXAMPLE_MODEL_V_HORIZON; ++t)
        for (size_t i = 0; i < EXAMPLE_MODEL_V_N_OUTPUTS; ++i)
            std::printf(i + 1 < EXAMPLE_MODEL_V_N_OUTPUTS ? "%.9g," : "%.9g\n",
                        static_cast<double>(forecast[t * EXAMPLE_MODEL_V_N_OUTPUTS + i]));
    return checks.failures == 0 ? 0 : 1;
}
