// The forecaster against real PyTorch modules: fixtures made by tests/fixtures/gen_forecaster_fixtures.py.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tests/fixture_case.h"
#include "tests/test_support.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/common/tool_error.h"
#include "tests/tolerances.h"
#include "tools/convert/converter.h"
#include "tools/import/assumed_defaults.h"
#include "tools/import/import_common.h"
#include "tools/text/csv.h"
#include "tools/host/host_session.h"
#include "tools/text/json.h"

namespace {

using namespace ax;

const std::string kKind = "forecaster";  // every case folder of it runs

constexpr double kTolerance = test::tolerance::forecaster;

struct Case {
    std::string dir;
    size_t horizon = 0;
    bool has_safetensors = false;
    bool has_forecast = false;
    tools::Table src, tgt, run_out, history, forecast;
};

Case load_case(const std::string& name) {
    Case c;
    c.dir = test::fixture_path(kKind + "/" + name);
    const tools::JsonValue meta = tools::parse_json_file(c.dir + "/case.json");
    c.horizon = static_cast<size_t>(meta.find("horizon")->as_int("horizon", 1, 1000));
    c.has_safetensors = meta.find("has_safetensors")->as_bool("has_safetensors");
    c.has_forecast = meta.find("has_forecast")->as_bool("has_forecast");
    c.src = tools::read_csv(c.dir + "/src.csv");
    c.tgt = tools::read_csv(c.dir + "/tgt.csv");
    c.run_out = tools::read_csv(c.dir + "/run_out.csv");
    if (c.has_forecast) {
        c.history = tools::read_csv(c.dir + "/history.csv");
        c.forecast = tools::read_csv(c.dir + "/forecast.csv");
        // A case with a stated window forecast the last `window` rows of a longer history.
        if (const tools::JsonValue* window = meta.find("window")) {
            const size_t rows = static_cast<size_t>(window->as_int("window", 1, 1000));
            REQUIRE(c.history.rows > rows);
            c.history.values.erase(c.history.values.begin(),
                                   c.history.values.end() - static_cast<long>(rows * c.history.cols));
            c.history.rows = rows;
        }
    }
    return c;
}

void check_model(const Case& c, const std::vector<uint8_t>& bytes, const std::string& label) {
    const auto model = tools::load_model_bytes(bytes, label);
    for (const Kernels* k : test::available_ports()) {
        INFO(label << " on port " << std::string(k->name));
        tools::HostSession run(*model, *k, c.src.rows, c.tgt.rows);
        test::check_close(run.run(c.src.values.data(), c.src.rows, c.tgt.values.data(), c.tgt.rows, InputSpace::model),
                          c.run_out.values, kTolerance, label + ": teacher-forced run");
        if (!c.has_forecast) continue;
        tools::HostSession fc(*model, *k, c.history.rows, c.horizon);
        const std::vector<float> cached = fc.forecast(c.history.values.data(), c.history.rows, c.horizon);
        test::check_close(cached, c.forecast.values, kTolerance, label + ": 24-step forecast");
        const std::vector<float> full = fc.forecast_recompute(c.history.values.data(), c.history.rows, c.horizon);
        test::check_close(cached, full, test::tolerance::kv_cache,
                          label + ": KV-cached forecast against full recompute");
    }
}

}  // namespace

TEST_CASE("forecaster matches PyTorch on every fixture, from .pt and .safetensors") {
    for (const std::string& name : test::fixture_cases(kKind)) {
        INFO("case " << std::string(name));
        const Case c = load_case(name);
        tools::ConvertOptions options;
        options.config_path = c.dir + "/config.json";
        options.checkpoint_path = c.dir + "/model.pt";
        check_model(c, tools::convert_model(options), std::string(name) + " (.pt)");
        if (c.has_safetensors) {
            options.checkpoint_path = c.dir + "/model.safetensors";
            check_model(c, tools::convert_model(options), std::string(name) + " (.safetensors)");
        }
    }
}

