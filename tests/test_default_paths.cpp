// The paths a user takes without asking for anything special, and the options and refusals that have no
// other test: `run` in raw units (the default of the CLI and the C API) for both normalization modes, the
// converter's `pe` buffer validation, `reconstruct --sample`, `verify`, `bench`, `--recompute`, `--port` and
// AUSPEX_PORT, `--dtype f16`, and the converter's error paths.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ports/ports.h"
#include "api/auspex.h"
#include "tests/cli_support.h"
#include "tests/family_support.h"
#include "tests/tolerances.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/quantize.h"
#include "tools/host/family_sessions.h"
#include "tools/host/host_session.h"
#include "tools/import/convert_config.h"
#include "tools/import/forecaster_import.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;
using test::auspex;
using test::check_error;
using test::Result;
using test::scratch_dir;
using test::write_file;

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Converts a fixture through the CLI (once per test process and dtype).
std::string cli_model(const std::string& dir, const std::string& name, const std::string& dtype = "f32") {
    const std::string out = (scratch_dir() / (name + "_" + dtype + ".axm")).string();
    const Result r =
        auspex("convert " + dir + "/model.pt --config " + dir + "/config.json --dtype " + dtype + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

const char* const kNormCases[] = {"norm_global", "norm_last_value"};

}  // namespace

TEST_CASE("run in raw units (the default) matches PyTorch for global and last_value normalization") {
    // Goldens: tests/fixtures/gen_raw_run_fixtures.py. src is the raw history, tgt its last T rows.
    for (const char* name : kNormCases) {
        INFO("case " << std::string(name));
        const std::string dir = test::fixture_path(std::string("forecaster/") + name);
        const tools::Table src = tools::read_csv(dir + "/history.csv");
        const tools::Table tgt = tools::read_csv(dir + "/run_raw_tgt.csv");
        const std::vector<float> want = tools::read_csv(dir + "/run_raw_out.csv").values;

        // C++ sessions, every port.
        const auto model = tools::load_model_bytes(test::convert_case(dir), name);
        for (const Kernels* k : test::available_ports()) {
            INFO("port " << std::string(k->name));
            tools::HostSession s(*model, *k, src.rows, tgt.rows);
            test::check_close(s.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::raw), want,
                              test::tolerance::forecaster, std::string(name) + ": raw-unit run");
        }

        // The CLI: no --model-space means raw units; --model-space feeds the same numbers to the network.
        const std::string axm = cli_model(dir, name);
        const std::string out = (scratch_dir() / (std::string(name) + "_raw_run.csv")).string();
        const Result r =
            auspex("run " + axm + " --src " + dir + "/history.csv --tgt " + dir + "/run_raw_tgt.csv -o " + out);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        test::check_close(tools::read_csv(out).values, want, test::tolerance::forecaster,
                          std::string(name) + ": cli run");
        const std::string model_out = (scratch_dir() / (std::string(name) + "_model_run.csv")).string();
        REQUIRE(
            auspex("run " + axm + " --model-space --src " + dir + "/src.csv --tgt " + dir + "/tgt.csv -o " + model_out)
                .exit_code == 0);
        test::check_close(tools::read_csv(model_out).values, tools::read_csv(dir + "/run_out.csv").values,
                          test::tolerance::forecaster, std::string(name) + ": cli run --model-space");

        // The C API: model_space 0 is raw units.
        const tools::AlignedBuffer bytes(test::convert_case(dir));
        static auspex_forecaster fc;
        REQUIRE(auspex_open(&fc, bytes.data(), bytes.size(), 1) == AUSPEX_OK);
        tools::AlignedBuffer arena(auspex_arena_bytes(&fc, src.rows, tgt.rows));
        REQUIRE(auspex_session_init(&fc, arena.data(), arena.size(), src.rows, tgt.rows) == AUSPEX_OK);
        std::vector<float> got(want.size());
        REQUIRE(auspex_run(&fc, src.values.data(), src.rows, tgt.values.data(), tgt.rows, 0, got.data()) == AUSPEX_OK);
        test::check_close(got, want, test::tolerance::forecaster, std::string(name) + ": C API raw run");
    }
}

