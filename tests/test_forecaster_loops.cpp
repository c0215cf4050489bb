// Forecasters as their authors run them (tests/fixtures/gen_loop_fixtures.py, PyTorch goldens): a `pe`
// buffer with a zero first row read as a learned table, a decoder called without tgt_mask, and an
// encoder-only model reading covariates beside the column it predicts. Each is proven against the module's
// forward by its check pair and then forecast as the author's loop does.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "models/forecaster/forecaster.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace {

using ax::test::auspex;
using ax::test::check_error;
using ax::test::Result;
using ax::test::scratch_dir;

std::string fixture(const std::string& c, const std::string& f) {
    return ax::test::fixture_path("forecaster_loops/" + c + "/" + f);
}

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// `convert` of the case with its check pair (and `config`, the case's own by default); returns the result.
Result convert(const std::string& c, const std::string& out, const std::string& config = "",
               const std::string& extra = "") {
    const bool target = c != "encoder_covariates";
    return auspex("convert " + fixture(c, "model.pt") + " --config " +
                  (config.empty() ? fixture(c, "config.json") : config) + " --check-input " + fixture(c, "src.csv") +
                  (target ? " --check-target " + fixture(c, "tgt.csv") : "") + " --check-output " +
                  fixture(c, "run_out.csv") + " " + extra + " -o " + out);
}