TEST_CASE("a seed-style forecaster's stray encoder_layer/decoder_layer copies are left out, with one note each") {
    // self.encoder_layer / self.decoder_layer stay registered after nn.TransformerEncoder/Decoder cloned
    // them: the state_dict holds an untrained copy of each that the forward never reaches.
    const Case c = load_case("seed_stray_layers");
    tools::ConvertOptions options;
    options.config_path = c.dir + "/config.json";
    options.checkpoint_path = c.dir + "/model.pt";
    std::vector<std::string> all, notes;
    tools::convert_model(options, &all);
    for (const std::string& n : all)
        if (n.compare(0, 9, "left out ") == 0) notes.push_back(n);
    REQUIRE(notes.size() == 2);
    CHECK(notes[0].find("left out decoder_layer.* (18 tensors)") == 0);
    CHECK(notes[1].find("left out encoder_layer.* (12 tensors)") == 0);
    // The same group with trained values cannot be told from a layer the forward uses: refused, naming the
    // map line that drops it.
    tools::TensorMap tensors = tools::read_checkpoint(options.checkpoint_path);
    tensors.at("encoder_layer.norm1.weight").data[0] = 1.5f;
    tools::AxmModel m;
    tools::CheckpointTensors ck(tensors);
    for (const auto& [name, t] : tensors)
        if (name.compare(0, 14, "encoder_layer.") != 0 && name.compare(0, 14, "decoder_layer.") != 0)
            ck.mark_used(name);
    try {
        tools::leave_out_stray_layers(ck, m);
        FAIL("a trained stray layer was left out silently");
    } catch (const tools::ToolError& e) {
        INFO(e.what());
        CHECK(std::string(e.what()).find("\"encoder_layer.{rest*} -> -\"") != std::string::npos);
    }
}

TEST_CASE("convert says which config values it took by default, and the model file records them for inspect") {
    const Case c = load_case("post_relu_tril");
    namespace fs = std::filesystem;
    const fs::path config = fs::temp_directory_path() / ("auspex_defaults_" + std::to_string(::getpid()) + ".json");
    std::ofstream(config) << R"({"arch": "forecaster", "nhead": 4, "layer_norm_eps": 1e-5})";
    tools::ConvertOptions options;
    options.config_path = config.string();
    options.checkpoint_path = c.dir + "/model.pt";
    std::vector<std::string> notes;
    const std::vector<uint8_t> bytes = tools::convert_model(options, &notes);
    fs::remove(config);
    REQUIRE(notes.size() == 1);
    INFO(notes[0]);
    CHECK(notes[0].find(
              "assumed (not in the config): \"activation\": \"relu\", \"norm_first\": false, "
              "\"positional_encoding\": \"sinusoidal\" (from the tensors), \"memory_mask\": \"none\" (the decoder "
              "sees all of the memory") == 0);
    CHECK(notes[0].find("layer_norm_eps") == std::string::npos);  // stated
    const auto model = tools::load_model_bytes(bytes, "defaults");
    uint32_t bits = 0;
    REQUIRE(model->file.config(format::ConfigKey::defaults, &bits));
    CHECK(tools::assumed_defaults_text(bits) ==
          "activation, norm_first, positional_encoding, memory_mask, normalization");
}

TEST_CASE("a session runs in exactly the arena size the model reports, and not one byte less") {
    const Case c = load_case("pre_gelu_none_final");
    tools::ConvertOptions options;
    options.config_path = c.dir + "/config.json";
    options.checkpoint_path = c.dir + "/model.pt";
    const auto model = tools::load_model_bytes(tools::convert_model(options), "model");
    const size_t bytes = model->as<Forecaster>().arena_bytes(c.history.rows, c.horizon);
    REQUIRE(bytes > 0);
    tools::AlignedBuffer arena(bytes + 64);
    // Fill past the end with a pattern: a session that wrote beyond its size would change it.
    for (size_t i = bytes; i < bytes + 64; ++i) arena.data()[i] = 0xA5;
    ForecastSession session;
    CHECK(session
              .init(model->as<Forecaster>(), *test::available_ports().back(), arena.data(), bytes - 1, c.history.rows,
                    c.horizon)
              .code() == StatusCode::arena_too_small);
    REQUIRE(session
                .init(model->as<Forecaster>(), *test::available_ports().back(), arena.data(), bytes, c.history.rows,
                      c.horizon)
                .is_ok());
    std::vector<float> out(c.horizon * 3);
    REQUIRE(session.forecast(c.history.values.data(), c.history.rows, c.horizon, out.data()).is_ok());
    test::check_close(out, c.forecast.values, kTolerance, "forecast inside the exact arena");
    for (size_t i = bytes; i < bytes + 64; ++i) CHECK(arena.data()[i] == 0xA5);
}

TEST_CASE("the bundled example forecaster reproduces PyTorch's own forecast of the demo window") {
    const std::string dir = std::string(AUSPEX_SOURCE_DIR) + "/models/example";
    tools::ConvertOptions options;
    options.checkpoint_path = dir + "/forecaster.pt";
    options.config_path = dir + "/config.json";
    const auto model = tools::load_model_bytes(tools::convert_model(options), "example");
    const tools::Table history = tools::read_csv(dir + "/history.csv");
    const tools::Table expected = tools::read_csv(dir + "/expected_forecast.csv");
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        tools::HostSession s(*model, *k, history.rows, expected.rows);
        test::check_close(s.forecast(history.values.data(), history.rows, expected.rows), expected.values, kTolerance,
                          "example forecast");
    }
}