TEST_CASE("converter: a `pe` that is not the sinusoidal table is a learned table, refused when declared sinusoidal") {
    const std::string dir = test::fixture_path("forecaster/pre_relu_tril");  // a tutorial PositionalEncoding
    const tools::TensorMap tensors = tools::read_checkpoint(dir + "/model.pt");
    const tools::ConvertConfig config = tools::read_convert_config(dir + "/config.json");
    std::string pe_name;
    for (const auto& [name, t] : tensors)
        if (name == "pe" || (name.size() > 3 && name.compare(name.size() - 3, 3, ".pe") == 0)) pe_name = name;
    REQUIRE(!pe_name.empty());
    CHECK_NOTHROW(tools::import_forecaster(tensors, config));
    auto refused = [&](const tools::TensorMap& m) {
        try {
            tools::import_forecaster(m, config);
        } catch (const tools::ToolError& e) {
            return std::string(e.what()).find("contradicts the checkpoint's learned position table " + pe_name) !=
                   std::string::npos;
        }
        return false;
    };
    // Undeclared, the same tensor is added as PyTorch adds it: row by row, as a learned table of its rows.
    auto learned = [&](const tools::TensorMap& m) {
        tools::ConvertConfig undeclared = config;
        undeclared.positional_encoding.reset();
        const tools::AxmModel model = tools::import_forecaster(m, undeclared);
        for (const auto& [key, value] : model.config)
            if (key == format::ConfigKey::positional_encoding)
                return value == static_cast<uint32_t>(format::PositionalEncoding::learned);
        return false;
    };
    const size_t d = static_cast<size_t>(tensors.at(pe_name).shape.back());
    {
        tools::TensorMap m = tensors;  // one entry off by 0.01 (beyond float rounding, within a typo)
        m[pe_name].data[5 * d + 3] += 0.01f;
        CHECK(refused(m));
        CHECK(learned(m));
    }
    {
        tools::TensorMap m = tensors;  // sin and cos swapped
        std::vector<float>& v = m[pe_name].data;
        for (size_t i = 0; i + 1 < v.size(); i += 2) std::swap(v[i], v[i + 1]);
        CHECK(refused(m));
    }
    {
        tools::TensorMap m = tensors;  // positions shifted by one row, as a table built from position 1 is
        std::vector<float>& v = m[pe_name].data;
        std::vector<float> shifted(v.begin() + static_cast<long>(d), v.end());
        shifted.resize(v.size(), 0.0f);
        v = shifted;
        CHECK(refused(m));
    }
}

TEST_CASE("converter: layer_norm_eps reaches the model exactly as configured") {
    // odd_sizes was trained with eps 1e-6, multi_out with 1e-3: a converter or runtime that used
    // PyTorch's default 1e-5 would still run, only less exactly.
    for (const auto& [name, eps] : {std::pair{"odd_sizes", 1e-6f}, std::pair{"multi_out", 1e-3f}}) {
        const auto model =
            tools::load_model_bytes(test::convert_case(test::fixture_path(std::string("forecaster/") + name)), name);
        CHECK(model->as<Forecaster>().config().stack.layer.eps == eps);
    }
}

