// convert MODEL.onnx: forecasters whose time features are a graph input of their own (x_mark) through a Linear beside
// the values' input Linear (value_embedding(x) + time_embedding(x_mark) + positions, with or without a bias on the
// time features' Linear): encoder-only forward(x, x_mark) with a one-pass or a per-row head, and an nn.Transformer fed
// the Time-Series-Library's forward(x_enc, x_mark_enc, x_dec, x_mark_dec), decoded in one pass (its output cut to
// pred_len rows) or step by step (every row returned). The two Linears fold into one over [values,
// time features]; the proof feeds the graph's separate inputs from those columns; run matches PyTorch's forward and
// forecast, computing the time features from the history's timestamps, the author's loop
// (tests/fixtures/gen_onnx_linear_marks_fixtures.py).
#include <doctest/doctest.h>

#include <filesystem>
#include <memory>
#include <utility>
#include <string>

#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/convert/conversion_check.h"
#include "tools/convert/converter.h"
#include "tools/host/model_loader.h"
#include "tools/onnx_import/onnx_convert.h"
#include "tools/text/csv.h"

using namespace ax;

namespace {

const char* const kCases[] = {"encoder_last_row", "encoder_sliding", "seq2seq_one_pass", "seq2seq_stepwise"};

std::string marks(const std::string& c, const std::string& f) {
    return test::fixture_path("onnx_linear_marks/" + c + "/" + f);
}

bool has_decoder(const std::string& c) { return c.rfind("seq2seq", 0) == 0; }

std::string scratch(const std::string& name) { return (test::scratch_dir() / ("onnx_linear_marks_" + name)).string(); }

// Forecasts the case's history.csv (its time features computed from the timestamps) with `model`; the largest
// difference from the author's loop in PyTorch.
double forecast_error(const std::string& c, const std::string& model, const std::string& tag) {
    const std::string out = scratch(c + "_" + tag + "_forecast.csv");
    const test::Result r =
        test::auspex("forecast " + model + " --input " + marks(c, "history.csv") + " --horizon 4 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const tools::Table got = tools::read_csv(out), want = tools::read_csv(marks(c, "forecast.csv"));
    CHECK(got.header == want.header);
    REQUIRE(got.values.size() == want.values.size());
    return test::max_abs_error(got.values, want.values);
}

}  // namespace

TEST_CASE("onnx convert: time features through a Linear beside the input Linear fold into it and forecast") {
    for (const char* name : kCases) {
        const std::string c = name;
        CAPTURE(c);
        const std::string model = scratch(c + ".axm");
        const std::string target = has_decoder(c) ? " --check-target " + marks(c, "tgt.csv") : "";
        test::Result r = test::auspex("convert " + marks(c, "model.onnx") + " --config " + marks(c, "config.json") +
                                      " --check-input " + marks(c, "src.csv") + target + " --check-output " +
                                      marks(c, "run_out.csv") + " -o " + model);
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        CHECK(r.output.find("proof: the lowered model reproduces the ONNX graph") != std::string::npos);
        CHECK(r.output.find("check: the conversion matches PyTorch") != std::string::npos);

        // One input Linear over the 3 values then the 4 time features: known ahead where a step appends a row (the
        // sliding window, a step-by-step decoder: inputs the model does not predict) or a placeholder stands for one
        // (a one-pass decoder's time marks); a one-pass head reads the window's only.
        const std::unique_ptr<tools::LoadedModel> loaded = tools::open_model(model);
        const ForecasterConfig& fc = loaded->as<Forecaster>().config();
        CHECK(fc.n_features == 7);
        CHECK(fc.n_outputs == 3);
        CHECK(fc.input.kind == format::InputEmbedding::linear);
        CHECK(fc.time_marks == (c == "seq2seq_one_pass" ? 4u : 0u));
        CHECK(fc.known_inputs == (c == "encoder_last_row" ? 0u : 4u));
        // Exported with dynamic axes (x and x_mark each naming its rows): the proof's rows are no training window.
        if (c == "encoder_last_row") CHECK(fc.window == 0);

        // run: PyTorch's forward on the check pair's rows (each side's values, then its time features).
        const tools::CheckPair pair = tools::read_check_pair(
            tools::CheckFiles{marks(c, "src.csv"), has_decoder(c) ? marks(c, "tgt.csv") : "", marks(c, "run_out.csv")},
            format::Family::forecaster);
        const std::vector<float> got = tools::run_check_inputs(*loaded, pair, best_kernels()).values;
        REQUIRE(got.size() == pair.want.values.size());
        const double run_diff = test::max_abs_error(got, pair.want.values);
        MESSAGE(c << ": run vs PyTorch's forward, max difference " << run_diff);
        CHECK(run_diff < 1e-5);

        const double diff = forecast_error(c, model, "f32");
        MESSAGE(c << ": forecast vs the author's loop in PyTorch, max difference " << diff);
        CHECK(diff < 1e-5);

        // int8: the proof runs on the float32 model, the file is int8 and forecasts near PyTorch's loop.
        const std::string q = scratch(c + "_int8.axm");
        r = test::auspex("convert " + marks(c, "model.onnx") + " --config " + marks(c, "config.json") +
                         " --dtype int8 -o " + q);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        CHECK(r.output.find("weights int8") != std::string::npos);
        const double int8_diff = forecast_error(c, q, "int8");
        MESSAGE(c << ": int8 forecast vs the author's loop in PyTorch, max difference " << int8_diff);
        CHECK(int8_diff < 0.05);
    }
}

TEST_CASE("onnx convert: time features of a step-by-step decoder are known inputs the integer-only mode runs") {
    // No "time_marks" record where no placeholder reads them: the decoder's inputs known ahead, which the integer-only
    // mode takes (it refuses time marks).
    const std::string c = "seq2seq_stepwise";
    const std::string q = scratch("integer.axm");
    const test::Result r = test::auspex("convert " + marks(c, "model.onnx") + " --config " + marks(c, "config.json") +
                                        " --integer-only --dtype int8 --calib " + marks(c, "history.csv") +
                                        " --calib-window 8 --calib-horizon 4 -o " + q);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(tools::open_model(q)->as<Forecaster>().integer_plan() != nullptr);
    const double diff = forecast_error(c, q, "integer");
    MESSAGE("seq2seq_stepwise: integer-only forecast vs the author's loop in PyTorch, max difference " << diff);
    CHECK(diff < 0.3);
}

TEST_CASE("onnx convert: the proof feeds a graph's time features from the last columns of each side's rows") {
    for (const char* name : kCases) {
        const std::string c = name;
        CAPTURE(c);
        tools::ConvertOptions options;
        options.checkpoint_path = marks(c, "model.onnx");
        options.config_path = marks(c, "config.json");
        const onnx_import::OnnxImport ox = onnx_import::import_onnx(options);
        CHECK(ox.lowered.src_marks == (has_decoder(c) ? "x_mark_enc" : "x_mark"));
        CHECK(ox.lowered.tgt_marks == (has_decoder(c) ? "x_mark_dec" : ""));
        CHECK(ox.src.cols == 7);
        // The joined rows hold the graph's own inputs: the values first, the time features last.
        const onnx::Tensor& values = ox.fed.at(has_decoder(c) ? "x_enc" : "x");
        const onnx::Tensor& time = ox.fed.at(ox.lowered.src_marks);
        REQUIRE(ox.src.rows * 7 == ox.src.values.size());
        for (size_t r = 0; r < ox.src.rows; ++r) {
            CHECK(ox.src.values[r * 7] == values.f[r * 3]);
            CHECK(ox.src.values[r * 7 + 3] == time.f[r * 4]);
        }
        CHECK(onnx_import::first_block_that_differs(ox).find("every layer recomputed") == 0);
        const tools::ConversionProof proof = onnx_import::prove_against_graph(ox, options.checkpoint_path);
        MESSAGE(c << ": lowered vs the graph, max difference " << proof.max_diff);
        CHECK(proof.proven);
        CHECK(proof.max_diff < 1e-6);
    }
}

TEST_CASE("onnx convert: time features the graph shows cannot be stated otherwise, nor predicted") {
    const std::string c = "seq2seq_one_pass";
    const std::string out = scratch("refused.axm");
    // "time_marks" contradicting the graph's 4 columns.
    std::string config = test::write_file("onnx_linear_marks_count.json", "{\"time_marks\": 2, \"max_positions\": 64}");
    test::check_error(test::auspex("convert " + marks(c, "model.onnx") + " --config " + config + " -o " + out), 1,
                      "\"time_marks\" contradicts the graph");
    // An output named among the time features.
    config = test::write_file("onnx_linear_marks_outputs.json",
                              "{\"features\": [\"OT\", \"HUFL\", \"LUFL\", \"h\", \"w\", \"m\", \"y\"], "
                              "\"outputs\": [\"OT\", \"HUFL\", \"h\"], \"max_positions\": 64}");
    test::check_error(test::auspex("convert " + marks(c, "model.onnx") + " --config " + config + " -o " + out), 1,
                      "names \"h\", one of the last 4 columns");
    // What is not lowered says why, naming the node or the input.
    const std::pair<const char*, const char*> refused[] = {
        {"mlp", "adds graph input x_mark's rows, computed otherwise than by one Linear of x_mark"},
        {"revin", "RevIN beside time features (graph input x_mark) are not lowered"},
        {"marks_first", "graph input x_mark comes before x"}};
    for (const auto& r : refused) {
        const std::string name = r.first;
        CAPTURE(name);
        test::check_error(test::auspex("convert " + marks("refused", name + ".onnx") + " -o " + out), 1, r.second);
    }
    CHECK(!std::filesystem::exists(out));
}

TEST_CASE("convert: a checkpoint whose input Linear reads the values then the time features states \"time_marks\"") {
    // The one-pass model as a state_dict of one input Linear per side over [values, time features]: with
    // "time_marks": 4 its placeholder rows take the forecast's time features, as the ONNX conversion's do.
    const std::string c = "seq2seq_one_pass";
    const std::string model = scratch("checkpoint.axm");
    test::Result r = test::auspex("convert " + marks(c, "checkpoint.pt") + " --config " + marks(c, "checkpoint.json") +
                                  " --check-input " + marks(c, "src.csv") + " --check-target " + marks(c, "tgt.csv") +
                                  " --check-output " + marks(c, "run_out.csv") + " -o " + model);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(tools::open_model(model)->as<Forecaster>().config().time_marks == 4);
    const double diff = forecast_error(c, model, "checkpoint");
    MESSAGE("seq2seq_one_pass checkpoint: forecast vs the author's loop in PyTorch, max difference " << diff);
    CHECK(diff < 1e-5);
    // The same forecast, bit for bit, as the model converted from the ONNX graph.
    const std::string onnx_model = scratch("checkpoint_onnx.axm");
    r = test::auspex("convert " + marks(c, "model.onnx") + " --config " + marks(c, "config.json") + " -o " +
                     onnx_model);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    forecast_error(c, onnx_model, "checkpoint_onnx");
    CHECK(tools::read_csv(scratch(c + "_checkpoint_forecast.csv")).values ==
          tools::read_csv(scratch(c + "_checkpoint_onnx_forecast.csv")).values);
    // A count other than the token convolution's, or naming a predicted column, is refused.
    const std::string conv = test::write_file(
        "onnx_linear_marks_conv.json",
        "{\"arch\": \"forecaster\", \"nhead\": 2, \"positional_encoding\": \"sinusoidal\", \"decoding\": \"one_pass\", "
        "\"label_len\": 4, \"horizon\": 3, \"time_marks\": 3}");
    test::check_error(test::auspex("convert " + test::fixture_path("onnx_convert/time_marks.pt") + " --config " + conv +
                                   " -o " + scratch("refused.axm")),
                      1, "contradicts the checkpoint's time-feature Linear src_time_marks.weight, which reads 4");
    const std::string many = test::write_file(
        "onnx_linear_marks_many.json",
        "{\"arch\": \"forecaster\", \"nhead\": 2, \"positional_encoding\": \"sinusoidal\", \"decoding\": \"one_pass\", "
        "\"label_len\": 4, \"horizon\": 4, \"time_marks\": 5}");
    test::check_error(
        test::auspex("convert " + marks(c, "checkpoint.pt") + " --config " + many + " -o " + scratch("refused.axm")), 1,
        "leaves 2 value columns of 7, and the model predicts 3");
}
