// The forecasters people write that are not step-by-step encoder-decoders, against their own PyTorch
// forward and their author's inference loop: fixtures made by tests/fixtures/gen_onepass_fixtures.py in the
// style of the public models (TransAm's sliding window, flatten / last-row / mean+MLP heads, an Informer-style
// one-pass decoder).
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "tests/fixture_case.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/convert/config_search.h"
#include "tools/convert/conversion_check.h"
#include "tools/convert/converter.h"
#include "tools/host/column_names.h"
#include "tools/host/host_session.h"
#include "tools/text/csv.h"
#include "tools/text/json.h"

namespace {

using namespace ax;

const std::string kKind = "forecaster_onepass";  // every case folder of it runs

using test::ForecastCase;

ForecastCase onepass(const std::string& name) { return test::load_forecast_case(kKind, name); }

std::vector<uint8_t> convert(const ForecastCase& c, format::DType dtype = format::DType::f32) {
    test::CaseConversion how;
    how.dtype = dtype;
    return test::convert_forecast_case(c, how);
}

std::string error_of(const ForecastCase& c, const std::string& config_text) {
    test::CaseConversion how;
    how.config_text = config_text;
    std::string message;
    try {
        test::convert_forecast_case(c, how);
    } catch (const tools::ToolError& e) {
        message = e.what();
    }
    INFO(message);
    CHECK(!message.empty());
    return message;
}

}  // namespace

TEST_CASE("forecaster variants reproduce their author's PyTorch forecast on every port") {
    for (const std::string& name : test::fixture_cases(kKind)) {
        INFO("case " << std::string(name));
        const ForecastCase c = onepass(name);
        const auto model = tools::load_model_bytes(convert(c), name);
        const ForecasterConfig& config = model->as<Forecaster>().config();
        CHECK(config.n_outputs == c.forecast.cols);
        for (const Kernels* k : test::available_ports()) {
            INFO("port " << std::string(k->name));
            tools::HostSession s(*model, *k, c.window, c.horizon);
            const std::vector<float> got = s.forecast(c.history.values.data(), c.window, c.horizon);
            test::check_close(got, c.forecast.values, test::tolerance::forecaster, std::string(name) + ": forecast");
            // A shorter forecast is the same model's first steps (one-pass heads give them at once; causal
            // decoders do not look ahead; the sliding window stops earlier).
            const size_t shorter = c.horizon / 2;
            tools::HostSession part(*model, *k, c.window, shorter);
            const std::vector<float> first = part.forecast(c.history.values.data(), c.window, shorter);
            test::check_close(first, std::vector<float>(got.begin(), got.begin() + first.size()),
                              test::tolerance::kv_cache, std::string(name) + ": first steps");
        }
    }
}

TEST_CASE("forecaster variants: the weights tell the variant, the config only what they cannot") {
    const auto config_of = [](const char* name) {
        return tools::load_model_bytes(convert(onepass(name)), name)->as<Forecaster>().config();
    };
    const ForecasterConfig transam = config_of("transam");
    CHECK(transam.encoder_only());
    CHECK(transam.head.kind == format::ForecastHead::generator);
    CHECK(transam.input.kind == format::InputEmbedding::broadcast);
    CHECK(transam.stack.encoder_causal);
    const ForecasterConfig flat = config_of("flatten_covariates");
    CHECK(flat.head.kind == format::ForecastHead::flatten);  // [12, 24 x 16]: the flattened window
    CHECK(flat.window == 24);
    CHECK(flat.horizon == 12);
    CHECK(flat.n_features == 3);
    CHECK(flat.n_outputs == 1);
    CHECK(flat.positions.encoder == format::PositionalEncoding::learned);
    CHECK(flat.max_positions == 24);
    CHECK(flat.input.scale == doctest::Approx(4.0));
    const ForecasterConfig mean = config_of("mean_mlp");
    CHECK(mean.head.kind == format::ForecastHead::mean);
    CHECK(mean.head.hidden == 32);
    CHECK(mean.n_outputs == 2);
    CHECK(mean.horizon == 6);
    const ForecasterConfig informer = config_of("informer_zeros");
    CHECK(informer.decoding.mode == format::Decoding::one_pass);
    CHECK(informer.decoding.label_len == 6);
    CHECK(informer.stack.decoder_layers == 1);
    const ForecasterConfig patched = config_of("patchtst_revin");
    CHECK(patched.input.patch_len == 8);
    CHECK(patched.input.patch_stride == 4);
    CHECK(patched.input.patch_pad);
    CHECK(patched.encoder_rows(32) == 8);  // (32 + 4 - 8) / 4 + 1 patches
    CHECK(patched.normalizer.revin == format::Revin::affine);
    CHECK(patched.head.kind == format::ForecastHead::flatten);
    CHECK(patched.n_outputs == 3);
    const ForecasterConfig raw = config_of("raw_features");
    CHECK(raw.input.kind == format::InputEmbedding::none);  // no input Linear: d_model = n_features
    CHECK(raw.n_features == 4);
}