TEST_CASE("reconstruct --sample decodes z = mean + exp(log_var / 2) * eps, eps standard normal from the seed") {
    // eps is what the sampler draws for mean 0, log_var 0 with the same seed.
    const std::vector<float> zeros(20000, 0.0f);
    const std::vector<float> eps = tools::sample_latent(zeros, zeros, 7);
    double sum = 0, sq = 0;
    for (float e : eps) {
        sum += e;
        sq += static_cast<double>(e) * e;
    }
    const double mean = sum / eps.size(), var = sq / eps.size() - mean * mean;
    CHECK(std::fabs(mean) < 0.03);  // 20000 draws: standard error 0.007
    CHECK(std::fabs(var - 1.0) < 0.05);
    CHECK(tools::sample_latent(zeros, zeros, 8) != eps);

    const std::string dir = test::fixture_path("tvae/post_relu_pe");
    const tools::Table input = tools::read_csv(dir + "/input.csv");
    const auto model = tools::open_model_bytes(test::convert_case(dir), "tvae");
    tools::HostTvae s(*model, generic_kernels(), input.rows);
    std::vector<float> z_mean, z_log_var;
    s.encode(input.values, input.rows, &z_mean, &z_log_var);
    const std::vector<float> unit(z_mean.size(), 0.0f);
    const std::vector<float> e7 = tools::sample_latent(unit, unit, 7);
    const std::vector<float> z = tools::sample_latent(z_mean, z_log_var, 7);
    REQUIRE(z.size() == z_mean.size());
    for (size_t i = 0; i < z.size(); ++i)
        CHECK(z[i] == doctest::Approx(z_mean[i] + std::exp(0.5 * z_log_var[i]) * e7[i]).epsilon(1e-6));

    const std::string axm = cli_model(dir, "tvae_sample");
    const std::string sampled = (scratch_dir() / "sampled_7.csv").string();
    const Result r =
        auspex("reconstruct " + axm + " --port generic --input " + dir + "/input.csv --sample --seed 7 -o " + sampled);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::vector<float> got = tools::read_csv(sampled).values;
    test::check_close(got, s.generate(z, input.rows), test::tolerance::tvae, "reconstruct --sample --seed 7");
    // Not the z = mean reconstruction, and another seed draws another z.
    const std::vector<float> at_mean = s.reconstruct(input.values, input.rows);
    CHECK(test::max_abs_error(got, at_mean) > 1e-3);
    const std::string other = (scratch_dir() / "sampled_8.csv").string();
    REQUIRE(auspex("reconstruct " + axm + " --port generic --input " + dir + "/input.csv --sample --seed 8 -o " + other)
                .exit_code == 0);
    CHECK(test::max_abs_error(tools::read_csv(other).values, got) > 1e-3);
}

TEST_CASE("cli: --port and AUSPEX_PORT pick the port; --recompute forecasts as the KV cache does") {
    const std::string dir = test::fixture_path("forecaster/post_relu_tril");
    const std::string axm = cli_model(dir, "post_relu_tril", "int8");
    const auto model = tools::load_model(axm);
    const tools::Table history = tools::read_csv(dir + "/history.csv");
    for (const Kernels* k : test::available_ports()) {
        INFO("port " << std::string(k->name));
        tools::HostSession s(*model, *k, history.rows, 24);
        const std::vector<float> want = s.forecast(history.values.data(), history.rows, 24);
        const std::string out = (scratch_dir() / ("port_" + std::string(k->name) + ".csv")).string();
        const Result r = auspex("forecast " + axm + " --input " + dir + "/history.csv --horizon 24 --port " + k->name +
                                " -o " + out);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        // CSV values carry 9 significant digits: a float reads back to the same bits.
        CHECK(same_bits(tools::read_csv(out).values, want));
        const std::string env_out = (scratch_dir() / ("env_" + std::string(k->name) + ".csv")).string();
        REQUIRE(auspex("forecast " + axm + " --input " + dir + "/history.csv --horizon 24 -o " + env_out).exit_code ==
                0);
        ::setenv("AUSPEX_PORT", k->name, 1);
        const Result e = auspex("forecast " + axm + " --input " + dir + "/history.csv --horizon 24 -o " + env_out);
        ::unsetenv("AUSPEX_PORT");
        REQUIRE_MESSAGE(e.exit_code == 0, e.output);
        CHECK(same_bits(tools::read_csv(env_out).values, want));
        const std::string re_out = (scratch_dir() / ("recompute_" + std::string(k->name) + ".csv")).string();
        REQUIRE(auspex("forecast " + axm + " --input " + dir + "/history.csv --horizon 24 --recompute --port " +
                       k->name + " -o " + re_out)
                    .exit_code == 0);
        CHECK(same_bits(tools::read_csv(re_out).values, s.forecast_recompute(history.values.data(), history.rows, 24)));
    }
    check_error(auspex("forecast " + axm + " --input " + dir + "/history.csv --port nonesuch"), 2, "nonesuch");
    ::setenv("AUSPEX_PORT", "nonesuch", 1);
    const Result bad_env = auspex("forecast " + axm + " --input " + dir + "/history.csv");
    ::unsetenv("AUSPEX_PORT");
    check_error(bad_env, 2, "nonesuch");
}

