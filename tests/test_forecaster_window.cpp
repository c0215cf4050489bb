// The model's window is part of the model (#14): a forecaster stores the window it was trained on and the
// positional limit of its `pe` buffer (max_positions). Fixture forecaster/window48 is a PyTorch model with a
// 64-row buffer trained on 48-row windows, whose history.csv holds 80 rows (PyTorch refuses more than 64:
// the fixture script checks) and forecast.csv is PyTorch's forecast of the last 48. old_format.axm is the
// same model converted before these keys existed.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "ports/ports.h"
#include "api/auspex.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/converter.h"
#include "tools/host/host_session.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;
using test::auspex;
using test::check_error;
using test::Result;
using test::scratch_dir;

std::string fixture(const std::string& file) { return test::fixture_path("forecaster/window48/" + file); }

std::vector<uint8_t> convert(const std::string& config) {
    tools::ConvertOptions options;
    options.checkpoint_path = fixture("model.pt");
    options.config_path = config;
    return tools::convert_model(options);
}

// The fixture's config with `from` replaced by `to`, written to the scratch folder as `name`.
std::string config_with(const std::string& name, const std::string& from, const std::string& to) {
    std::ifstream in(fixture("config.json"));
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
    return test::write_file(name, text);
}

std::string write_model(const std::string& name, const std::vector<uint8_t>& bytes) {
    const std::string path = (scratch_dir() / name).string();
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path;
}

// Converted with the fixture's check pair: a proven model, about which forecast has nothing to say.
std::string converted_cli() {
    static const std::string path = [] {
        const std::string out = (scratch_dir() / "window48.axm").string();
        const Result r = auspex("convert " + fixture("model.pt") + " --config " + fixture("config.json") +
                                " --check-input " + fixture("src.csv") + " --check-target " + fixture("tgt.csv") +
                                " --check-output " + fixture("run_out.csv") + " -o " + out);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        return out;
    }();
    return path;
}

// The last `rows` rows of a table.
tools::Table last_rows(tools::Table t, size_t rows) {
    t.values.erase(t.values.begin(), t.values.end() - static_cast<long>(rows * t.cols));
    t.rows = rows;
    return t;
}

}  // namespace

TEST_CASE("convert stores the config's window and the pe buffer's rows as max_positions") {
    const auto m = tools::load_model_bytes(convert(fixture("config.json")), "window48");
    CHECK(m->as<Forecaster>().config().window == 48);
    CHECK(m->as<Forecaster>().config().max_positions == 64);

    // Without "window" in the config the limit is still recorded, and no window is.
    const auto no_window = tools::load_model_bytes(convert(config_with("w0.json", ",\n  \"window\": 48", "")), "w0");
    CHECK(no_window->as<Forecaster>().config().window == 0);
    CHECK(no_window->as<Forecaster>().config().max_positions == 64);

    // A window past the buffer's rows, or a max_positions contradicting them, is refused at convert.
    auto refusal = [](const std::string& config) {
        try {
            convert(config);
        } catch (const tools::ToolError& e) {
            return std::string(e.what());
        }
        return std::string("converted");
    };
    const std::string too_long = refusal(config_with("w65.json", "\"window\": 48", "\"window\": 65"));
    CHECK(too_long.find("\"window\" = 65") != std::string::npos);
    CHECK(too_long.find("64 positions") != std::string::npos);
    CHECK(too_long.find("pos_encoder.pe") != std::string::npos);
    CHECK(refusal(config_with("mp.json", "\"window\": 48", "\"window\": 48, \"max_positions\": 100"))
              .find("contradicts the 64 rows") != std::string::npos);
    CHECK(refusal(config_with("w64.json", "\"window\": 48", "\"window\": 64")) == "converted");
}

