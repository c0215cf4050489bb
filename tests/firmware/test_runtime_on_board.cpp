// Runtime checks that need no files, on the board: model validation of corrupted and truncated copies in
// RAM, the int8 kernels against the integer arithmetic they promise, half-float conversion, status
// messages without printf, and the C API giving the C++ API's results bit for bit.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>

#include "api/auspex.h"
#include "models/forecaster/forecaster.h"
#include "ports/generic/generic.h"
#include "ports/ports.h"
#include "runtime/half.h"
#include "tests/firmware/doctest_config.h"
#include "tests/firmware/fixture_cases.h"

namespace {

using namespace ax;

// Deterministic pseudo-random numbers (no <random> state on the board).
struct Lcg {
    uint32_t s;
    uint32_t next() { return s = s * 1664525u + 1013904223u; }
    int8_t i8() { return static_cast<int8_t>(static_cast<int>(next() >> 24) % 255 - 127); }
    float uniform(float lo, float hi) { return lo + (hi - lo) * static_cast<float>(next() >> 8) / 16777216.0f; }
};

const fw::FixtureCase& smallest_case() {
    const fw::FixtureCase* best = &fw::kFixtureCases[0];
    for (size_t k = 1; k < fw::kFixtureCaseCount; ++k)
        if (fw::kFixtureCases[k].model_size < best->model_size) best = &fw::kFixtureCases[k];
    return *best;
}

alignas(64) uint8_t model_copy[64 * 1024];

}  // namespace

TEST_CASE("a model copied to RAM opens; any flipped byte fails the checksum; truncation is always refused") {
    const fw::FixtureCase& c = smallest_case();
    INFO("case " << doctest::String(c.name) << " " << doctest::String(c.dtype));
    REQUIRE(c.model_size <= sizeof model_copy);
    std::memcpy(model_copy, c.model, c.model_size);
    ModelFile file;
    REQUIRE(ModelFile::open(model_copy, c.model_size, Checksum::verify, &file).is_ok());
    // A longer buffer (a flash partition) is fine: the header says where the model ends.
    CHECK(ModelFile::open(model_copy, sizeof model_copy, Checksum::verify, &file).is_ok());

    Lcg rng{12345};
    size_t refused = 0;
    const size_t trials = 200;
    for (size_t t = 0; t < trials; ++t) {
        const size_t at = 24 + rng.next() % (c.model_size - 24);  // the checksum covers [24, file_size)
        const uint8_t bit = static_cast<uint8_t>(1u << (rng.next() % 8));
        model_copy[at] ^= bit;
        const Status s = ModelFile::open(model_copy, c.model_size, Checksum::verify, &file);
        if (s.code() == StatusCode::bad_model) ++refused;
        model_copy[at] ^= bit;
    }
    CHECK(refused == trials);

    for (size_t size : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, c.model_size / 2, c.model_size - 1}) {
        INFO("truncated to " << size);
        CHECK(ModelFile::open(model_copy, size, Checksum::skip, &file).code() == StatusCode::bad_model);
    }
    // Structure is checked even when the checksum is skipped: a tensor count past the limit.
    model_copy[48 + 3] = 0x7f;
    CHECK(ModelFile::open(model_copy, c.model_size, Checksum::skip, &file).code() == StatusCode::bad_model);
    // Misaligned buffers are refused rather than read.
    CHECK(!ModelFile::open(model_copy + 4, c.model_size, Checksum::skip, &file).is_ok());
}

TEST_CASE("int8 kernels on the board: exact int32 accumulation, then one rescale in the documented order") {
    // A core with the DSP extension (M4, M7) or Helium (M55) must use the Cortex-M port; one without either
    // (M3) runs generic, which this test then checks the same way.
#if defined(__ARM_FEATURE_DSP) || defined(__ARM_FEATURE_MVE)
    CHECK(std::strcmp(best_kernels().name, "mcu") == 0);
#else
    CHECK(std::strcmp(best_kernels().name, "generic") == 0);
    CHECK(kernels_by_name("mcu") == nullptr);
#endif
    Lcg rng{777};
    // Tails of every length for the 4-byte (DSP) and 16-byte (Helium) steps, odd output counts.
    const size_t shapes[][3] = {{1, 1, 1},    {3, 37, 11}, {2, 64, 96}, {5, 200, 7},
                                {1, 129, 33}, {2, 15, 3},  {4, 17, 5},  {1, 3, 2}};
    static int8_t xq[5 * 200], w[96 * 200];
    static float xscale[5], wscale[96], bias[96], y[5 * 96];
    for (const auto& shape : shapes) {
        const size_t rows = shape[0], in = shape[1], out = shape[2];
        INFO("rows " << rows << " in " << in << " out " << out);
        for (size_t i = 0; i < rows * in; ++i) xq[i] = rng.i8();
        for (size_t i = 0; i < out * in; ++i) w[i] = rng.i8();
        for (size_t r = 0; r < rows; ++r) xscale[r] = rng.uniform(1e-3f, 0.1f);
        for (size_t o = 0; o < out; ++o) wscale[o] = rng.uniform(1e-3f, 0.1f);
        for (size_t o = 0; o < out; ++o) bias[o] = rng.uniform(-1.0f, 1.0f);
        const Kernels& k = best_kernels();
        k.linear_i8(xq, xscale, rows, in, w, wscale, bias, out, y, out);
        size_t mismatches = 0;
        for (size_t r = 0; r < rows; ++r)
            for (size_t o = 0; o < out; ++o) {
                int32_t acc = 0;
                for (size_t i = 0; i < in; ++i) acc += int32_t{xq[r * in + i]} * int32_t{w[o * in + i]};
                const float scale = xscale[r] * wscale[o];
                const float want = static_cast<float>(acc) * scale + bias[o];
                if (std::memcmp(&want, &y[r * out + o], sizeof want) != 0) ++mismatches;
            }
        CHECK(mismatches == 0);
    }
}

