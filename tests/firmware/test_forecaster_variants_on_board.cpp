// The forecaster variants on the board (encoder-only heads, the sliding window, one-pass decoding, patches and
// RevIN, a decoder fed the outputs): each forecasts in a static arena of the exact size the runtime asks
// for, gives bit for bit what the host computes on the generic port from the same bytes, and (f32) matches
// the forecast of its author's PyTorch loop within the host suite's bound.
#include <cmath>
#include <cstdio>
#include <cstring>

#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#include "tests/firmware/doctest_config.h"
#include "tests/firmware/fixture_cases.h"
#include "tests/tolerances.h"

namespace {

using namespace ax;

float variant_out[1024];

// Values whose bits differ, and the largest |got - want| / max(1, |want|).
size_t differing(const float* got, const float* want, size_t n, double* worst) {
    size_t differ = 0;
    *worst = 0.0;
    for (size_t i = 0; i < n; ++i) {
        differ += std::memcmp(&got[i], &want[i], sizeof(float)) != 0;
        const double e = std::fabs(static_cast<double>(got[i]) - want[i]) / std::fmax(1.0, std::fabs(want[i]));
        if (!(e <= *worst)) *worst = e;
    }
    return differ;
}

}  // namespace

TEST_CASE("forecaster variants on the board: the host's bits and PyTorch's forecast") {
    REQUIRE(fw::kVariantCaseCount > 0);
    for (size_t k = 0; k < fw::kVariantCaseCount; ++k) {
        const fw::VariantCase& c = fw::kVariantCases[k];
        INFO("variant " << doctest::String(c.name) << " " << doctest::String(c.dtype));
        static ModelFile file;
        static Forecaster model;
        static ForecastSession session;
        REQUIRE(ModelFile::open(c.model, c.model_size, Checksum::verify, &file).is_ok());
        REQUIRE(Forecaster::open(file, &model).is_ok());
        const size_t need = model.arena_bytes(c.window, c.horizon);
        CHECK(need == c.header_arena_bytes);
        REQUIRE(need <= fw::kFixtureArenaBytes);
        REQUIRE(session.init(model, generic_kernels(), fw::fixture_arena, need, c.window, c.horizon).is_ok());
        const size_t values = c.horizon * c.n_outputs;
        REQUIRE(values <= sizeof variant_out / sizeof variant_out[0]);
        REQUIRE(c.history_rows == c.window);
        REQUIRE(session.forecast(c.history, c.history_rows, c.horizon, variant_out, c.future, c.future_rows).is_ok());
        double worst_host = 0, worst_torch = 0;
        const size_t differ = differing(variant_out, c.forecast_host, values, &worst_host);
        differing(variant_out, c.forecast_torch, values, &worst_torch);
        std::printf("%-28s %-4s arena %6lu bytes: %lu/%lu differ from the host; vs PyTorch %.2g\n", c.name, c.dtype,
                    static_cast<unsigned long>(need), static_cast<unsigned long>(differ),
                    static_cast<unsigned long>(values), worst_torch);
        CHECK(differ == 0);
        if (std::strcmp(c.dtype, "f32") == 0) CHECK(worst_torch <= test::tolerance::forecaster);
    }
}