TEST_CASE("the runtime refuses windows and decoder lengths past max_positions, as PyTorch does") {
    const auto m = tools::load_model_bytes(convert(fixture("config.json")), "window48");
    const Kernels& k = *test::available_ports().back();
    tools::AlignedBuffer arena(m->as<Forecaster>().arena_bytes(65, 65));
    ForecastSession s;
    const Status window = s.init(m->as<Forecaster>(), k, arena.data(), arena.size(), 65, 24);
    CHECK(window.code() == StatusCode::invalid_argument);
    CHECK(std::string(window.message()).find("64 positions") != std::string::npos);
    // The decoder's rows take positions 0..horizon-1 (the fixture script checks PyTorch refuses 65 there).
    const Status horizon = s.init(m->as<Forecaster>(), k, arena.data(), arena.size(), 48, 65);
    CHECK(horizon.code() == StatusCode::invalid_argument);
    CHECK(std::string(horizon.message()).find("decoder length 65") != std::string::npos);
    REQUIRE(s.init(m->as<Forecaster>(), k, arena.data(), arena.size(), 64, 64).is_ok());

    // Inside the limit: PyTorch's forecast of the last 48 rows.
    const tools::Table history = last_rows(tools::read_csv(fixture("history.csv")), 48);
    std::vector<float> out(24);
    REQUIRE(s.forecast(history.values.data(), 48, 24, out.data()).is_ok());
    test::check_close(out, tools::read_csv(fixture("forecast.csv")).values, 1e-4, "window 48");
}

TEST_CASE("the C API reports the window and the limit, and refuses a session past the limit") {
    const tools::AlignedBuffer model(convert(fixture("config.json")));
    static auspex_forecaster fc;
    REQUIRE(auspex_open(&fc, model.data(), model.size(), 1) == AUSPEX_OK);
    CHECK(auspex_window(&fc) == 48);
    CHECK(auspex_max_positions(&fc) == 64);
    tools::AlignedBuffer arena(auspex_arena_bytes(&fc, 65, 24));
    CHECK(auspex_session_init(&fc, arena.data(), arena.size(), 65, 24) == AUSPEX_INVALID_ARGUMENT);
    CHECK(std::string(auspex_status_message(&fc)).find("64 positions") != std::string::npos);
    CHECK(auspex_session_init(&fc, arena.data(), arena.size(), 48, 24) == AUSPEX_OK);
}

TEST_CASE("a model file from before the window keys opens with no limit and no stated window") {
    const std::string old_path = fixture("old_format.axm");
    const auto m = tools::load_model(old_path);
    CHECK(m->as<Forecaster>().config().window == 0);
    CHECK(m->as<Forecaster>().config().max_positions == 0);
    // No limit: the whole 80-row history is accepted, as before.
    const tools::Table history = tools::read_csv(fixture("history.csv"));
    tools::HostSession s(*m, *test::available_ports().back(), history.rows, 24);
    CHECK(s.forecast(history.values.data(), history.rows, 24).size() == 24);
    // The commands' default window stays 96.
    const Result info = auspex("inspect " + old_path);
    REQUIRE_MESSAGE(info.exit_code == 0, info.output);
    CHECK(info.output.find("max_positions unlimited") != std::string::npos);
    CHECK(info.output.find("window:   not stated (commands default to 96 rows)") != std::string::npos);
    CHECK(info.output.find("for window 96, horizon 24") != std::string::npos);
    const Result bench = auspex("bench " + old_path + " --runs 1");
    REQUIRE_MESSAGE(bench.exit_code == 0, bench.output);
    CHECK(bench.output.find("window 96, horizon 24") != std::string::npos);
}

