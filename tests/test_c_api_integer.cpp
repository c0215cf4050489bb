// The C API (api/auspex.h) on a model converted with --integer-only: it runs the integer-only mode
// (docs/integer-only.md), so auspex_forecast and auspex_run give the C++ integer session's bits, in an arena
// of the integer session's size, and not the int8 mode's.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/auspex.h"
#include "ports/ports.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/convert/converter.h"
#include "tools/host/host_session.h"
#include "tools/host/integer_host_session.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

const std::string kExample = std::string(AUSPEX_FIXTURE_DIR) + "/../../models/example";

std::vector<uint8_t> convert_example(bool integer_only) {
    tools::ConvertOptions o;
    o.checkpoint_path = kExample + "/forecaster.pt";
    o.config_path = kExample + "/config.json";
    o.dtype = format::DType::i8;
    o.integer_only = integer_only;
    if (integer_only) o.calib_path = kExample + "/history.csv";
    return tools::convert_model(o);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("the C API runs an integer-only model in the integer mode: the integer session's bits") {
    const std::vector<uint8_t> bytes = convert_example(true);
    const tools::AlignedBuffer model(bytes);
    const tools::Table history = tools::read_csv(kExample + "/history.csv");
    const size_t horizon = 24;

    static auspex_forecaster fc;
    REQUIRE(auspex_open(&fc, model.data(), model.size(), 1) == AUSPEX_OK);
    const auto loaded = tools::load_model_bytes(bytes, "example");
    tools::IntegerHostSession cpp(*loaded, history.rows, horizon);
    const size_t arena_bytes = auspex_arena_bytes(&fc, history.rows, horizon);
    CHECK(arena_bytes == cpp.model.arena_bytes(history.rows, horizon));
    CHECK(arena_bytes != loaded->as<Forecaster>().arena_bytes(history.rows, horizon));

    tools::AlignedBuffer arena(arena_bytes);
    REQUIRE(auspex_session_init(&fc, arena.data(), arena.size(), history.rows, horizon) == AUSPEX_OK);
    std::vector<float> got(horizon * history.cols);
    REQUIRE(auspex_forecast(&fc, history.values.data(), history.rows, horizon, got.data()) == AUSPEX_OK);
    std::vector<float> want(got.size());
    REQUIRE(cpp.session.forecast(history.values.data(), history.rows, horizon, want.data()));
    CHECK(same_bits(got, want));

    // The same file run in the int8 mode (its weights, the float rescaling) gives other values.
    tools::HostSession int8(*loaded, generic_kernels(), history.rows, horizon, /*hybrid=*/true);
    CHECK_FALSE(same_bits(got, int8.forecast(history.values.data(), history.rows, horizon)));

    // A teacher-forced pass in model space.
    const size_t rows = horizon;
    std::vector<float> run_c(rows * history.cols), run_cpp(rows * history.cols);
    REQUIRE(auspex_run(&fc, history.values.data(), rows, history.values.data(), rows, 1, run_c.data()) == AUSPEX_OK);
    REQUIRE(
        cpp.session.run(history.values.data(), rows, history.values.data(), rows, InputSpace::model, run_cpp.data()));
    CHECK(same_bits(run_c, run_cpp));

    // A model without inputs known ahead reads no future rows, as in the float modes: the same bits with them.
    const std::vector<float> future(horizon * history.cols, 0.0f);
    std::vector<float> with_future(got.size());
    CHECK(auspex_forecast_known(&fc, history.values.data(), history.rows, future.data(), horizon, horizon,
                                with_future.data()) == AUSPEX_OK);
    CHECK(same_bits(with_future, got));
    // Too small an arena is refused.
    CHECK(auspex_session_init(&fc, arena.data(), arena_bytes - 1, history.rows, horizon) == AUSPEX_ARENA_TOO_SMALL);

    // The int8 conversion of the same model still runs in the int8 mode.
    const tools::AlignedBuffer plain(convert_example(false));
    REQUIRE(auspex_open(&fc, plain.data(), plain.size(), 1) == AUSPEX_OK);
    CHECK(auspex_arena_bytes(&fc, history.rows, horizon) != arena_bytes);
}