TEST_CASE("forecaster variants run in exactly the arena they report, and a teacher-forced run is the forward") {
    for (const std::string& name : test::fixture_cases(kKind)) {
        INFO("case " << std::string(name));
        const ForecastCase c = onepass(name);
        const auto model = tools::load_model_bytes(convert(c), name);
        const size_t bytes = model->as<Forecaster>().arena_bytes(c.window, c.horizon);
        REQUIRE(bytes > 0);
        tools::AlignedBuffer arena(bytes + 64);
        for (size_t i = bytes; i < bytes + 64; ++i) arena.data()[i] = 0xA5;
        const Kernels& k = *test::available_ports().back();
        ForecastSession s;
        CHECK(s.init(model->as<Forecaster>(), k, arena.data(), bytes - 1, c.window, c.horizon).code() ==
              StatusCode::arena_too_small);
        REQUIRE(s.init(model->as<Forecaster>(), k, arena.data(), bytes, c.window, c.horizon).is_ok());
        std::vector<float> out(c.forecast.values.size());
        REQUIRE(s.forecast(c.history.values.data(), c.window, c.horizon, out.data()).is_ok());
        test::check_close(out, c.forecast.values, test::tolerance::forecaster, "forecast inside the exact arena");
        for (size_t i = bytes; i < bytes + 64; ++i) CHECK(arena.data()[i] == 0xA5);
        const ForecasterConfig& config = model->as<Forecaster>().config();
        if (config.encoder_only() && config.head.kind != format::ForecastHead::generator) {
            // The model's forward(x) is the forecast.
            std::vector<float> run(config.run_rows(c.window, 0) * config.n_outputs);
            REQUIRE(s.run(c.history.values.data(), c.window, nullptr, 0, InputSpace::model, run.data()).is_ok());
            test::check_close(run, out, 0.0, "run of a one-pass encoder-only model");
        }
    }
}

// Their int8 bits on the generic port are held by tests/test_int8_goldens.cpp.
TEST_CASE("forecaster variants quantized: f16 and int8 stay close to PyTorch on every port") {
    for (const std::string& name : test::fixture_cases(kKind)) {
        INFO("case " << std::string(name));
        const ForecastCase c = onepass(name);
        const double scale = test::rms(c.forecast.values);
        for (const auto& dtype_bound : {std::pair{format::DType::f16, 2e-3}, std::pair{format::DType::i8, 6e-2}}) {
            // Named copies: clang refuses structured bindings inside doctest's INFO capture.
            const format::DType dtype = dtype_bound.first;
            const double bound = dtype_bound.second;
            const auto model = tools::load_model_bytes(convert(c, dtype), name);
            for (const Kernels* k : test::available_ports()) {
                INFO("dtype " << static_cast<int>(dtype) << " port " << std::string(k->name));
                tools::HostSession s(*model, *k, c.window, c.horizon);
                const std::vector<float> got = s.forecast(c.history.values.data(), c.window, c.horizon);
                double worst = 0;
                for (size_t i = 0; i < got.size(); ++i) {
                    const double d = std::fabs(got[i] - c.forecast.values[i]);
                    worst = d > worst ? d : worst;
                }
                CHECK(worst <= bound * scale);
            }
        }
    }
}

