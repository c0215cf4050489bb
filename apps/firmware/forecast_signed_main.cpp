// Signed model updates on an emulated board: A/B slots that take only models signed with the owner's key
// (ModelSlots::require_signature). The build signs the example as versions 1 and 2 with a key made at build
// time and embeds its public key (auspex keygen, sign, header KEY.pub). Every update an attacker could send
// (the model without its signature, signed by another key, changed after signing with its checksum made
// whole again, an older signed version) must be refused with the running model still forecasting exactly
// the host's forecast; the owner's version 2 then becomes active. stdout: the last forecast, compared with
// the host's; stderr: one line per step.
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "example_expected.h"  // generated: the host's forecast for the same model and history
#include "example_history.h"   // generated: EXAMPLE_HISTORY_ROWS x EXAMPLE_HISTORY_COLS floats, raw units
#define EXAMPLE_SIGNED_V1_SECTION __attribute__((section(".axm_model")))
#include "example_signed_v1.h"  // generated: the example, version 1, signed by the owner
#define EXAMPLE_SIGNED_V2_SECTION __attribute__((section(".axm_model")))
#include "example_signed_v2.h"  // generated: version 2, signed by the owner
#include "apps/firmware/ram_flash.h"
#include "apps/firmware/slot_updates.h"
#include "apps/firmware/update_image.h"
#include "models/forecaster/forecaster.h"
#include "models/forecaster/slot_check.h"
#include "owner_key.h"  // generated: owner_key[OWNER_KEY_COUNT][32], the key this device trusts
#include "ports/ports.h"
#include "runtime/bytes.h"
#include "runtime/model_signature.h"
#include "runtime/model_slots.h"

// Markers for `make insn`'s instruction-count plugin (tools/insn/insn_plugin.c): under it, the signature check
// of one update and one forecast are counted as regions "verify" and "forecast"; without it they cost a call.
extern "C" {
volatile int auspex_insn_marker = 0;
__attribute__((noinline, used)) void auspex_insn_begin_verify() { auspex_insn_marker = 1; }
__attribute__((noinline, used)) void auspex_insn_begin_forecast() { auspex_insn_marker = 2; }
__attribute__((noinline, used)) void auspex_insn_end() { auspex_insn_marker = 0; }
}

namespace {

using namespace ax;

static_assert(EXAMPLE_HISTORY_ROWS == EXAMPLE_SIGNED_V1_WINDOW, "the arena is sized for the history's length");
static_assert(EXAMPLE_SIGNED_V1_SIZE == EXAMPLE_SIGNED_V2_SIZE, "the two versions differ in one record only");

constexpr size_t kSector = 4096;
constexpr size_t kSlotBytes = (EXAMPLE_SIGNED_V1_SIZE + kSector - 1) / kSector * kSector;
constexpr size_t kModelBytes = EXAMPLE_SIGNED_V2_SIZE - kSignatureRecordBytes;  // the record follows the model

alignas(64) uint8_t flash_memory[2 * kSector + 2 * kSlotBytes];
alignas(64) uint8_t arena[EXAMPLE_SIGNED_V1_ARENA_BYTES];
float forecast[EXAMPLE_SIGNED_V1_HORIZON * EXAMPLE_SIGNED_V1_N_FEATURES];
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

Status boot() {
    flash.reboot();
    Status s = slots.mount(ram_slot_flash(&flash, kSector, kSlotBytes), &check_forecaster_for_slot, &needs);
    if (s) s = ModelFile::open(slots.model(), slots.model_bytes(), Checksum::skip, &file);  // mount verified it
    if (s) s = Forecaster::open(file, &model);
    if (s)
        s = session.init(model, best_kernels(), arena, sizeof arena, EXAMPLE_SIGNED_V1_WINDOW,
                         EXAMPLE_SIGNED_V1_HORIZON);
    return s;
}

bool forecast_matches(const char* when) {
    std::memset(forecast, 0xFF, sizeof forecast);
    const Status s = session.forecast(example_history, EXAMPLE_SIGNED_V1_WINDOW, EXAMPLE_SIGNED_V1_HORIZON, forecast);
    const bool same = s && std::memcmp(forecast, example_expected, sizeof forecast) == 0;
    std::fprintf(stderr, "    %s: slot %d, version %lu: forecast %s the host's\n", when, slots.active(),
                 static_cast<unsigned long>(slots.version()), same ? "equals" : "DIFFERS from");
    return same;
}

Status send(const example::UpdateImage& image) { return example::send(slots, image, chunk); }

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
    needs.window = EXAMPLE_SIGNED_V1_WINDOW;
    needs.horizon = EXAMPLE_SIGNED_V1_HORIZON;
    needs.n_features = EXAMPLE_SIGNED_V1_N_FEATURES;
    example::RamFlash::erase(&flash, flash_memory, sizeof flash_memory);
    slots.require_signature(TrustedKeys{owner_key, OWNER_KEY_COUNT});
    const Status fresh = boot();
    expect(!fresh && has(fresh, "no committed model"), "fresh flash holds no model", fresh);

