// int8 models held exactly: the converter's scales (one per output row, amax / 127, weights rounded half to
// even) and committed outputs of the generic port for every fixture (tests/fixtures/int8/), compared bit for
// bit. The generic port is built with -ffp-contract=off and its own exp/erf/sin/cos, so it gives the same
// bits on x86-64, aarch64, armhf and Cortex-M; a converter that changed how weights are quantized (one scale
// per tensor, another rounding) changes these bits, where a bound relative to the float32 outputs let it pass.
//
// The other ports share the int8 products and quantization bit for bit (tests/test_ports.cpp) but not the
// float kernels around them (LayerNorm, softmax, GELU, sums in another order): they are held to a bound
// measured on avx2/avx2-vnni (kOtherPortBound).
//
// Regenerate after a deliberate change of int8 arithmetic: AUSPEX_WRITE_INT8_GOLDENS=1 ./auspex_tests
// -tc="int8 goldens*" writes the files (then say why in the commit).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>

#include "ports/generic/generic.h"
#include "ports/ports.h"
#include "tests/family_support.h"
#include "tests/scaled_covariate_case.h"
#include "tools/host/family_sessions.h"
#include "tools/host/host_session.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

// int8 results of the other ports against the generic port's, relative to the outputs' RMS: worst measured
// 6.3e-7 (avx2 and avx2-vnni, post_relu_tril forecast): no activation crossed a quantization step on these
// fixtures. One that does (a float difference at a rounding tie) moves its row by a step, ~1e-2 x rms: if a
// port trips this bound, look at the first differing value before raising it.
constexpr double kOtherPortBound = 5e-6;

bool write_mode() { return std::getenv("AUSPEX_WRITE_INT8_GOLDENS") != nullptr; }

std::string golden_path(const std::string& name) { return test::fixture_path("int8/" + name + ".csv"); }

// Compares `got` (generic port) with the committed golden bit for bit, or writes it in write mode.
void check_golden(const std::vector<float>& got, size_t cols, const std::string& name) {
    INFO("int8 golden " << name);
    if (write_mode()) {
        tools::Table t;
        t.cols = cols;
        t.rows = got.size() / cols;
        t.values = got;
        for (size_t c = 0; c < cols; ++c) t.header.push_back("v" + std::to_string(c));
        std::ofstream(golden_path(name)) << tools::format_csv(t);
        MESSAGE("wrote " << golden_path(name));
        return;
    }
    const std::vector<float> want = tools::read_csv(golden_path(name)).values;
    REQUIRE(got.size() == want.size());
    size_t differ = 0, first = 0;
    for (size_t i = 0; i < got.size(); ++i)
        if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0 && differ++ == 0) first = i;
    INFO(differ << " of " << got.size() << " values differ; first at " << first << ": " << got[first] << " vs "
                << want[first]);
    CHECK(differ == 0);
}

void check_other_port(const std::vector<float>& got, const std::vector<float>& generic, const std::string& what) {
    INFO(what);
    const double err = test::max_abs_error(got, generic), scale = test::rms(generic);
    INFO("max error " << err << ", rms " << scale);
    if (std::getenv("AUSPEX_REPORT_ERRORS"))
        std::printf("int8 port error %-12.6g x rms %s\n", err / scale, what.c_str());
    CHECK(err <= kOtherPortBound * scale);
}

const char* const kForecasterCases[] = {"post_relu_tril", "pre_gelu_none_final", "odd_sizes",      "multi_out",
                                        "pre_relu_tril",  "norm_global",         "norm_last_value"};

}  // namespace