TEST_CASE("forecaster variants: what the weights cannot tell is asked for, what contradicts them is refused") {
    const ForecastCase transam = onepass("transam");
    std::string e = error_of(transam, R"({"arch": "forecaster", "nhead": 4, "encoder_mask": "causal"})");
    CHECK(e.find("state \"head\"") != std::string::npos);
    CHECK(e.find("\"generator\"") != std::string::npos);
    const ForecastCase flat = onepass("flatten_covariates");
    e = error_of(flat, R"({"arch": "forecaster", "nhead": 2, "positional_encoding": "sinusoidal", "horizon": 12})");
    CHECK(e.find("contradicts the checkpoint's learned position table pos_embedding") != std::string::npos);
    e = error_of(flat, R"({"arch": "forecaster", "nhead": 2, "head": "last_row", "horizon": 12})");
    CHECK(e.find("contradicts output_layer.weight [12, 384]") != std::string::npos);
    e = error_of(flat, R"({"arch": "forecaster", "nhead": 2})");
    CHECK(e.find("state \"horizon\"") != std::string::npos);
    e = error_of(flat, R"({"arch": "forecaster", "nhead": 2, "horizon": 5})");
    CHECK(e.find("\"horizon\"") != std::string::npos);
    const ForecastCase informer = onepass("informer_zeros");
    e = error_of(informer, R"({"arch": "forecaster", "nhead": 2, "decoding": "one_pass", "horizon": 10})");
    CHECK(e.find("\"label_len\"") != std::string::npos);
    e = error_of(informer, R"({"arch": "forecaster", "nhead": 2, "head": "mean"})");
    CHECK(e.find("needs an encoder-only model") != std::string::npos);
}

TEST_CASE("a one-pass model refuses a horizon past the one it was trained on") {
    const ForecastCase c = onepass("last_row_causal");
    const auto model = tools::load_model_bytes(convert(c), "last_row_causal");
    tools::AlignedBuffer arena(1 << 20);
    ForecastSession s;
    const Status st = s.init(model->as<Forecaster>(), *test::available_ports().back(), arena.data(), arena.size(),
                             c.window, c.horizon + 1);
    CHECK(st.code() == StatusCode::invalid_argument);
    CHECK(std::string(st.message()).find("steps this model predicts at once") != std::string::npos);
}

