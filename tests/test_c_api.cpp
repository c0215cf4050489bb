// The C API (api/auspex.h) against the C++ API on converted PyTorch fixtures: same arena figure,
// bit-identical forecasts and teacher-forced outputs, and every error path answering with a status code
// and a message instead of crashing. Also `auspex header`, which embeds a model for C and C++ firmware.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "api/auspex.h"
#include "ports/ports.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/common/aligned_buffer.h"
#include "tools/convert/converter.h"
#include "tools/text/csv.h"
#include "tools/host/host_session.h"

namespace {

using namespace ax;

std::vector<uint8_t> convert_fixture(const std::string& name, format::DType dtype) {
    tools::ConvertOptions options;
    options.checkpoint_path = test::fixture_path("forecaster/" + name + "/model.pt");
    options.config_path = test::fixture_path("forecaster/" + name + "/config.json");
    options.dtype = dtype;
    return tools::convert_model(options);
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("the C API forecasts exactly what the C++ API forecasts, in the same arena") {
    const char* const cases[] = {"post_relu_tril", "norm_last_value", "pre_gelu_none_final"};
    for (const char* name : cases) {
        for (const format::DType dtype : {format::DType::f32, format::DType::i8}) {
            INFO("case " << name << (dtype == format::DType::i8 ? " int8" : " f32"));
            const tools::AlignedBuffer model(convert_fixture(name, dtype));
            const tools::Table history =
                tools::read_csv(test::fixture_path(std::string("forecaster/") + name + "/history.csv"));
            const size_t horizon = 24;

            static auspex_forecaster fc;  // static storage, as firmware holds it
            REQUIRE(auspex_open(&fc, model.data(), model.size(), 1) == AUSPEX_OK);
            CHECK(std::string(auspex_status_message(&fc)) == "ok");
            CHECK(auspex_n_features(&fc) == history.cols);
            CHECK(auspex_n_outputs(&fc) == history.cols);

            const auto loaded =
                tools::load_model_bytes(std::vector<uint8_t>(model.data(), model.data() + model.size()), name);
            const size_t arena_bytes = auspex_arena_bytes(&fc, history.rows, horizon);
            CHECK(arena_bytes == loaded->as<Forecaster>().arena_bytes(history.rows, horizon));
            REQUIRE(arena_bytes > 0);

            tools::AlignedBuffer arena(arena_bytes);
            REQUIRE(auspex_session_init(&fc, arena.data(), arena.size(), history.rows, horizon) == AUSPEX_OK);
            std::vector<float> got(horizon * history.cols);
            REQUIRE(auspex_forecast(&fc, history.values.data(), history.rows, horizon, got.data()) == AUSPEX_OK);

            tools::HostSession cpp(*loaded, best_kernels(), history.rows, horizon);
            const std::vector<float> want = cpp.forecast(history.values.data(), history.rows, horizon);
            CHECK(same_bits(got, want));
            // And against PyTorch, through the C API (int8 is an approximation: only f32 is held to
            // tests/tolerances.h).
            if (dtype == format::DType::f32) {
                const tools::Table golden =
                    tools::read_csv(test::fixture_path(std::string("forecaster/") + name + "/forecast.csv"));
                test::check_close(got, golden.values, test::tolerance::forecaster, "C API forecast against PyTorch");
            }

            // A teacher-forced pass in model space, the first rows of the history as both inputs.
            const size_t rows = history.rows < horizon ? history.rows : horizon;
            std::vector<float> run_c(rows * history.cols);
            REQUIRE(auspex_run(&fc, history.values.data(), rows, history.values.data(), rows, 1, run_c.data()) ==
                    AUSPEX_OK);
            const std::vector<float> run_cpp =
                cpp.run(history.values.data(), rows, history.values.data(), rows, InputSpace::model);
            CHECK(same_bits(run_c, run_cpp));
        }
    }
}

TEST_CASE("the C API reports misuse and bad models with a code and a message") {
    const tools::AlignedBuffer model(convert_fixture("post_relu_tril", format::DType::i8));

    CHECK(auspex_open(nullptr, model.data(), model.size(), 1) == AUSPEX_INVALID_ARGUMENT);
    CHECK(std::string(auspex_status_message(nullptr)) == "auspex_forecaster is null");

    auspex_forecaster never_opened;
    std::memset(&never_opened, 0, sizeof never_opened);
    CHECK(auspex_n_features(&never_opened) == 0);
    CHECK(auspex_arena_bytes(&never_opened, 8, 8) == 0);
    CHECK(auspex_session_init(&never_opened, nullptr, 0, 8, 8) == AUSPEX_INVALID_ARGUMENT);
    CHECK(std::string(auspex_status_message(&never_opened)).find("never opened") != std::string::npos);

    auspex_forecaster fc;
    CHECK(auspex_open(&fc, nullptr, 100, 1) == AUSPEX_INVALID_ARGUMENT);
    CHECK(std::string(auspex_status_message(&fc)) == "model is null");
    CHECK(auspex_n_features(&fc) == 0);

    // Corrupted: one flipped byte in the weights fails the checksum; skipping the checksum opens it.
    tools::AlignedBuffer bad(model.size());
    std::memcpy(bad.data(), model.data(), model.size());
    bad.data()[model.size() - 100] ^= 0x40;
    CHECK(auspex_open(&fc, bad.data(), bad.size(), 1) == AUSPEX_BAD_MODEL);
    CHECK(std::string(auspex_status_message(&fc)).find("checksum") != std::string::npos);
    CHECK(auspex_session_init(&fc, nullptr, 0, 8, 8) == AUSPEX_INVALID_ARGUMENT);
    CHECK(auspex_open(&fc, bad.data(), bad.size(), 0) == AUSPEX_OK);
    // Truncated: refused with or without the checksum.
    CHECK(auspex_open(&fc, model.data(), model.size() - 1, 0) == AUSPEX_BAD_MODEL);

    REQUIRE(auspex_open(&fc, model.data(), model.size(), 1) == AUSPEX_OK);
    float history[32] = {0};
    float out[24];
    CHECK(auspex_forecast(&fc, history, 32, 24, out) == AUSPEX_INVALID_ARGUMENT);
    CHECK(std::string(auspex_status_message(&fc)).find("auspex_session_init") != std::string::npos);

    const size_t need = auspex_arena_bytes(&fc, 32, 24);
    REQUIRE(need > 0);
    CHECK(auspex_arena_bytes(&fc, 0, 24) == 0);
    tools::AlignedBuffer arena(need);
    CHECK(auspex_session_init(&fc, arena.data(), need - 1, 32, 24) == AUSPEX_ARENA_TOO_SMALL);
    CHECK(std::string(auspex_status_message(&fc)).find("needs") != std::string::npos);
    CHECK(auspex_session_init(&fc, arena.data() + 1, need - 1, 32, 24) == AUSPEX_INVALID_ARGUMENT);
    REQUIRE(auspex_session_init(&fc, arena.data(), need, 32, 24) == AUSPEX_OK);

    CHECK(auspex_forecast(&fc, history, 33, 24, out) == AUSPEX_INVALID_ARGUMENT);  // longer than declared
    history[5] = std::nanf("");
    CHECK(auspex_forecast(&fc, history, 32, 24, out) == AUSPEX_BAD_INPUT);
    CHECK(std::string(auspex_status_message(&fc)).find("NaN") != std::string::npos);
    history[5] = 0.25f;
    CHECK(auspex_forecast(&fc, history, 32, 24, nullptr) == AUSPEX_INVALID_ARGUMENT);
    CHECK(auspex_forecast(&fc, history, 32, 24, out) == AUSPEX_OK);
    CHECK(std::string(auspex_status_message(&fc)) == "ok");
}

namespace {

std::string run_cli(const std::string& args, int* exit_code) {
    const std::string command = std::string(AUSPEX_CLI) + " " + args + " 2>&1";
    FILE* pipe = popen(command.c_str(), "r");
    REQUIRE(pipe != nullptr);
    std::string out;
    char buffer[4096];
    size_t n = 0;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) out.append(buffer, n);
    *exit_code = pclose(pipe);
    return out;
}

// The value of `#define NAME value` in a header, or -1.
long long define_value(const std::string& text, const std::string& name) {
    const std::string key = "#define " + name + " ";
    const size_t at = text.find(key);
    return at == std::string::npos ? -1 : std::stoll(text.substr(at + key.size()));
}

}  // namespace

TEST_CASE("auspex header: the model's exact bytes in an aligned const array, and the sizes firmware needs") {
    const std::vector<uint8_t> bytes = convert_fixture("pre_gelu_none_final", format::DType::i8);
    const std::string dir = "/tmp/auspex_header_test_" + std::to_string(::getpid());
    REQUIRE(std::system(("mkdir -p " + dir).c_str()) == 0);
    const std::string axm = dir + "/model-int8.axm";
    std::ofstream(axm, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    int status = 0;
    const std::string out = run_cli("header " + axm + " -o " + dir + "/fc_model.h --window 24 --horizon 12", &status);
    INFO(out);
    REQUIRE(status == 0);
    std::stringstream text_stream;
    text_stream << std::ifstream(dir + "/fc_model.h").rdbuf();
    const std::string text = text_stream.str();

    // Name from the output file; figures from the runtime.
    const auto loaded = tools::load_model_bytes(bytes, "model");
    CHECK(define_value(text, "FC_MODEL_SIZE") == static_cast<long long>(bytes.size()));
    CHECK(define_value(text, "FC_MODEL_ARENA_BYTES") ==
          static_cast<long long>(loaded->as<Forecaster>().arena_bytes(24, 12)));
    CHECK(define_value(text, "FC_MODEL_WINDOW") == 24);
    CHECK(define_value(text, "FC_MODEL_HORIZON") == 12);
    CHECK(define_value(text, "FC_MODEL_N_FEATURES") == 3);
    CHECK(define_value(text, "FC_MODEL_N_OUTPUTS") == 3);
    // const (read-only data, stays in flash), 64-byte aligned in C and C++.
    CHECK(text.find("FC_MODEL_ALIGN FC_MODEL_SECTION static const unsigned char fc_model[FC_MODEL_SIZE] = {") !=
          std::string::npos);
    CHECK(text.find("__attribute__((aligned(64)))") != std::string::npos);
    CHECK(text.find("_Alignas(64)") != std::string::npos);
    CHECK(text.find("alignas(64)") != std::string::npos);

    // The array holds exactly the file's bytes.
    std::vector<uint8_t> parsed;
    for (size_t at = text.find(" = {"); (at = text.find("0x", at)) != std::string::npos; at += 4)
        parsed.push_back(static_cast<uint8_t>(std::stoul(text.substr(at, 4), nullptr, 16)));
    CHECK(parsed == bytes);

    // --name, and refusals: a name that is no C identifier, a corrupted model, a missing -o.
    CHECK(run_cli("header " + axm + " -o " + dir + "/x.h --name my_model --window 24 --horizon 12", &status)
              .find("my_model[") != std::string::npos);
    CHECK(status == 0);
    run_cli("header " + axm + " -o " + dir + "/x.h --name 2bad", &status);
    CHECK(status != 0);
    run_cli("header " + axm, &status);
    CHECK(status != 0);
    std::vector<uint8_t> bad = bytes;
    bad[bad.size() / 2] ^= 1;
    std::ofstream(dir + "/bad.axm", std::ios::binary)
        .write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(bad.size()));
    const std::string refused = run_cli("header " + dir + "/bad.axm -o " + dir + "/bad.h", &status);
    CHECK(status != 0);
    CHECK(refused.find("checksum") != std::string::npos);
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("the C API runs the forecaster variants: run rows, and a one-pass forecast of n_outputs columns") {
    // flatten_covariates: three input columns, one output, 12 steps at once; transam: a per-row generator.
    for (const char* name : {"flatten_covariates", "transam"}) {
        INFO("variant " << name);
        const std::string dir = test::fixture_path(std::string("forecaster_onepass/") + name);
        tools::ConvertOptions options;
        options.checkpoint_path = dir + "/model.pt";
        options.config_path = dir + "/config.json";
        const tools::AlignedBuffer model(tools::convert_model(options));
        const tools::Table history = tools::read_csv(dir + "/history.csv");
        const tools::Table expected = tools::read_csv(dir + "/forecast.csv");
        static auspex_forecaster fc;
        REQUIRE(auspex_open(&fc, model.data(), model.size(), 1) == AUSPEX_OK);
        CHECK(auspex_n_outputs(&fc) == expected.cols);
        const size_t window = history.rows, horizon = expected.rows;
        tools::AlignedBuffer arena(auspex_arena_bytes(&fc, window, horizon));
        REQUIRE(auspex_session_init(&fc, arena.data(), arena.size(), window, horizon) == AUSPEX_OK);
        std::vector<float> got(horizon * auspex_n_outputs(&fc));
        REQUIRE(auspex_forecast(&fc, history.values.data(), window, horizon, got.data()) == AUSPEX_OK);
        test::check_close(got, expected.values, test::tolerance::forecaster, "C API forecast");
        // run's rows: the model's forward (the pooled head's horizon, or one row per input row).
        const size_t rows = auspex_run_rows(&fc, window, 0);
        CHECK(rows == (std::string(name) == "transam" ? window : horizon));
        std::vector<float> out(rows * auspex_n_outputs(&fc));
        REQUIRE(auspex_run(&fc, history.values.data(), window, nullptr, 0, 1, out.data()) == AUSPEX_OK);
        if (std::string(name) != "transam") CHECK(same_bits(out, got));
    }
}
