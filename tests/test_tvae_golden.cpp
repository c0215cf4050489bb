// The Transformer-VAE against real PyTorch modules (tests/fixtures/gen_family_fixtures.py): encoder outputs,
// the teacher-forced pass, reconstruction and generation within tests/tolerances.h on every port, inside the exact
// arena.
#include <doctest/doctest.h>

#include "ports/ports.h"
#include "tests/family_support.h"
#include "tests/tolerances.h"
#include "tools/text/csv.h"
#include "tools/host/family_sessions.h"

namespace {

using namespace ax;

constexpr double kTolerance = test::tolerance::tvae;

const char* const kCases[] = {"post_relu_pe", "pre_gelu_norms"};

struct Case {
    std::string dir;
    tools::Table input;
    std::vector<float> run_out, z_mean, z_log_var, reconstruct, z, generate;
    size_t generate_length = 0;
    double reconstruction_mse = 0;
    bool has_safetensors = false;
};

Case load_case(const std::string& dir) {
    Case c;
    c.dir = dir;
    const tools::JsonValue j = test::case_json(c.dir);
    c.generate_length = static_cast<size_t>(j.find("generate_length")->as_int("generate_length", 1, 1000));
    c.reconstruction_mse = j.find("reconstruction_mse")->as_number("reconstruction_mse");
    c.has_safetensors = j.find("has_safetensors")->as_bool("has_safetensors");
    c.input = tools::read_csv(c.dir + "/input.csv");
    c.run_out = tools::read_csv(c.dir + "/run_out.csv").values;
    c.z_mean = tools::read_csv(c.dir + "/z_mean.csv").values;
    c.z_log_var = tools::read_csv(c.dir + "/z_log_var.csv").values;
    c.reconstruct = tools::read_csv(c.dir + "/reconstruct.csv").values;
    c.z = tools::read_csv(c.dir + "/z.csv").values;
    c.generate = tools::read_csv(c.dir + "/generate.csv").values;
    return c;
}

}  // namespace

namespace ax::test {

// Every output of a tvae fixture on every port; returns the worst mixed error. Shared with the rename-map
// suite (test_rename_maps.cpp).
double check_tvae_model(const std::string& dir, const std::vector<uint8_t>& bytes, const std::string& label) {
    const Case c = load_case(dir);
    const auto model = tools::open_model_bytes(bytes, label);
    REQUIRE(model->family == format::Family::tvae);
    const size_t len = c.input.rows;
    double worst = 0;
    auto check = [&](const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
        test::check_close(got, want, kTolerance, label + ": " + what);
        worst = std::max(worst, test::max_mixed_error(got, want));
    };
    for (const Kernels* k : test::available_ports()) {
        INFO(label << " on port " << std::string(k->name));
        tools::HostTvae s(*model, *k, std::max(len, c.generate_length));
        std::vector<float> mean, log_var;
        s.encode(c.input.values, len, &mean, &log_var);
        check(mean, c.z_mean, "z_mean");
        check(log_var, c.z_log_var, "z_log_var");
        check(s.run(c.input.values, len), c.run_out, "teacher-forced pass");
        const std::vector<float> recon = s.reconstruct(c.input.values, len);
        check(recon, c.reconstruct, "reconstruction");
        CHECK(tools::mean_squared_error(recon, c.input.values) == doctest::Approx(c.reconstruction_mse).epsilon(1e-4));
        check(s.generate(c.z, c.generate_length), c.generate, "generation");
    }
    return worst;
}

}  // namespace ax::test

TEST_CASE("tvae matches PyTorch: encoder, teacher-forced pass, reconstruction, generation") {
    for (const char* name : kCases) {
        INFO("case " << std::string(name));
        const std::string dir = test::fixture_path(std::string("tvae/") + name);
        const double worst = test::check_tvae_model(dir, test::convert_case(dir), std::string(name) + " (.pt)");
        MESSAGE("tvae " << std::string(name) << ": max mixed error vs PyTorch " << worst);
        if (load_case(dir).has_safetensors)
            test::check_tvae_model(dir, test::convert_case(dir, format::DType::f32, "model.safetensors"),
                                   std::string(name) + " (.safetensors)");
    }
}