    expect(
        send(example::UpdateImage(example_signed_v1, EXAMPLE_SIGNED_V1_SIZE)).is_ok() && boot() && slots.version() == 1,
        "factory install: the owner's version 1");
    expect(forecast_matches("factory model"), "the signed model forecasts");
    // The two costs side by side: checking the signature of a whole model, and one forecast.
    auspex_insn_begin_verify();
    const Status checked =
        check_model_signature(example_signed_v2, EXAMPLE_SIGNED_V2_SIZE, TrustedKeys{owner_key, OWNER_KEY_COUNT});
    auspex_insn_end();
    expect(checked.is_ok(), "version 2's signature checks", checked);
    auspex_insn_begin_forecast();
    session.forecast(example_history, EXAMPLE_SIGNED_V1_WINDOW, EXAMPLE_SIGNED_V1_HORIZON, forecast);
    auspex_insn_end();

    example::UpdateImage unsigned_v2(example_signed_v2, EXAMPLE_SIGNED_V2_SIZE);
    unsigned_v2.send_bytes = kModelBytes;
    refused("version 2 without its signature refused", unsigned_v2, "unsigned");

    // Another key in the record (its owner signed this model): a key the device does not trust.
    example::UpdateImage foreign(example_signed_v2, EXAMPLE_SIGNED_V2_SIZE);
    for (size_t i = 0; i < 32; i += 8) {
        uint8_t other[8];
        for (size_t k = 0; k < 8; ++k) other[k] = static_cast<uint8_t>(owner_key[0][i + k] ^ 0x5a);
        foreign.set(kModelBytes + 24 + i, other, 8);
    }
    refused("version 2 signed by another key refused", foreign, "does not trust");

    // The weights changed and the checksum made whole again: only the signature can tell.
    example::UpdateImage forged(example_signed_v2, EXAMPLE_SIGNED_V2_SIZE);
    forged.model_bytes = kModelBytes;  // reseal() covers the model's bytes only
    const bool resealed = forged.flip(kModelBytes - kModelBytes / 3, 0x08) && forged.reseal();
    forged.model_bytes = EXAMPLE_SIGNED_V2_SIZE;
    expect(resealed, "a changed version 2 with a valid checksum");
    refused("changed version 2 refused", forged, "changed after signing");

    example::UpdateImage bad_signature(example_signed_v2, EXAMPLE_SIGNED_V2_SIZE);
    bad_signature.flip(EXAMPLE_SIGNED_V2_SIZE - 7, 0x01);
    refused("version 2 with a flipped signature bit refused", bad_signature, "changed after signing");

    const Status good = send(example::UpdateImage(example_signed_v2, EXAMPLE_SIGNED_V2_SIZE));
    expect(good && slots.version() == 2, "the owner's version 2 becomes active", good);
    expect(boot() && slots.version() == 2 && forecast_matches("after reboot"), "version 2 forecasts after a reboot");
    refused("the owner's older version 1 refused", example::UpdateImage(example_signed_v1, EXAMPLE_SIGNED_V1_SIZE),
            "not newer");

    std::fprintf(stderr, "auspex: signed A/B slots of %lu bytes: %d checks, %d failed\n",
                 static_cast<unsigned long>(kSlotBytes), checks.count, checks.failures);
    for (size_t t = 0; t < EXAMPLE_SIGNED_V1_HORIZON; ++t)
        for (size_t i = 0; i < EXAMPLE_SIGNED_V1_N_FEATURES; ++i)
            std::printf(i + 1 < EXAMPLE_SIGNED_V1_N_FEATURES ? "%.9g," : "%.9g\n",
                        static_cast<double>(forecast[t * EXAMPLE_SIGNED_V1_N_FEATURES + i]));
    return checks.failures == 0 ? 0 : 1;
}