TEST_CASE("int8 activation quantization on the board: the documented rounding, zero rows, full range") {
    // Rows whose 127 / max|x| is exact, so every product below is exact too.
    const float x[] = {0, 0, 0, 0, 1.0f, -0.5f, 0.25f, 0.126f, -127.0f, 63.5f, 0.5f, 1.5f};
    int8_t q[12];
    float scales[3];
    generic::quantize_rows_i8(x, 3, 4, q, scales);
    CHECK(scales[0] == 0.0f);
    for (int i = 0; i < 4; ++i) CHECK(q[i] == 0);
    CHECK(scales[1] == 1.0f / 127.0f);
    CHECK(q[4] == 127);
    CHECK(q[5] == -64);  // -63.5 rounds half to even
    CHECK(q[6] == 32);   // 31.75
    CHECK(q[7] == 16);   // 16.002
    CHECK(scales[2] == 1.0f);
    CHECK(q[8] == -127);
    CHECK(q[9] == 64);  // 63.5 rounds half to even
    CHECK(q[10] == 0);  // 0.5 rounds half to even
    CHECK(q[11] == 2);  // 1.5 rounds half to even
}

TEST_CASE("half floats on the board: every non-NaN half survives half -> float -> half") {
    size_t broken = 0;
    for (uint32_t h = 0; h < 0x10000u; ++h) {
        const float f = half_to_float(static_cast<uint16_t>(h));
        if (std::isnan(f)) continue;
        if (float_to_half(f) != h) ++broken;
    }
    CHECK(broken == 0);
    CHECK(float_to_half(65520.0f) == 0x7c00u);  // rounds past the largest half: infinity
    CHECK(half_to_float(0x3c00u) == 1.0f);
    CHECK(half_to_float(0x0001u) == std::ldexp(1.0f, -24));
}

TEST_CASE("status messages are built in place, without printf") {
    Status s = Status::error(StatusCode::bad_model, "tensor ");
    s.add("w").add(" is ").add(-42).add(" / ").add(18446744073709551615ull).add(" ").add(1.5);
    CHECK(std::strcmp(s.message(), "tensor w is -42 / 18446744073709551615 1.50000") == 0);
    Status t = Status::error(StatusCode::bad_input, "");
    t.add(-0.000123).add(" ").add(123456.0);
    CHECK(std::strcmp(t.message(), "-1.23000e-4 1.23456e5") == 0);
    CHECK(std::strcmp(Status::ok().message(), "ok") == 0);
    Status long_message = Status::error(StatusCode::bad_model, "");
    for (int i = 0; i < 100; ++i) long_message.add("abcdefgh");
    CHECK(std::strlen(long_message.message()) < 160);
}

TEST_CASE("the C API on the board: same arena figure, bit-identical forecasts, errors as codes") {
    for (size_t k = 0; k < fw::kFixtureCaseCount; ++k) {
        const fw::FixtureCase& c = fw::kFixtureCases[k];
        if (c.history == nullptr) continue;
        INFO("case " << doctest::String(c.name) << " " << doctest::String(c.dtype));
        static auspex_forecaster fc;
        REQUIRE(auspex_open(&fc, c.model, c.model_size, 1) == AUSPEX_OK);
        CHECK(auspex_n_features(&fc) == c.n_features);
        static ModelFile file;
        static Forecaster model;
        REQUIRE(ModelFile::open(c.model, c.model_size, Checksum::verify, &file).is_ok());
        REQUIRE(Forecaster::open(file, &model).is_ok());
        const size_t need = auspex_arena_bytes(&fc, c.history_rows, fw::kForecastHorizon);
        CHECK(need == model.arena_bytes(c.history_rows, fw::kForecastHorizon));
        REQUIRE(need <= fw::kFixtureArenaBytes);
        CHECK(auspex_session_init(&fc, fw::fixture_arena, need - 1, c.history_rows, fw::kForecastHorizon) ==
              AUSPEX_ARENA_TOO_SMALL);
        REQUIRE(auspex_session_init(&fc, fw::fixture_arena, need, c.history_rows, fw::kForecastHorizon) == AUSPEX_OK);
        static float got[1024], want[1024];
        REQUIRE(c.n_features * fw::kForecastHorizon <= 1024);
        REQUIRE(auspex_forecast(&fc, c.history, c.history_rows, fw::kForecastHorizon, got) == AUSPEX_OK);
        // The C++ session then takes over the same arena.
        static ForecastSession session;
        REQUIRE(
            session.init(model, best_kernels(), fw::fixture_arena, need, c.history_rows, fw::kForecastHorizon).is_ok());
        REQUIRE(session.forecast(c.history, c.history_rows, fw::kForecastHorizon, want).is_ok());
        CHECK(std::memcmp(got, want, c.n_features * fw::kForecastHorizon * sizeof(float)) == 0);
        // The C handle's session was overwritten: re-lay it before using it again.
        REQUIRE(auspex_session_init(&fc, fw::fixture_arena, need, c.history_rows, fw::kForecastHorizon) == AUSPEX_OK);
        CHECK(auspex_forecast(&fc, c.history, c.history_rows + 1, fw::kForecastHorizon, got) ==
              AUSPEX_INVALID_ARGUMENT);
        CHECK(std::strstr(auspex_status_message(&fc), "window") != nullptr);
    }
}