TEST_CASE("cli forecast: the model's window by default, refusals past the limit, a note for short input") {
    const std::string model = converted_cli();
    const std::string out = (scratch_dir() / "w48.csv").string();
    Result r = auspex("forecast " + model + " --input " + fixture("history.csv") + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.empty());  // no note: the input is longer than the window
    test::check_close(tools::read_csv(out).values, tools::read_csv(fixture("forecast.csv")).values, 1e-4,
                      "forecast without --window");

    check_error(auspex("forecast " + model + " --input " + fixture("history.csv") + " --window 65"), 1,
                "--window 65: a window of 65 rows is longer than the model's 64 positions (max_positions");
    check_error(auspex("forecast " + model + " --input " + fixture("history.csv") + " --horizon 65"), 1,
                "use --horizon 64 or less");

    // Shorter than the window: forecast from what there is, and say so on stderr.
    tools::Table shorter = last_rows(tools::read_csv(fixture("history.csv")), 30);
    const std::string short_csv = (scratch_dir() / "short30.csv").string();
    tools::write_csv(short_csv, shorter);
    r = auspex("forecast " + model + " --input " + short_csv + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("note: " + short_csv + " has 30 rows, fewer than the 48-row window") != std::string::npos);
    CHECK(r.output.find('\n') == r.output.size() - 1);

    // A model stating no window but a limit: all 80 rows are too many, and the error says what to do.
    const std::string no_window = write_model("w0.axm", convert(config_with("w0cli.json", ",\n  \"window\": 48", "")));
    check_error(auspex("forecast " + no_window + " --input " + fixture("history.csv")), 1,
                "has 80 rows and the model states no window: a window of 80 rows is longer than the model's 64 "
                "positions");
    r = auspex("forecast " + no_window + " --input " + fixture("history.csv") + " --window 48 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    test::check_close(tools::read_csv(out).values, tools::read_csv(fixture("forecast.csv")).values, 1e-4,
                      "forecast with --window 48");
}

TEST_CASE("cli inspect, bench, verify and header default to the model's window") {
    const std::string model = converted_cli();
    const Result info = auspex("inspect " + model);
    REQUIRE_MESSAGE(info.exit_code == 0, info.output);
    CHECK(info.output.find("max_positions 64") != std::string::npos);
    CHECK(info.output.find("window:   48 rows, the model's training window") != std::string::npos);
    CHECK(info.output.find("for window 48, horizon 24") != std::string::npos);
    check_error(auspex("inspect " + model + " --window 65"), 1, "use --window 64 or less");

    const Result bench = auspex("bench " + model + " --runs 1");
    REQUIRE_MESSAGE(bench.exit_code == 0, bench.output);
    CHECK(bench.output.find("window 48, horizon 24") != std::string::npos);
    check_error(auspex("bench " + model + " --runs 1 --window 65"), 1, "64 positions");

    const Result verify = auspex("verify " + model + " --against " + model + " --input " + fixture("history.csv"));
    REQUIRE_MESSAGE(verify.exit_code == 0, verify.output);
    CHECK(verify.output.find("window 48, horizon 24") != std::string::npos);

    const std::string header = (scratch_dir() / "w48.h").string();
    const Result h = auspex("header " + model + " -o " + header);
    REQUIRE_MESSAGE(h.exit_code == 0, h.output);
    CHECK(h.output.find("for window 48, horizon 24") != std::string::npos);
    std::ifstream in(header);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    CHECK(text.find("#define W48_WINDOW 48 ") != std::string::npos);
    check_error(auspex("header " + model + " -o " + header + " --window 65"), 1, "64 positions");
}

TEST_CASE("a file whose window passes its max_positions is refused as malformed") {
    // Patch the stored window record (key 28, value 48) to 65 and reseal the checksum.
    std::vector<uint8_t> bytes = convert(fixture("config.json"));
    bool patched = false;
    for (size_t at = 64; at + 8 <= bytes.size() && !patched; at += 8) {
        uint32_t key = 0, value = 0;
        std::memcpy(&key, &bytes[at], 4);
        std::memcpy(&value, &bytes[at + 4], 4);
        if (key == static_cast<uint32_t>(format::ConfigKey::window) && value == 48) {
            const uint32_t longer = 65;
            std::memcpy(&bytes[at + 4], &longer, 4);
            patched = true;
        }
    }
    REQUIRE(patched);
    tools::reseal_axm(bytes);
    try {
        tools::load_model_bytes(bytes, "patched");
        FAIL("a window past max_positions was accepted");
    } catch (const tools::ToolError& e) {
        CHECK(std::string(e.what()).find("window is longer than max_positions") != std::string::npos);
    }
}