std::string converted(const std::string& c) {
    const std::string out = (scratch_dir() / ("loops_" + c + ".axm")).string();
    const Result r = convert(c, out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(has(r, "check: the conversion matches PyTorch"));
    return out;
}

// The forecast `args` writes to a file, against the author's loop (forecast.csv).
void check_forecast(const std::string& c, const std::string& model, const std::string& args) {
    const std::string out = (scratch_dir() / ("loops_" + c + "_forecast.csv")).string();
    const Result r = auspex("forecast " + model + " --input " + fixture(c, "history.csv") + " " + args + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const ax::tools::Table got = ax::tools::read_csv(out), want = ax::tools::read_csv(fixture(c, "forecast.csv"));
    CHECK(got.header == want.header);
    ax::test::check_close(got.values, want.values, ax::test::tolerance::forecaster, c + " forecast " + args);
}

// A copy of config.json without the key line `line` (a key the check pair must then refuse).
std::string config_without(const std::string& c, const std::string& line, const std::string& name) {
    std::string text = ax::test::read_file(fixture(c, "config.json"));
    const size_t at = text.find(line);
    REQUIRE(at != std::string::npos);
    text.erase(at, line.size());
    return ax::test::write_file(name, text);
}

}  // namespace

TEST_CASE("loops: a pe buffer whose first row is zero (the padding row) runs as a learned table and matches PyTorch") {
    const std::string model = converted("pe_zero_row");
    const auto m = ax::tools::open_model(model);
    const ax::ForecasterConfig& c = m->as<ax::Forecaster>().config();
    CHECK(c.positions.encoder == ax::format::PositionalEncoding::learned);
    CHECK(c.max_positions == 64);
    // The table holds the zero row as the checkpoint does: position 0 adds nothing.
    bool found = false;
    for (uint32_t i = 0; i < m->file.tensor_count(); ++i) {
        const ax::TensorView v = m->file.tensor(i);
        if (v.role != ax::format::Role::src_pos_embed) continue;
        found = true;
        REQUIRE(v.rank == 2);
        const float* row0 = static_cast<const float*>(v.data);
        for (uint32_t j = 0; j < v.dims[1]; ++j) CHECK(row0[j] == 0.0f);
    }
    CHECK(found);
    check_forecast("pe_zero_row", model, "--horizon 8");
}

TEST_CASE("loops: a decoder called without tgt_mask is decoder_mask none, proven, and forecast as the author's loop") {
    const std::string model = converted("decoder_unmasked");
    // The tutorial's causal mask does not reproduce this forward: the check pair refuses it.
    const std::string causal = config_without("decoder_unmasked", "\n  \"decoder_mask\": \"none\",", "causal.json");
    check_error(convert("decoder_unmasked", (scratch_dir() / "causal.axm").string(), causal), 1,
                "does not reproduce PyTorch's output");
    // The KV-cached path recomputes (every row changes as one is appended), the same numbers as --recompute,
    // on one thread and on two.
    for (const char* args : {"--horizon 8", "--horizon 8 --recompute", "--horizon 8 --threads 2"})
        check_forecast("decoder_unmasked", model, args);
    const Result inspect = auspex("inspect " + model);
    REQUIRE_MESSAGE(inspect.exit_code == 0, inspect.output);
    CHECK(has(inspect, "decoder_mask none: every decoder row attends to every other"));
    // The integer-only mode reuses cached rows: refused, naming why.
    check_error(convert("decoder_unmasked", (scratch_dir() / "unmasked_int.axm").string(), "",
                        "--dtype int8 --integer-only --calib " + fixture("decoder_unmasked", "history.csv") +
                            " --calib-window 12 --calib-horizon 4"),
                1, "needs a causal decoder (decoder_mask causal)");
}

TEST_CASE("loops: --find-config finds decoder_mask none from the check pair") {
    const std::string config = config_without("decoder_unmasked", "\n  \"decoder_mask\": \"none\",", "search.json");
    const std::string found = (scratch_dir() / "found_unmasked.json").string();
    const Result r =
        auspex("convert " + fixture("decoder_unmasked", "model.pt") + " --config " + config + " --find-config " +
               found + " --check-input " + fixture("decoder_unmasked", "src.csv") + " --check-target " +
               fixture("decoder_unmasked", "tgt.csv") + " --check-output " +
               fixture("decoder_unmasked", "run_out.csv") + " -o " + (scratch_dir() / "found_unmasked.axm").string());
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(has(r, "decoder_mask none"), r.output);
    CHECK(ax::test::read_file(found).find("\"decoder_mask\": \"none\"") != std::string::npos);
}

TEST_CASE("loops: --horizon past the trained horizon of a model feeding predictions back gets a note") {
    const std::string model = converted("decoder_unmasked");
    const std::string history = " --input " + fixture("decoder_unmasked", "history.csv");
    const Result longer = auspex("forecast " + model + history + " --horizon 10");
    REQUIRE_MESSAGE(longer.exit_code == 0, longer.output);
    CHECK_MESSAGE(has(longer, "note: --horizon 10 is past the 8 steps the model was trained to forecast"),
                  longer.output);
    const Result trained = auspex("forecast " + model + history + " --horizon 8");
    REQUIRE_MESSAGE(trained.exit_code == 0, trained.output);
    CHECK_MESSAGE(!has(trained, "note:"), trained.output);
    const Result inspect = auspex("inspect " + model);
    CHECK(has(inspect, "trained to forecast 8 steps"));
}

TEST_CASE("loops: an encoder-only model with covariates forecasts with their plan as the window slides") {
    const std::string model = converted("encoder_covariates");
    check_forecast("encoder_covariates", model, "--horizon 12 --future " + fixture("encoder_covariates", "future.csv"));
    // Without the plan the covariates' future is unknown: refused, naming them.
    const Result no_plan =
        auspex("forecast " + model + " --input " + fixture("encoder_covariates", "history.csv") + " --horizon 12");
    check_error(no_plan, 1, "\"temperature\", \"occupancy\", which it does not predict");
    CHECK(has(no_plan, "--future FILE"));
}

TEST_CASE("loops: verify --expected names the outputs as the model does, and an encoder-only one takes no --target") {
    const std::string model = converted("encoder_covariates");
    // PyTorch's outputs saved without a header, as np.savetxt writes them.
    const ax::tools::Table want = ax::tools::read_csv(fixture("encoder_covariates", "run_out.csv"));
    std::string text;
    for (float v : want.values) text += std::to_string(v) + "\n";
    const std::string bare = ax::test::write_file("bare_run_out.csv", text);
    const Result r =
        auspex("verify " + model + " --input " + fixture("encoder_covariates", "src.csv") + " --expected " + bare);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(has(r, "  load "), r.output);
    CHECK(!has(r, "output_0"));
}

TEST_CASE("loops: a one-pass decoder without its causal mask runs its trained horizon only, and says so") {
    const std::string dir = ax::test::fixture_path("forecaster_onepass/informer_zeros/");
    std::string text = ax::test::read_file(dir + "config.json");
    text.insert(text.find('{') + 1, "\n  \"decoder_mask\": \"none\",");
    const std::string config = ax::test::write_file("onepass_unmasked.json", text);
    const std::string model = (scratch_dir() / "onepass_unmasked.axm").string();
    const Result converted = auspex("convert " + dir + "model.pt --config " + config + " -o " + model);
    REQUIRE_MESSAGE(converted.exit_code == 0, converted.output);
    const Result full = auspex("forecast " + model + " --input " + dir + "history.csv --horizon 10");
    CHECK_MESSAGE(full.exit_code == 0, full.output);
    check_error(auspex("forecast " + model + " --input " + dir + "history.csv --horizon 4"), 1,
                "only its trained horizon (10) is its forward; use --horizon 10");
}
