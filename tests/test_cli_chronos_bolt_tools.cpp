// `header` and `verify` on Chronos-Bolt: the header's array is the file's bytes and its macros size a C API
// session that forecasts what PyTorch forecast (tests/fixtures/chronos_bolt/cases/); verify --expected compares a
// conversion with the reference's quantile CSV, verify --against a quantized file with its float32 conversion.
#include <doctest/doctest.h>

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "api/auspex.h"
#include "tests/chronos_bolt_cases.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/checkpoint/checkpoint.h"

namespace {

using ax::test::auspex;
using ax::test::Result;

std::string converted(const char* model, const char* dtype) {
    const std::string axm = (ax::test::scratch_dir() / (std::string("cbt_") + model + "_" + dtype + ".axm")).string();
    const Result r = auspex("convert " + ax::test::fixture_path(std::string("chronos_bolt/") + model) + " -o " + axm +
                            " --dtype " + dtype);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return axm;
}

// The case's context as a one-column CSV (missing values NA), and its reference forecast as forecast writes one.
std::string context_csv(const ax::test::ChronosBoltCase& c, const std::string& name) {
    std::ostringstream text;
    text.precision(9);
    text << "value\n";
    for (float v : c.context) {
        if (std::isnan(v))
            text << "NA\n";
        else
            text << v << "\n";
    }
    return ax::test::write_file(name, text.str());
}

std::string reference_csv(const ax::test::ChronosBoltCase& c, const std::string& name) {
    std::ostringstream text;
    text.precision(9);
    text << "q0.1,q0.2,q0.3,q0.4,q0.5,q0.6,q0.7,q0.8,q0.9\n";
    for (size_t t = 0; t < c.horizon; ++t)
        for (size_t q = 0; q < c.quantiles; ++q)
            text << c.want[q * c.horizon + t] << (q + 1 < c.quantiles ? "," : "\n");
    return ax::test::write_file(name, text.str());
}

long long define_value(const std::string& text, const std::string& name) {
    const std::string key = "#define " + name + " ";
    const size_t at = text.find(key);
    return at == std::string::npos ? -1 : std::stoll(text.substr(at + key.size()));
}

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("cli chronos-bolt header: the file's bytes, and macros that size a C API session forecasting as PyTorch") {
    const ax::test::ChronosBoltCase c = ax::test::read_chronos_bolt_case("small_h100");
    for (const char* dtype : {"f32", "int8"}) {
        const std::string axm = converted("small", dtype);
        const std::string h = (ax::test::scratch_dir() / "cb_model.h").string();
        const Result r = auspex("header " + axm + " -o " + h + " --window " + std::to_string(c.length) + " --horizon " +
                                std::to_string(c.horizon));
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        const std::string text = ax::test::read_file(h);
        CHECK(text.find("Chronos-Bolt forecaster: d_model 32") != std::string::npos);
        CHECK(text.find(std::string("weights ") + (std::string(dtype) == "int8" ? "int8" : "f32")) !=
              std::string::npos);
        CHECK(text.find("CB_MODEL_ALIGN CB_MODEL_SECTION static const unsigned char cb_model[CB_MODEL_SIZE] = {") !=
              std::string::npos);
        CHECK(define_value(text, "CB_MODEL_WINDOW") == static_cast<long long>(c.length));
        CHECK(define_value(text, "CB_MODEL_HORIZON") == static_cast<long long>(c.horizon));
        CHECK(define_value(text, "CB_MODEL_QUANTILES") == 9);
        // The array is the file, byte for byte.
        std::vector<uint8_t> parsed;
        for (size_t at = text.find(" = {"); (at = text.find("0x", at)) != std::string::npos; at += 4)
            parsed.push_back(static_cast<uint8_t>(std::stoul(text.substr(at, 4), nullptr, 16)));
        const std::vector<uint8_t> bytes = ax::tools::read_file_bytes(axm);
        REQUIRE(parsed == bytes);
        CHECK(define_value(text, "CB_MODEL_SIZE") == static_cast<long long>(bytes.size()));
        // As firmware uses it: the array opened in place, a session in exactly ARENA_BYTES, the case forecast.
        const ax::tools::AlignedBuffer model(parsed);
        static auspex_forecaster fc;
        REQUIRE(auspex_open(&fc, model.data(), model.size(), 1) == AUSPEX_OK);
        const size_t arena_bytes = static_cast<size_t>(define_value(text, "CB_MODEL_ARENA_BYTES"));
        CHECK(arena_bytes == auspex_arena_bytes(&fc, c.length, c.horizon));
        ax::tools::AlignedBuffer arena(arena_bytes);
        CHECK(auspex_session_init(&fc, arena.data(), arena_bytes - 1, c.length, c.horizon) == AUSPEX_ARENA_TOO_SMALL);
        REQUIRE(auspex_session_init(&fc, arena.data(), arena_bytes, c.length, c.horizon) == AUSPEX_OK);
        std::vector<float> got(auspex_forecast_values(&fc, c.horizon));
        REQUIRE(got.size() == static_cast<size_t>(define_value(text, "CB_MODEL_QUANTILES")) * c.horizon);
        REQUIRE(auspex_forecast(&fc, c.context.data(), c.length, c.horizon, got.data()) == AUSPEX_OK);
        if (std::string(dtype) == "f32") ax::test::check_chronos_bolt_case(got, c, "header's f32 model, C API");
    }
    // Past the model's steps per call its quantile paths run: a longer horizon is sized, not refused.
    const std::string h = (ax::test::scratch_dir() / "cb_long.h").string();
    const Result r = auspex("header " + converted("dummy", "f16") + " -o " + h + " --horizon 200");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::string text = ax::test::read_file(h);
    CHECK(define_value(text, "CB_LONG_WINDOW") == 512);
    CHECK(define_value(text, "CB_LONG_HORIZON") == 200);
    CHECK(text.find("weights f16") != std::string::npos);
}

TEST_CASE("cli chronos-bolt verify --expected: the float32 conversion within the tolerance of PyTorch's quantiles") {
    for (const char* name : {"small_c512", "small_nan", "dummy_h100"}) {
        const ax::test::ChronosBoltCase c = ax::test::read_chronos_bolt_case(name);
        const std::string model = std::string(name).substr(0, std::string(name).find('_'));
        const std::string input = context_csv(c, std::string("cbv_") + name + ".csv");
        const std::string want = reference_csv(c, std::string("cbv_") + name + "_want.csv");
        const Result f = auspex("verify " + converted(model.c_str(), "f32") + " --expected " + want + " --input " +
                                input + " --port generic");
        REQUIRE_MESSAGE(f.exit_code == 0, f.output);
        CHECK_MESSAGE(has(f, "<= tolerance"), f.output);
        float scale = 1.0f;
        for (float v : c.want) scale = std::max(scale, std::fabs(v));
        const auto err = ax::test::verify_max_abs(f.output, "quantile forecast");
        REQUIRE(err.size() == 9);
        for (const auto& row : err) CHECK_MESSAGE(row.second <= 1e-5 * scale, name << " " << row.first);
        // int8 against the same reference: reported, with the note that quantization, not the config, moved it.
        const Result q = auspex("verify " + converted(model.c_str(), "int8") + " --expected " + want + " --input " +
                                input + " --port generic");
        REQUIRE_MESSAGE(q.exit_code == 0, q.output);
        CHECK(has(q, "weights are quantized"));
    }
    // A subset of the levels, in any order, is compared by name.
    const ax::test::ChronosBoltCase c = ax::test::read_chronos_bolt_case("dummy_c37");
    std::ostringstream text;
    text.precision(9);
    text << "q0.9,q0.5\n";
    for (size_t t = 0; t < c.horizon; ++t)
        text << c.want[8 * c.horizon + t] << "," << c.want[4 * c.horizon + t] << "\n";
    const std::string input = context_csv(c, "cbv_c37.csv");
    const Result two = auspex("verify " + converted("dummy", "f32") + " --expected " +
                              ax::test::write_file("cbv_two.csv", text.str()) + " --input " + input);
    REQUIRE_MESSAGE(two.exit_code == 0, two.output);
    CHECK(ax::test::verify_max_abs(two.output, "quantile forecast").size() == 2);
    CHECK(has(two, "<= tolerance"));
    // The median moved by 0.5 at every step: the float32 conversion no longer reproduces it, and verify fails.
    std::ostringstream moved;
    moved.precision(9);
    moved << "q0.9,q0.5\n";
    for (size_t t = 0; t < c.horizon; ++t)
        moved << c.want[8 * c.horizon + t] << "," << c.want[4 * c.horizon + t] + 0.5f << "\n";
    const Result off = auspex("verify " + converted("dummy", "f32") + " --expected " +
                              ax::test::write_file("cbv_moved.csv", moved.str()) + " --input " + input);
    CHECK_MESSAGE(off.exit_code == 1, off.output);
    CHECK_MESSAGE(has(off, "its float32 outputs differ beyond the tolerance"), off.output);
    ax::test::check_error(auspex("verify " + converted("dummy", "f32") + " --expected " +
                                 ax::test::write_file("cbv_bad.csv", "q0.25\n1\n") + " --input " + input),
                          1, "is none of the model's levels");
    ax::test::check_error(auspex("verify " + converted("dummy", "f32") + " --expected " +
                                 reference_csv(c, "cbv_c37_want.csv") + " --input " + input + " --horizon 5"),
                          2, "leave --horizon out");
}

TEST_CASE("cli chronos-bolt verify --against: a conversion against itself is zero; f16 and int8 against float32") {
    // A series longer than a context and a horizon: its later values score both models' quantile loss.
    std::string series = "value\n";
    for (int t = 0; t < 700; ++t)
        series += std::to_string(50.0 + 8.0 * std::sin(6.2831853 * t / 24.0) + 0.01 * t) + (t == 100 ? "\nNA\n" : "\n");
    const std::string input = ax::test::write_file("cbv_series.csv", series);
    const std::string f32 = converted("small", "f32");
    const Result same = auspex("verify " + f32 + " --against " + f32 + " --input " + input);
    REQUIRE_MESSAGE(same.exit_code == 0, same.output);
    CHECK_MESSAGE(has(same, "3 forecasts of 64 steps from 512 values every 64"), same.output);
    for (const auto& row : ax::test::verify_max_abs(same.output, "quantile forecasts")) CHECK(row.second == 0.0);
    CHECK(has(same, "median (q0.5): mean |difference| 0, 0 x each context's standard deviation"));
    CHECK(has(same, "difference +0"));
    // f16 and int8: nonzero, and f16 far closer (docs/chronos-bolt.md's accuracy tables).
    std::map<std::string, double> worst;
    for (const char* dtype : {"f16", "int8"}) {
        const Result r = auspex("verify " + converted("small", dtype) + " --against " + f32 + " --input " + input +
                                " --horizon 32 --stride 100 --window 400");
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        CHECK_MESSAGE(has(r, "4 forecasts of 32 steps from 400 values every 100"), r.output);
        CHECK(has(r, "quantile loss against the 97 values that followed"));
        const auto err = ax::test::verify_max_abs(r.output, "quantile forecasts");
        REQUIRE(err.size() == 9);
        for (const auto& row : err) worst[dtype] = std::max(worst[dtype], row.second);
    }
    CHECK(worst["f16"] > 0.0);
    CHECK(worst["f16"] * 10 < worst["int8"]);
    // Refusals name the cause.
    ax::test::check_error(auspex("verify " + f32 + " --against " + f32), 2, "needs --input series.csv");
    ax::test::check_error(
        auspex("verify " + f32 + " --against " + ax::test::fixture_path("chronos_bolt/pieces") + " --input " + input),
        1, "is not a Chronos-Bolt model");
    ax::test::check_error(auspex("verify " + f32 + " --against " + f32 + " --input " + input + " --target " + input), 2,
                          "--target does not apply");
}