TEST_CASE("cli: --dtype f16 converts to half weights that forecast like the library's f16 conversion") {
    const std::string dir = test::fixture_path("forecaster/post_relu_tril");
    const std::string axm = cli_model(dir, "post_relu_tril", "f16");
    const std::string bytes = read_text(axm);
    const std::vector<uint8_t> lib = test::convert_case(dir, format::DType::f16);
    CHECK(bytes == std::string(lib.begin(), lib.end()));
    const Result info = auspex("inspect " + axm);
    CHECK(info.output.find("f16") != std::string::npos);
    check_error(auspex("convert " + dir + "/model.pt --config " + dir + "/config.json --dtype f8 -o " +
                       (scratch_dir() / "f8.axm").string()),
                1, "unknown dtype");
}

TEST_CASE("cli verify: a model against itself differs by zero; int8 against f32 by what the sessions compute") {
    const std::string dir = test::fixture_path("forecaster/post_relu_tril");
    const std::string f32 = cli_model(dir, "post_relu_tril"), i8 = cli_model(dir, "post_relu_tril", "int8");
    const std::string args = " --input " + dir + "/history.csv --window 16 --horizon 8 --port generic";
    const Result same = auspex("verify " + f32 + " --against " + f32 + args);
    REQUIRE_MESSAGE(same.exit_code == 0, same.output);
    CHECK(same.output.find("window 16, horizon 8, stride 8, port generic") != std::string::npos);
    // Every error column of every row is 0.
    std::istringstream lines(same.output);
    std::string line;
    size_t rows = 0;
    while (std::getline(lines, line)) {
        if (line.rfind("  output 0 ", 0) != 0) continue;
        std::istringstream f(line.substr(10));
        double a = -1, b = -1, c = -1, d = -1;
        f >> a >> b >> c >> d;
        CHECK(a == 0.0);
        CHECK(b == 0.0);
        CHECK(c == 0.0);
        CHECK(d == 0.0);
        ++rows;
    }
    CHECK(rows == 2);  // teacher-forced and forecast tables, one output each

    // int8 vs f32: the largest forecast difference over the origins 0 and 8 (window 16 + horizon 8 <= 32 rows).
    const auto a = tools::load_model(i8), b = tools::load_model(f32);
    const tools::Table history = tools::read_csv(dir + "/history.csv");
    tools::HostSession sa(*a, generic_kernels(), 16, 8), sb(*b, generic_kernels(), 16, 8);
    double run_max = 0, fc_max = 0;
    for (size_t start : {0, 8}) {
        const float* src = history.values.data() + start * history.cols;
        const std::vector<float> ra = sa.run(src, 16, src + 15 * history.cols, 8, InputSpace::raw),
                                 rb = sb.run(src, 16, src + 15 * history.cols, 8, InputSpace::raw);
        const std::vector<float> fa = sa.forecast(src, 16, 8), fb = sb.forecast(src, 16, 8);
        run_max = std::max(run_max, test::max_abs_error(ra, rb));
        fc_max = std::max(fc_max, test::max_abs_error(fa, fb));
    }
    REQUIRE(fc_max > 0);
    const Result q = auspex("verify " + i8 + " --against " + f32 + args);
    REQUIRE_MESSAGE(q.exit_code == 0, q.output);
    std::vector<double> max_abs;
    std::istringstream ql(q.output);
    while (std::getline(ql, line))
        if (line.rfind("  output 0 ", 0) == 0) max_abs.push_back(std::stod(line.substr(10)));
    REQUIRE(max_abs.size() == 2);
    CHECK(max_abs[0] == doctest::Approx(run_max).epsilon(1e-3));  // printed with 4 significant digits
    CHECK(max_abs[1] == doctest::Approx(fc_max).epsilon(1e-3));
}

