// Scrubbing on the board (runtime/checksum_scrub.h, auspex_scrub_*): a model in flash is re-checked a few
// bytes per call while a session forecasts from it, and a bit flipped in a RAM copy is found wherever it is.
#include <cstdint>
#include <cstring>

#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#include "api/auspex.h"
#include "runtime/checksum_scrub.h"
#include "tests/firmware/doctest_config.h"
#include "tests/firmware/fixture_cases.h"

namespace {

using namespace ax;

alignas(64) uint8_t scrub_copy[64 * 1024];

}  // namespace

TEST_CASE("scrubbing on the board: a flash model re-checked between forecasts, flips in a RAM copy found") {
    // The largest model forecasting from flash while it is scrubbed in 4 KB steps.
    const fw::FixtureCase* c = &fw::kFixtureCases[0];
    for (size_t k = 1; k < fw::kFixtureCaseCount; ++k)
        if (fw::kFixtureCases[k].model_size > c->model_size && fw::kFixtureCases[k].history) c = &fw::kFixtureCases[k];
    REQUIRE(c->history != nullptr);
    ModelFile file;
    Forecaster model;
    ForecastSession session;
    REQUIRE(ModelFile::open(c->model, c->model_size, Checksum::verify, &file).is_ok());
    REQUIRE(Forecaster::open(file, &model).is_ok());
    REQUIRE(session.init(model, best_kernels(), fw::fixture_arena, fw::kFixtureArenaBytes, c->window, 4).is_ok());
    static float first[4 * 16], again[4 * 16];
    REQUIRE(c->n_features * 4 <= sizeof first / sizeof first[0]);
    REQUIRE(session.forecast(c->history, c->window, 4, first).is_ok());
    ChecksumScrub scrub;
    REQUIRE(scrub.start(c->model, c->model_size).is_ok());
    size_t calls = 0;
    const size_t expected_calls = (c->model_size - 24 + 4095) / 4096;
    while (!scrub.finished()) {
        const uint64_t before = scrub.bytes_done();
        REQUIRE(scrub.step(4096).is_ok());
        CHECK(scrub.bytes_done() - before <= 4096);
        ++calls;
        if (calls == 1 || calls == expected_calls / 2) {  // a forecast early and midway (soft float is slow)
            REQUIRE(session.forecast(c->history, c->window, 4, again).is_ok());
            CHECK(std::memcmp(first, again, c->n_features * 4 * sizeof(float)) == 0);
        }
    }
    CHECK(calls == expected_calls);

    // The smallest model in RAM: a flip of one bit anywhere in it (sampled), found by a pass of 1-byte,
    // 1000-byte and whole-model steps.
    const fw::FixtureCase* s = &fw::kFixtureCases[0];
    for (size_t k = 1; k < fw::kFixtureCaseCount; ++k)
        if (fw::kFixtureCases[k].model_size < s->model_size) s = &fw::kFixtureCases[k];
    REQUIRE(s->model_size <= sizeof scrub_copy);
    std::memcpy(scrub_copy, s->model, s->model_size);
    uint32_t lcg = 777;
    size_t found = 0;
    const size_t trials = 24;
    for (size_t t = 0; t < trials; ++t) {
        lcg = lcg * 1664525u + 1013904223u;
        const size_t at = t < 8 ? t * 3 : lcg % s->model_size;  // the header's first bytes too
        const uint8_t bit = static_cast<uint8_t>(1u << (t % 8));
        const size_t step = t % 3 == 0 ? 1 : t % 3 == 1 ? 1000 : s->model_size;
        scrub_copy[at] ^= bit;
        Status r = scrub.start(scrub_copy, s->model_size);
        while (r && !scrub.finished()) r = scrub.step(step);
        if (r.code() == StatusCode::bad_model) ++found;
        scrub_copy[at] ^= bit;
    }
    CHECK(found == trials);

    // The C API on the intact copy, then with a flip.
    static auspex_scrub cs;
    REQUIRE(auspex_scrub_start(&cs, scrub_copy, s->model_size) == AUSPEX_OK);
    int r = AUSPEX_IN_PROGRESS;
    while (r == AUSPEX_IN_PROGRESS) r = auspex_scrub_step(&cs, 512);
    CHECK(r == AUSPEX_OK);
    scrub_copy[s->model_size - 1] ^= 1;
    REQUIRE(auspex_scrub_start(&cs, scrub_copy, s->model_size) == AUSPEX_OK);
    r = AUSPEX_IN_PROGRESS;
    while (r == AUSPEX_IN_PROGRESS) r = auspex_scrub_step(&cs, 512);
    CHECK(r == AUSPEX_BAD_MODEL);
    CHECK(std::strstr(auspex_scrub_message(&cs), "checksum mismatch") != nullptr);
    scrub_copy[s->model_size - 1] ^= 1;
}
