// The forecaster on the board against PyTorch and against the host: every embedded fixture runs its
// teacher-forced pass and its 24-step forecast in a static arena of the exact size the runtime asks for.
//  - f32 models match PyTorch's outputs within the host suite's forecaster bound (tests/tolerances.h);
//  - every model (f32, f16, int8) gives bit for bit what the host computes on the generic port from the
//    same bytes (the runtime's arithmetic is deterministic and uses its own exp/erf/sin/cos, not libm's);
//  - the KV-cached forecast matches the full recompute within tests/tolerances.h's kv_cache bound.
// The board runs the generic port, whose bits are the host's: the host suite's committed int8 goldens
// (tests/test_int8_goldens.cpp) therefore pin the board's int8 results too.
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
using fw::FixtureCase;

constexpr double kTorchTolerance = test::tolerance::forecaster;
constexpr double kRecomputeTolerance = test::tolerance::kv_cache;

struct Diff {
    double worst = 0.0;  // largest |got - want| / max(1, |want|)
    size_t differ = 0;   // values whose bits differ
    size_t count = 0;
};

Diff compare(const float* got, const float* want, size_t n) {
    Diff d;
    d.count = n;
    for (size_t i = 0; i < n; ++i) {
        if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) ++d.differ;
        const double w = want[i];
        const double e = std::fabs(static_cast<double>(got[i]) - w) / std::fmax(1.0, std::fabs(w));
        if (!(e <= d.worst)) d.worst = e;  // NaN counts as the worst
    }
    return d;
}

void describe(const char* what, const Diff& d) {
    if (d.differ == 0)
        std::printf(" %s bit-identical;", what);
    else
        std::printf(" %s %lu/%lu differ (max %.2g);", what, static_cast<unsigned long>(d.differ),
                    static_cast<unsigned long>(d.count), d.worst);
}

float out[4096];
float again[4096];

struct Opened {
    ModelFile file;
    Forecaster model;
    ForecastSession session;
};

// newlib's printf here lacks %zu: sizes are printed as unsigned long.
// Opens the case and lays a session out in exactly arena_bytes(window, horizon) bytes of the static arena.
void open_case(const FixtureCase& c, Opened* o) {
    REQUIRE(ModelFile::open(c.model, c.model_size, Checksum::verify, &o->file).is_ok());
    REQUIRE(Forecaster::open(o->file, &o->model).is_ok());
    const size_t need = o->model.arena_bytes(c.window, c.horizon);
    REQUIRE(need > 0);
    REQUIRE(need <= fw::kFixtureArenaBytes);
    // The header's figure was computed on the 64-bit host; the arena's layout does not depend on pointer
    // width (MemoryPlan::alloc_records), so it is this board's exact need.
    CHECK(need == c.header_arena_bytes);
    const Status s = o->session.init(o->model, generic_kernels(), fw::fixture_arena, need, c.window, c.horizon);
    INFO(s.message());
    REQUIRE(s.is_ok());
}

}  // namespace

TEST_CASE("every embedded PyTorch fixture: outputs match PyTorch (f32) and the host (all dtypes) on the board") {
    REQUIRE(fw::kFixtureCaseCount > 0);
    for (size_t k = 0; k < fw::kFixtureCaseCount; ++k) {
        const FixtureCase& c = fw::kFixtureCases[k];
        INFO("case " << doctest::String(c.name) << " " << doctest::String(c.dtype));
        static Opened o;
        open_case(c, &o);
        const bool f32 = std::strcmp(c.dtype, "f32") == 0;
        std::printf("%-20s %-4s arena %6lu bytes (host header %6lu):", c.name, c.dtype,
                    static_cast<unsigned long>(o.model.arena_bytes(c.window, c.horizon)),
                    static_cast<unsigned long>(c.header_arena_bytes));

        const size_t run_values = c.tgt_rows * c.n_outputs;
        REQUIRE(run_values <= sizeof out / sizeof out[0]);
        REQUIRE(o.session.run(c.src, c.src_rows, c.tgt, c.tgt_rows, InputSpace::model, out).is_ok());
        const Diff run_host = compare(out, c.run_host, run_values);
        describe("run vs host", run_host);
        CHECK(run_host.differ == 0);
        if (f32) {
            const Diff run_torch = compare(out, c.run_torch, run_values);
            std::printf(" run vs PyTorch %.2g;", run_torch.worst);
            CHECK(run_torch.worst <= kTorchTolerance);
        }

        if (c.history != nullptr) {
            const size_t h = fw::kForecastHorizon;
            const size_t values = h * c.n_features;
            REQUIRE(values <= sizeof out / sizeof out[0]);
            REQUIRE(o.session.forecast(c.history, c.history_rows, h, out).is_ok());
            const Diff fc_host = compare(out, c.forecast_host, values);
            describe("forecast vs host", fc_host);
            CHECK(fc_host.differ == 0);
            if (f32) {
                const Diff fc_torch = compare(out, c.forecast_torch, values);
                std::printf(" forecast vs PyTorch %.2g;", fc_torch.worst);
                CHECK(fc_torch.worst <= kTorchTolerance);
            }
            REQUIRE(o.session.forecast_recompute(c.history, c.history_rows, h, again).is_ok());
            CHECK(compare(again, out, values).worst <= kRecomputeTolerance);
        }
        std::printf("\n");
    }
}

TEST_CASE("a session refuses an arena one byte smaller than the runtime asks for, and runs in the exact size") {
    const FixtureCase& c = fw::kFixtureCases[0];
    static Opened o;
    open_case(c, &o);
    const size_t need = o.model.arena_bytes(c.window, c.horizon);
    ForecastSession small;
    const Status s = small.init(o.model, generic_kernels(), fw::fixture_arena, need - 1, c.window, c.horizon);
    CHECK(s.code() == StatusCode::arena_too_small);
    CHECK(std::strstr(s.message(), "needs") != nullptr);
    // Misaligned arenas are refused too.
    CHECK(small.init(o.model, generic_kernels(), fw::fixture_arena + 8, need, c.window, c.horizon).code() ==
          StatusCode::invalid_argument);
    // The exact size runs the longest sequences it was declared for, on arena bytes poisoned beforehand.
    std::memset(fw::fixture_arena, 0xA5, need);
    ForecastSession exact;
    REQUIRE(exact.init(o.model, generic_kernels(), fw::fixture_arena, need, c.window, c.horizon).is_ok());
    REQUIRE(exact.run(c.src, c.src_rows, c.tgt, c.tgt_rows, InputSpace::model, out).is_ok());
    CHECK(compare(out, c.run_host, c.tgt_rows * c.n_outputs).differ == 0);
    // Longer than declared: refused, not overrun.
    CHECK(exact.run(c.src, c.window + 1, c.tgt, c.tgt_rows, InputSpace::model, out).code() ==
          StatusCode::invalid_argument);
}