// The most copied tutorial's forecaster: the encoder reads the target and two covariates, the decoder the
// target only, positions on the encoder side only, a (tgt_len, src_len) memory mask; made by
// tests/fixtures/gen_covariate_fixtures.py with the author's inference loop.
TEST_CASE("covariate forecasters: the decoder reads the outputs, positions per side, as the author's loop") {
    for (const char* name : {"tutorial", "both_positions", "target_last"}) {
        INFO("case " << std::string(name));
        const ForecastCase c = test::load_forecast_case("forecaster_covariates", name);
        const auto model = tools::load_model_bytes(convert(c), name);
        const ForecasterConfig& config = model->as<Forecaster>().config();
        CHECK(config.n_features == 3);
        CHECK(config.decoder_features == 1);
        CHECK(config.n_outputs == 1);
        CHECK(tools::output_names(model->file) == std::vector<std::string>{"load"});
        for (const Kernels* k : test::available_ports()) {
            INFO("port " << std::string(k->name));
            tools::HostSession s(*model, *k, c.window, c.horizon);
            const std::vector<float> got = s.forecast(c.history.values.data(), c.window, c.horizon);
            test::check_close(got, c.forecast.values, test::tolerance::forecaster, "forecast");
            test::check_close(s.forecast_recompute(c.history.values.data(), c.window, c.horizon), got,
                              test::tolerance::kv_cache, "KV-cached forecast against full recompute");
            // One call of forward as the loop makes it: the decoder fed the target column.
            const tools::Table src = tools::read_csv(c.dir + "/check_src.csv");
            const tools::Table tgt = tools::read_csv(c.dir + "/check_tgt.csv");
            test::check_close(s.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::model),
                              tools::read_csv(c.dir + "/check_out.csv").values, test::tolerance::forecaster,
                              "teacher-forced forward");
        }
    }
    // Positions on the decoder cannot be read off the weights: the tutorial's decoder has none, and a config
    // that leaves that out converts into a model a check pair refuses.
    const ForecastCase c = test::load_forecast_case("forecaster_covariates", "tutorial");
    const std::string e = error_of(
        c, R"({"arch": "forecaster", "nhead": 4, "memory_mask": "tril", "features": ["load", "temperature", "humidity"],
              "outputs": ["wind"]})");
    CHECK(e.find("\"wind\", which is not one of \"features\"") != std::string::npos);
    test::CaseConversion no_decoder_positions;
    no_decoder_positions.config_text = R"({"arch": "forecaster", "nhead": 4, "memory_mask": "tril",
                               "features": ["load", "temperature", "humidity"], "outputs": ["load"]})";
    tools::CheckFiles files;
    files.input = c.dir + "/check_src.csv";
    files.target = c.dir + "/check_tgt.csv";
    files.output = c.dir + "/check_out.csv";
    const tools::CheckPair pair = tools::read_check_pair(files, format::Family::forecaster);
    const tools::CheckResult wrong =
        tools::check_model_bytes(test::convert_forecast_case(c, no_decoder_positions), pair);
    const tools::CheckResult right = tools::check_model_bytes(convert(c), pair);
    CHECK(!wrong.passed);
    CHECK(wrong.max_diff > 0.1);
    CHECK(right.passed);
}

TEST_CASE(
    "--find-config finds what the weights of the variants cannot tell: the decoder's positions, the encoder's mask") {
    const auto write_config = [](const std::string& text) {
        const std::filesystem::path path =
            std::filesystem::temp_directory_path() / ("auspex_search_" + std::to_string(::getpid()) + ".json");
        std::ofstream(path) << text;
        return path;
    };
    {
        // The tutorial with nothing said about the decoder's positions.
        const std::string dir = test::fixture_path("forecaster_covariates/tutorial");
        const auto config = write_config(R"({"arch": "forecaster", "memory_mask": "tril",
            "features": ["load", "temperature", "humidity"], "outputs": ["load"]})");
        tools::CheckFiles files;
        files.input = dir + "/check_src.csv";
        files.target = dir + "/check_tgt.csv";
        files.output = dir + "/check_out.csv";
        const tools::ConfigSearch s = tools::search_config(tools::read_checkpoint(dir + "/model.pt"), config, files);
        std::filesystem::remove(config);
        REQUIRE(s.found);
        CHECK(s.config.decoder_positional_encoding == format::PositionalEncoding::none);
        CHECK(s.config.nhead == 4);
    }
    {
        // An encoder-only model whose forward takes a causal mask: only the head kind is stated.
        const std::string dir = test::fixture_path("forecaster_onepass/last_row_causal");
        const auto config = write_config(R"({"arch": "forecaster", "head": "last_row"})");
        tools::CheckFiles files;
        files.input = dir + "/history.csv";
        files.output = dir + "/forecast.csv";
        const tools::ConfigSearch s = tools::search_config(tools::read_checkpoint(dir + "/model.pt"), config, files);
        std::filesystem::remove(config);
        REQUIRE(s.found);
        CHECK(s.config.described.at(format::ConfigKey::encoder_mask) ==
              static_cast<uint32_t>(format::EncoderMask::causal));
        CHECK(s.config.nhead == 3);
        CHECK(s.config.activation == format::Activation::gelu);
        CHECK(s.config.norm_first);
    }
}