TEST_CASE("cli bench: times a model on the chosen port and reports its sizes") {
    const std::string dir = test::fixture_path("forecaster/post_relu_tril");
    const std::string axm = cli_model(dir, "post_relu_tril");
    const auto model = tools::load_model(axm);
    const Result r = auspex("bench " + axm + " --window 16 --horizon 8 --runs 2 --json --port generic");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("\"port\": \"generic\"") != std::string::npos);
    CHECK(r.output.find("\"window\": 16, \"horizon\": 8, \"runs\": 2") != std::string::npos);
    CHECK(r.output.find("\"arena_bytes\": " + std::to_string(model->as<Forecaster>().arena_bytes(16, 8))) !=
          std::string::npos);
    CHECK(r.output.find("\"model_bytes\": " + std::to_string(read_text(axm).size())) != std::string::npos);
    const Result text = auspex("bench " + axm + " --window 16 --horizon 8 --runs 2 --port generic");
    REQUIRE(text.exit_code == 0);
    CHECK(text.output.find("port generic, window 16, horizon 8, median of 2 runs") != std::string::npos);
    check_error(auspex("bench " + axm + " --runs 0"), 2, "--runs");
}

TEST_CASE("converter refusals: eps range, zero scale, normalization shape, f16 overflow, start_id without a decoder") {
    const std::string dir = test::fixture_path("forecaster/norm_global");
    const std::string pt = dir + "/model.pt";
    const std::string out = (scratch_dir() / "refused.axm").string();
    auto convert_with = [&](const std::string& name, const std::string& config, const std::string& checkpoint) {
        return auspex("convert " + checkpoint + " --config " + write_file(name, config) + " -o " + out);
    };
    const std::string head = R"({"arch": "forecaster", "nhead": 4, "activation": "relu", "norm_first": false, )"
                             R"("positional_encoding": "sinusoidal", "memory_mask": "tril", )";
    const std::string norm = R"("normalization": {"mode": "global", "mean": [300.0, -40.0], "scale": [5.0, 0.5]})";
    REQUIRE(convert_with("ok.json", head + R"("layer_norm_eps": 1e-5, )" + norm + "}", pt).exit_code == 0);
    for (const char* eps : {"0", "-1e-5", "1.5"})
        check_error(convert_with("eps.json", head + R"("layer_norm_eps": )" + std::string(eps) + ", " + norm + "}", pt),
                    1, "must be in (0, 1]");
    check_error(
        convert_with("zero.json",
                     head + R"("normalization": {"mode": "global", "mean": [300.0, -40.0], "scale": [5.0, 0]}})", pt),
        1, "a scale of 0 would divide by zero");
    check_error(convert_with("shape.json",
                             head + R"("normalization": {"mode": "global", "mean": [300.0], "scale": [5.0]}})", pt),
                1, "one value per input column (2");
    check_error(
        convert_with("lv_mean.json",
                     head + R"("normalization": {"mode": "last_value", "mean": [1, 2], "scale": [5.0, 1]}})", pt),
        1, "takes no \"mean\"");

    // start_id names the token fed to a classifier's decoder; a classifier without one refuses it.
    const std::string cls = test::fixture_path("classifier/learned_mean_softmax");
    check_error(convert_with("start.json",
                             R"({"arch": "classifier", "nhead": 4, "pad_id": 0, "pooling": "mean", )"
                             R"("output_activation": "softmax", "start_id": 1})",
                             cls + "/model.pt"),
                1, "\"start_id\" is for a classifier with a decoder");

    // f16 overflow: a weight beyond 65504 is refused, naming the tensor, instead of becoming infinity.
    tools::AxmModel m;
    tools::AxmTensor t;
    t.source_name = "big.weight";
    t.dims = {8, 8};
    t.dtype = format::DType::f32;
    std::vector<float> w(64, 0.5f);
    w[9] = 70000.0f;
    t.data.resize(w.size() * sizeof(float));
    std::memcpy(t.data.data(), w.data(), t.data.size());
    m.tensors.push_back(t);
    try {
        tools::store_weights_as(m, format::DType::f16);
        FAIL("a weight of 70000 became f16");
    } catch (const tools::ToolError& e) {
        CHECK(std::string(e.what()).find("big.weight") != std::string::npos);
        CHECK(std::string(e.what()).find("beyond float16's range") != std::string::npos);
    }
    w[9] = 65504.0f;  // the largest half converts
    std::memcpy(m.tensors[0].data.data(), w.data(), m.tensors[0].data.size());
    CHECK_NOTHROW(tools::store_weights_as(m, format::DType::f16));
}