TEST_CASE("int8 converter: one scale per output row, amax / 127, weights rounded half to even") {
    for (const char* name : kForecasterCases) {
        const std::string dir = test::fixture_path(std::string("forecaster/") + name);
        const auto f32 = tools::load_model_bytes(test::convert_case(dir), name);
        const auto i8 = tools::load_model_bytes(test::convert_case(dir, format::DType::i8), name);
        REQUIRE(f32->file.tensor_count() == i8->file.tensor_count());
        size_t quantized = 0;
        for (uint32_t t = 0; t < i8->file.tensor_count(); ++t) {
            const TensorView q = i8->file.tensor(t), w = f32->file.tensor(t);
            REQUIRE(q.role == w.role);
            if (q.dtype != format::DType::i8) continue;
            INFO(std::string(name) << " tensor " << std::string(format::role_name(q.role)) << " layer " << q.layer);
            ++quantized;
            REQUIRE(q.rank == 2);
            REQUIRE(q.scales != nullptr);
            const size_t rows = q.dims[0], cols = q.dims[1];
            const float* wf = static_cast<const float*>(w.data);
            const int8_t* qi = static_cast<const int8_t*>(q.data);
            size_t distinct_scales = 0;
            for (size_t r = 0; r < rows; ++r) {
                float amax = 0;
                for (size_t c = 0; c < cols; ++c) amax = std::fmax(amax, std::fabs(wf[r * cols + c]));
                CHECK(q.scales[r] == amax / 127.0f);
                distinct_scales += r > 0 && q.scales[r] != q.scales[r - 1] ? 1 : 0;
                for (size_t c = 0; c < cols; ++c) {
                    const float want = amax == 0 ? 0.0f : std::nearbyint(wf[r * cols + c] * (127.0f / amax));
                    if (static_cast<float>(qi[r * cols + c]) != want) {
                        INFO("row " << r << " column " << c);
                        CHECK(static_cast<float>(qi[r * cols + c]) == want);
                    }
                }
            }
            if (rows > 1) CHECK(distinct_scales > 0);  // rows of random weights have different maxima
        }
        CHECK(quantized > 0);
    }
    // The rounding rule on ties: 0.5 and 2.5 steps go to 0 and 2 (to even), -1.5 to -2.
    const float row[4] = {127.0f, 0.5f, 2.5f, -1.5f};
    int8_t q[4];
    float scale = 0;
    generic::quantize_rows_i8(row, 1, 4, q, &scale);
    CHECK(scale == 1.0f);
    CHECK(q[0] == 127);
    CHECK(q[1] == 0);
    CHECK(q[2] == 2);
    CHECK(q[3] == -2);
}

TEST_CASE("int8 goldens: the forecaster fixtures give the committed bits on the generic port") {
    for (const char* name : kForecasterCases) {
        const std::string dir = test::fixture_path(std::string("forecaster/") + name);
        const auto model = tools::load_model_bytes(test::convert_case(dir, format::DType::i8), name);
        const tools::Table src = tools::read_csv(dir + "/src.csv"), tgt = tools::read_csv(dir + "/tgt.csv");
        const size_t outs = model->as<Forecaster>().config().n_outputs;
        tools::HostSession g(*model, generic_kernels(), std::max<size_t>(src.rows, 32), std::max<size_t>(tgt.rows, 24));
        const std::vector<float> run =
            g.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::model);
        check_golden(run, outs, std::string("forecaster_") + name + "_run");
        std::vector<float> fc;
        const bool has_forecast = outs == model->as<Forecaster>().config().n_features;
        tools::Table history;
        if (has_forecast) {
            history = tools::read_csv(dir + "/history.csv");
            tools::HostSession h(*model, generic_kernels(), history.rows, 24);
            fc = h.forecast(history.values.data(), history.rows, 24);
            check_golden(fc, outs, std::string("forecaster_") + name + "_forecast");
        }
        for (const Kernels* k : test::available_ports()) {
            if (k == &generic_kernels()) continue;
            tools::HostSession s(*model, *k, src.rows, tgt.rows);
            check_other_port(s.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::model), run,
                             std::string(name) + " run on " + k->name);
            if (!has_forecast) continue;
            tools::HostSession h(*model, *k, history.rows, 24);
            check_other_port(h.forecast(history.values.data(), history.rows, 24), fc,
                             std::string(name) + " forecast on " + k->name);
        }
    }
}

TEST_CASE("int8 goldens: seq2seq, classifier and tvae fixtures give the committed bits on the generic port") {
    for (const char* name : {"tutorial", "learned_pre_gelu"}) {
        const std::string dir = test::fixture_path(std::string("seq2seq/") + name);
        const tools::JsonValue j = test::case_json(dir);
        const std::vector<int32_t> src = test::json_ids(*j.find("src"), "src"),
                                   tgt = test::json_ids(*j.find("tgt"), "tgt");
        const auto model = tools::open_model_bytes(test::convert_case(dir, format::DType::i8), name);
        tools::HostSeq2Seq g(*model, generic_kernels(), src.size(), tgt.size());
        const std::vector<float> logits = g.run(src, tgt);
        check_golden(logits, model->as<Seq2Seq>().config().tgt_vocab, std::string("seq2seq_") + name);
        for (const Kernels* k : test::available_ports()) {
            if (k == &generic_kernels()) continue;
            tools::HostSeq2Seq s(*model, *k, src.size(), tgt.size());
            check_other_port(s.run(src, tgt), logits, std::string(name) + " on " + k->name);
        }
    }
    for (const char* name : {"learned_mean_softmax", "pad0_max_sigmoid", "cls_first_norm", "decoder_start"}) {
        const std::string dir = test::fixture_path(std::string("classifier/") + name);
        const tools::JsonValue j = test::case_json(dir);
        std::vector<std::vector<int32_t>> inputs;
        size_t longest = 0;
        for (const tools::JsonValue& s : j.find("inputs")->as_array("inputs")) {
            inputs.push_back(test::json_ids(s, "inputs"));
            longest = std::max(longest, inputs.back().size());
        }
        const auto model = tools::open_model_bytes(test::convert_case(dir, format::DType::i8), name);
        tools::HostClassifier g(*model, generic_kernels(), longest);
        std::vector<float> probs;
        for (const auto& in : inputs) {
            const std::vector<float> p = g.classify(in);
            probs.insert(probs.end(), p.begin(), p.end());
        }
        check_golden(probs, model->as<Classifier>().config().n_labels, std::string("classifier_") + name);
        for (const Kernels* k : test::available_ports()) {
            if (k == &generic_kernels()) continue;
            tools::HostClassifier s(*model, *k, longest);
            std::vector<float> other;
            for (const auto& in : inputs) {
                const std::vector<float> p = s.classify(in);
                other.insert(other.end(), p.begin(), p.end());
            }
            check_other_port(other, probs, std::string(name) + " on " + k->name);
        }
    }
    for (const char* name : {"post_relu_pe", "pre_gelu_norms"}) {
        const std::string dir = test::fixture_path(std::string("tvae/") + name);
        const tools::Table input = tools::read_csv(dir + "/input.csv");
        const auto model = tools::open_model_bytes(test::convert_case(dir, format::DType::i8), name);
        tools::HostTvae g(*model, generic_kernels(), input.rows);
        const std::vector<float> recon = g.reconstruct(input.values, input.rows);
        check_golden(recon, input.cols, std::string("tvae_") + name);
        for (const Kernels* k : test::available_ports()) {
            if (k == &generic_kernels()) continue;
            tools::HostTvae s(*model, *k, input.rows);
            check_other_port(s.reconstruct(input.values, input.rows), recon, std::string(name) + " on " + k->name);
        }
    }
}