TEST_CASE("one input Linear shared by the encoder and the decoder, as the author's greedy loop forecasts") {
    const ForecastCase c = test::load_forecast_case("forecaster_covariates", "shared_embedding");
    std::vector<std::string> notes;
    tools::ConvertOptions o;
    o.checkpoint_path = c.dir + "/model.pt";
    o.config_path = c.dir + "/config.json";
    const auto model = tools::load_model_bytes(tools::convert_model(o, &notes), "shared");
    bool noted = false;
    for (const std::string& n : notes) noted = noted || n.find("one input Linear, input_layer, feeds both") == 0;
    CHECK(noted);
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        tools::HostSession s(*model, *k, c.window, c.horizon);
        test::check_close(s.forecast(c.history.values.data(), c.window, c.horizon), c.forecast.values,
                          test::tolerance::forecaster, "forecast");
    }
}

TEST_CASE("layers that mix BatchNorm and LayerNorm, or a BatchNorm outside the layers, are refused naming it") {
    const ForecastCase c = onepass("last_row_causal");
    const tools::TensorMap tensors = tools::read_checkpoint(c.dir + "/model.pt");
    const tools::ConvertConfig config = tools::read_convert_config(c.dir + "/config.json");
    // BatchNorm1d(d) keeps weight and bias like LayerNorm, plus its running statistics.
    const tools::HostTensor stats = tensors.at("encoder.layers.0.norm1.weight");
    auto message = [&](const tools::TensorMap& m) {
        try {
            tools::import_model(m, config);
        } catch (const tools::ToolError& e) {
            return std::string(e.what());
        }
        return std::string("converted");
    };
    {
        tools::TensorMap m = tensors;  // one layer's norm1 a BatchNorm, the rest LayerNorms
        m["encoder.layers.0.norm1.running_mean"] = stats;
        m["encoder.layers.0.norm1.running_var"] = stats;
        CHECK(message(m).find("the layers mix BatchNorm (1 norms with running statistics) and LayerNorm") == 0);
    }
    {
        tools::TensorMap m = tensors;  // a BatchNorm on the input, outside the layers
        m["input_norm.weight"] = stats;
        m["input_norm.bias"] = stats;
        m["input_norm.running_mean"] = stats;
        m["input_norm.running_var"] = stats;
        CHECK(message(m).find("BatchNorm outside the layers is not supported: input_norm holds BatchNorm") == 0);
    }
}

TEST_CASE("--find-config reads one-pass decoding off a check pair whose output is shorter than its target") {
    // Informer's forward(x_enc, x_dec) returns its last horizon rows; x_dec is label_len observed rows and
    // zero placeholders. From {"arch"} and that pair the search finds decoding, horizon, label_len,
    // placeholder and nhead.
    const ForecastCase c = onepass("informer_zeros");
    const auto temp = [](const char* what) {
        return std::filesystem::temp_directory_path() / ("auspex_onepass_" + std::to_string(::getpid()) + "_" + what);
    };
    const auto tgt_path = temp("tgt.csv"), config_path = temp("config.json");
    {
        std::ofstream tgt(tgt_path);
        tgt.precision(9);  // every float32 exactly
        tgt << "x,y\n";
        for (size_t r = c.window - 6; r < c.window; ++r) tgt << c.history.at(r, 0) << "," << c.history.at(r, 1) << "\n";
        for (size_t r = 0; r < c.horizon; ++r) tgt << "0,0\n";
        std::ofstream(config_path) << R"({"arch": "forecaster"})";
    }
    tools::CheckFiles files;
    files.input = c.dir + "/history.csv";
    files.target = tgt_path.string();
    files.output = c.dir + "/forecast.csv";
    const tools::ConfigSearch s =
        tools::search_config(tools::read_checkpoint(c.dir + "/model.pt"), config_path.string(), files);
    std::filesystem::remove(tgt_path);
    std::filesystem::remove(config_path);
    REQUIRE(s.found);
    CHECK(s.config.decoding == format::Decoding::one_pass);
    CHECK(s.config.horizon == 10);
    CHECK(s.config.label_len == 6);
    CHECK(s.config.placeholder == format::Placeholder::zeros);
    CHECK(s.config.nhead == 2);
}