TEST_CASE("tvae: a session runs in exactly the arena size the model reports, and not one byte less") {
    const Case c = load_case(test::fixture_path("tvae/post_relu_pe"));
    const auto model = tools::open_model_bytes(test::convert_case(c.dir), "tvae");
    const size_t len = c.input.rows;
    const size_t bytes = model->as<Tvae>().arena_bytes(len);
    REQUIRE(bytes > 0);
    tools::AlignedBuffer arena(bytes + 64);
    for (size_t i = bytes; i < bytes + 64; ++i) arena.data()[i] = 0xA5;
    TvaeSession s;
    const Kernels& k = *test::available_ports().back();
    CHECK(s.init(model->as<Tvae>(), k, arena.data(), bytes - 1, len).code() == StatusCode::arena_too_small);
    REQUIRE(s.init(model->as<Tvae>(), k, arena.data(), bytes, len).is_ok());
    std::vector<float> out(c.reconstruct.size());
    REQUIRE(s.reconstruct(c.input.values.data(), len, out.data()).is_ok());
    test::check_close(out, c.reconstruct, kTolerance, "reconstruction inside the exact arena");
    REQUIRE(s.run(c.input.values.data(), len, out.data(), nullptr, nullptr).is_ok());
    test::check_close(out, c.run_out, kTolerance, "teacher-forced pass inside the exact arena");
    for (size_t i = bytes; i < bytes + 64; ++i) CHECK(arena.data()[i] == 0xA5);
}

TEST_CASE("tvae: bad lengths and values give a clear status") {
    const Case c = load_case(test::fixture_path("tvae/post_relu_pe"));
    const auto model = tools::open_model_bytes(test::convert_case(c.dir), "tvae");
    const TvaeConfig& cfg = model->as<Tvae>().config();
    CHECK(cfg.max_positions == 64);  // the `pe` buffer's rows
    CHECK(model->as<Tvae>().arena_bytes(0) == 0);
    tools::AlignedBuffer arena(model->as<Tvae>().arena_bytes(70));
    TvaeSession s;
    REQUIRE(s.init(model->as<Tvae>(), generic_kernels(), arena.data(), arena.size(), 70).is_ok());
    std::vector<float> x(70 * cfg.n_features, 0.25f), out(70 * cfg.n_features), z(cfg.latent_size, 0.1f);
    CHECK(s.reconstruct(x.data(), 0, out.data()).code() == StatusCode::invalid_argument);
    CHECK(s.reconstruct(x.data(), 65, out.data()).code() == StatusCode::invalid_argument);  // beyond 64 positions
    CHECK(s.generate(z.data(), 65, out.data()).code() == StatusCode::invalid_argument);
    x[3] = std::nanf("");
    CHECK(s.reconstruct(x.data(), 8, out.data()).code() == StatusCode::bad_input);
    z[1] = INFINITY;
    CHECK(s.generate(z.data(), 8, out.data()).code() == StatusCode::bad_input);
    CHECK(s.generate(nullptr, 8, out.data()).code() == StatusCode::invalid_argument);
    CHECK(s.run(x.data(), 8, nullptr, nullptr, nullptr).code() == StatusCode::invalid_argument);
}

TEST_CASE("tvae: f16 and int8 conversions stay close to float32") {
    for (const char* name : kCases) {
        const Case c = load_case(test::fixture_path(std::string("tvae/") + name));
        for (const auto& dtype_bound : {std::pair{format::DType::f16, 2e-3}, std::pair{format::DType::i8, 5e-2}}) {
            const format::DType dtype = dtype_bound.first;
            const double bound = dtype_bound.second;
            const auto model = tools::open_model_bytes(test::convert_case(c.dir, dtype), name);
            for (const Kernels* k : test::available_ports()) {
                tools::HostTvae s(*model, *k, std::max(c.input.rows, c.generate_length));
                const double run_err = test::max_abs_error(s.run(c.input.values, c.input.rows), c.run_out);
                const double gen_err = test::max_abs_error(s.generate(c.z, c.generate_length), c.generate);
                INFO(std::string(name) << " dtype " << static_cast<int>(dtype) << " port " << std::string(k->name)
                                       << ": errors " << run_err << " (run), " << gen_err << " (generate)");
                CHECK(run_err <= bound * test::rms(c.run_out));
                CHECK(gen_err <= bound * test::rms(c.generate));
            }
        }
    }
}