TEST_CASE("int8 goldens: the forecaster variants give the committed bits on the generic port") {
    // Encoder-only (sliding, flatten, last row, mean + MLP) and one-pass encoder-decoder models of
    // tests/fixtures/forecaster_onepass.
    // And the covariate models of tests/fixtures/forecaster_covariates (the decoder reads the outputs only), and
    // the authors' PatchTST through its shipped map.
    const std::pair<const char*, const char*> cases[] = {
        {"onepass/transam", ""},          {"onepass/flatten_covariates", ""}, {"onepass/last_row_causal", ""},
        {"onepass/mean_mlp", ""},         {"onepass/informer_zeros", ""},     {"onepass/patchtst_revin", ""},
        {"onepass/mvts_batchnorm", ""},   {"covariates/tutorial", ""},        {"covariates/target_last", ""},
        {"patchtst/official", "patchtst"}};
    for (const auto& name_map : cases) {
        const std::string name = name_map.first;
        const std::string map = *name_map.second == '\0'
                                    ? std::string()
                                    : std::string(AUSPEX_SOURCE_DIR) + "/tools/import/maps/" + name_map.second + ".map";
        const std::string dir = test::fixture_path("forecaster_" + name);
        const auto model = tools::load_model_bytes(test::convert_case(dir, format::DType::i8, "model.pt", map), name);
        const tools::Table history = tools::read_csv(dir + "/history.csv");
        const size_t horizon = tools::read_csv(dir + "/forecast.csv").rows;
        tools::HostSession g(*model, generic_kernels(), history.rows, horizon);
        const std::vector<float> fc = g.forecast(history.values.data(), history.rows, horizon);
        std::string file = "variant_" + name + "_forecast";
        file[file.find('/')] = '_';
        check_golden(fc, model->as<Forecaster>().config().n_outputs, file);
        for (const Kernels* k : test::available_ports()) {
            tools::HostSession s(*model, *k, history.rows, horizon);
            check_other_port(s.forecast(history.values.data(), history.rows, horizon), fc,
                             std::string(name) + " forecast on " + k->name);
        }
    }
}

TEST_CASE("int8 goldens: a raw-unit covariate model, its input embeddings and first in-projections float32") {
    // tests/fixtures/forecaster_scaled/raw: load in kW beside calendar columns; the float32 matrices of the int8
    // model multiply in the reference order on every port, so the ports stay as close as for any int8 model.
    const test::ScaledCase c = test::load_scaled_case("forecaster_scaled/raw");
    const auto model = tools::load_model_bytes(test::convert_case(c.dir, format::DType::i8), "scaled raw");
    const size_t horizon = c.forecast.rows;
    tools::HostSession g(*model, generic_kernels(), c.history.rows, horizon);
    const std::vector<float> fc =
        g.forecast(c.window.data(), c.history.rows, horizon, c.known_rows.data(), horizon - 1);
    check_golden(fc, 1, "scaled_raw_forecast");
    for (const Kernels* k : test::available_ports()) {
        tools::HostSession s(*model, *k, c.history.rows, horizon);
        check_other_port(s.forecast(c.window.data(), c.history.rows, horizon, c.known_rows.data(), horizon - 1), fc,
                         std::string("scaled raw forecast on ") + k->name);
    }
}
