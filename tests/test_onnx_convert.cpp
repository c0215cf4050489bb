// convert MODEL.onnx: forecasters exported with torch.onnx.export, lowered onto the forecaster's blocks and imported
// through the checkpoint importer, give the same tensors, records and forecasts bit for bit as the same module's
// torch.save'd state_dict with its config; both reproduce PyTorch's forward; the converter proves itself against
// the graph; nodes no block explains are refused by name.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>

#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/common/tool_error.h"
#include "tools/convert/conversion_check.h"
#include "tools/convert/converter.h"
#include "tools/host/model_loader.h"
#include "tools/import/convert_config.h"
#include "tools/onnx_import/onnx_convert.h"
#include "tools/text/csv.h"

using namespace ax;

namespace {

struct Case {
    const char* name;
    bool decoder;
};
const Case kCases[] = {{"post_relu_sin", true},
                       {"pre_gelu_learned", true},
                       {"post_gelu_nofold", true},
                       {"encoder_flatten", false},
                       {"encoder_last_row", false},
                       {"encoder_flatten_op15", false},
                       {"encoder_last_row_op16", false},
                       {"encoder_last_row_f64", false},
                       {"revin_affine", false},
                       {"revin_plain", false},
                       {"revin_subtract_last", false},
                       {"batchnorm_flatten", false},
                       {"batchnorm_revin", false},
                       {"memory_tril", true},
                       {"token_conv", true},
                       {"patch_revin", false},
                       {"patch_nopad", false},
                       {"gelu_tanh", false},
                       // Laid out sequence first (batch_first=False): permuted inside forward (fixed axes), or fed
                       // [rows, batch, features] (dynamic axes).
                       {"seqfirst_permuted", true},
                       {"seqfirst_dynamic", true},
                       {"seqfirst_last_row", false},
                       {"seqfirst_last_row_dynamic", false},
                       // RevIN (its statistics over dim 0) and patches around stacks laid out sequence first: fed
                       // [rows, batch, features] (dynamic axes) or permuted inside forward; a one-pass decoder built
                       // from the normalized window, sequence first and batch first (its .tgt.csv is the decoder
                       // input the forward builds).
                       {"seqfirst_revin", false},
                       {"seqfirst_revin_flatten", false},
                       {"seqfirst_patch", false},
                       {"seqfirst_patch_dynamic", false},
                       {"seqfirst_revin_decoder", true},
                       {"revin_decoder", true},
                       // The Time-Series-Library's forward(x_enc, x_mark_enc, x_dec, x_mark_dec): time features beside
                       // the token convolution, the output cut to pred_len rows (one-pass).
                       {"time_marks", true},
                       // PatchTST as its authors wrote it: residual attention (each layer adds the previous layer's
                       // pre-softmax scores), BatchNorm, their module names (converted with their rename map).
                       {"patchtst_res_attention", false}};

std::string path_of(const std::string& name, const std::string& ext) {
    return test::fixture_path("onnx_convert/" + name + ext);
}

// The rename map a case's state_dict needs: the authors' PatchTST keeps its own module names.
std::string map_of(const std::string& name) {
    return name.rfind("patchtst", 0) == 0 ? std::string(AUSPEX_SOURCE_DIR) + "/tools/import/maps/patchtst.map" : "";
}

tools::CheckPair pytorch_pair(const Case& c) {
    tools::CheckFiles files{path_of(c.name, ".src.csv"), c.decoder ? path_of(c.name, ".tgt.csv") : "",
                            path_of(c.name, ".out.csv")};
    return tools::read_check_pair(files, format::Family::forecaster);
}

std::vector<float> run(const std::vector<uint8_t>& bytes, const tools::CheckPair& pair) {
    const std::unique_ptr<tools::LoadedModel> m = tools::open_model_bytes(bytes, "test model");
    return tools::run_check_inputs(*m, pair, best_kernels()).values;
}

// The same tensors (role, layer, shape, bytes) in the same order, and the same records but for the "defaults"
// record (which keys the checkpoint's config left to defaults that the graph states).
void check_same_model(const tools::AxmModel& pt, const tools::AxmModel& ox) {
    CHECK(pt.family == ox.family);
    REQUIRE(pt.tensors.size() == ox.tensors.size());
    for (size_t i = 0; i < pt.tensors.size(); ++i) {
        CAPTURE(pt.tensors[i].source_name);
        CHECK(pt.tensors[i].role == ox.tensors[i].role);
        CHECK(pt.tensors[i].layer == ox.tensors[i].layer);
        CHECK(pt.tensors[i].dims == ox.tensors[i].dims);
        CHECK(pt.tensors[i].data == ox.tensors[i].data);
    }
    auto records = [](const tools::AxmModel& m) {
        std::vector<std::pair<format::ConfigKey, uint32_t>> r;
        for (const auto& kv : m.config)
            if (kv.first != format::ConfigKey::defaults) r.push_back(kv);
        std::sort(r.begin(), r.end());
        return r;
    };
    const auto want = records(pt), got = records(ox);
    std::string diff;
    for (const auto& kv : want)
        if (std::find(got.begin(), got.end(), kv) == got.end())
            diff += " checkpoint " + std::to_string(static_cast<int>(kv.first)) + "=" + std::to_string(kv.second);
    for (const auto& kv : got)
        if (std::find(want.begin(), want.end(), kv) == want.end())
            diff += " onnx " + std::to_string(static_cast<int>(kv.first)) + "=" + std::to_string(kv.second);
    CHECK_MESSAGE(want == got, "records differ:" << diff);
}

// Both models' outputs for the pair: the same bits; the graph's within `bound` of PyTorch's. Returns the latter.
double check_same_outputs(const tools::AxmModel& pt, const tools::AxmModel& ox, const tools::CheckPair& pair,
                          double bound) {
    const std::vector<float> a = run(tools::serialize_axm(pt), pair);
    const std::vector<float> b = run(tools::serialize_axm(ox), pair);
    REQUIRE(a.size() == b.size());
    CHECK(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
    const tools::CheckResult r = tools::compare_outputs(b, pair.want);
    CHECK(r.passed);
    CHECK(r.max_diff < bound);
    return r.max_diff;
}

}  // namespace

TEST_CASE("onnx convert: an exported forecaster and its state_dict convert to the same tensors and forecasts") {
    for (const Case& c : kCases) {
        const std::string name = c.name;
        CAPTURE(name);
        tools::ConvertOptions from_pt;
        from_pt.checkpoint_path = path_of(c.name, ".pt");
        from_pt.config_path = path_of(c.name, ".json");
        from_pt.map_path = map_of(name);
        const tools::AxmModel pt =
            tools::import_model(tools::read_model_tensors(from_pt), tools::read_convert_config(from_pt.config_path));
        tools::ConvertOptions from_onnx;
        from_onnx.checkpoint_path = path_of(c.name, ".onnx");
        if (std::filesystem::exists(path_of(c.name, ".onnx.json")))
            from_onnx.config_path = path_of(c.name, ".onnx.json");
        const onnx_import::OnnxImport ox = onnx_import::import_onnx(from_onnx);

        check_same_model(pt, ox.model);
        // Forecasts: bit for bit the same, and both PyTorch's within the conversion check's tolerance.
        const double diff = check_same_outputs(pt, ox.model, pytorch_pair(c), 2e-6);
        MESSAGE(name << ": ONNX-lowered vs PyTorch max difference " << diff);

        // Every layer recomputed on the host from the lowered tensors matches the graph's value at its end.
        CHECK(onnx_import::first_block_that_differs(ox).find("every layer recomputed") == 0);
        // The converter's own proof against the graph.
        const tools::ConversionProof proof = onnx_import::prove_against_graph(ox, from_onnx.checkpoint_path);
        MESSAGE(name << ": lowered vs the graph (host reference) max difference " << proof.max_diff);
        CHECK(proof.proven);
        CHECK(proof.max_diff < 2e-6);
    }
}

TEST_CASE("onnx convert: opset 18 graphs (Reduce* axes as an input) lower to the same model as their opset-17 export") {
    // gen_onnx_opset18_fixtures.py rewrites three opset-17 exports as newer exporters write them at opset 18.
    for (const Case& c : {Case{"encoder_mean", false}, Case{"patch_revin", false}, Case{"pre_gelu_learned", true}}) {
        const std::string name = c.name;
        CAPTURE(name);
        tools::ConvertOptions op17, op18;
        op17.checkpoint_path = path_of(name, ".onnx");
        op18.checkpoint_path = path_of(name + "_op18", ".onnx");
        if (std::filesystem::exists(path_of(name, ".onnx.json")))
            op17.config_path = op18.config_path = path_of(name, ".onnx.json");
        const onnx_import::OnnxImport a = onnx_import::import_onnx(op17), b = onnx_import::import_onnx(op18);
        check_same_model(a.model, b.model);
        const double diff = check_same_outputs(a.model, b.model, pytorch_pair(c), 2e-6);
        MESSAGE(name << "_op18: ONNX-lowered vs PyTorch max difference " << diff);
        const tools::ConversionProof proof = onnx_import::prove_against_graph(b, op18.checkpoint_path);
        CHECK(proof.proven);
        CHECK(proof.max_diff < 2e-6);
    }
}

TEST_CASE("onnx convert: residual attention adding other scores than the previous layer's is refused by name") {
    const std::string dir = test::scratch_dir().string() + "/onnx_skip_scores";
    std::filesystem::create_directories(dir);
    test::check_error(
        test::auspex("convert " + path_of("patchtst_skip_scores", ".onnx") + " -o " + dir + "/m.axm"), 1,
        "/model/backbone/encoder/layers.2/self_attn/sdp_attn/Softmax: encoder layer 2's attention adds "
        "the scores /model/backbone/encoder/layers.0/self_attn/sdp_attn/Mul_output_0 to its own, which "
        "are not the previous layer's (/model/backbone/encoder/layers.1/self_attn/sdp_attn/Add_output_0)");
}

TEST_CASE("onnx convert: the proof refuses a lowered model that does not reproduce the graph") {
    tools::ConvertOptions options;
    options.checkpoint_path = path_of("encoder_flatten", ".onnx");
    options.config_path = path_of("encoder_flatten", ".onnx.json");
    onnx_import::OnnxImport ox = onnx_import::import_onnx(options);
    // A lowering that read one weight wrong: the generator's first value off by 0.05.
    bool changed = false;
    for (tools::AxmTensor& t : ox.model.tensors) {
        if (t.role != format::Role::generator_weight) continue;
        float w = 0;
        std::memcpy(&w, t.data.data(), sizeof w);
        w += 0.05f;
        std::memcpy(t.data.data(), &w, sizeof w);
        changed = true;
    }
    REQUIRE(changed);
    CHECK_THROWS_WITH_AS(onnx_import::prove_against_graph(ox, options.checkpoint_path),
                         doctest::Contains("the lowered model does not reproduce the ONNX graph"), tools::ToolError);
    // The layers all match: the head is where it differs.
    CHECK_THROWS_WITH_AS(onnx_import::prove_against_graph(ox, options.checkpoint_path),
                         doctest::Contains("every layer recomputed from the lowered tensors matches the graph: the "
                                           "difference is in the input block or the head"),
                         tools::ToolError);
}

TEST_CASE("onnx convert: a failed proof names the first block whose output differs from the graph's") {
    tools::ConvertOptions options;
    options.checkpoint_path = path_of("pre_gelu_learned", ".onnx");
    onnx_import::OnnxImport ox = onnx_import::import_onnx(options);
    // A lowering that read the second encoder layer's feed-forward wrong: its first weight off by 0.5, in the lowered
    // tensors and in the model alike.
    const std::string name = "transformer.encoder.layers.1.linear1.weight";
    ox.lowered.tensors.at(name).data[0] += 0.5f;
    bool changed = false;
    for (tools::AxmTensor& t : ox.model.tensors) {
        if (t.source_name != name) continue;
        float w = 0;
        std::memcpy(&w, t.data.data(), sizeof w);
        w += 0.5f;
        std::memcpy(t.data.data(), &w, sizeof w);
        changed = true;
    }
    REQUIRE(changed);
    CHECK_THROWS_WITH_AS(onnx_import::prove_against_graph(ox, options.checkpoint_path),
                         doctest::Contains("the first block that differs is encoder layer 1 (ending at ONNX value"),
                         tools::ToolError);
    // Untouched, every layer recomputed from the lowered tensors matches the graph, decoder included.
    ox = onnx_import::import_onnx(options);
    CHECK(onnx_import::first_block_that_differs(ox).find("every layer recomputed from the lowered tensors matches") ==
          0);
}

TEST_CASE("cli: auspex convert MODEL.onnx proves the conversion against the graph, and against PyTorch when asked") {
    const std::string dir = test::scratch_dir().string();
    const std::string model = path_of("post_relu_sin", ".onnx");
    const std::string out = dir + "/onnx_post_relu_sin.axm";
    test::Result r =
        test::auspex("convert " + model + " --config " + path_of("post_relu_sin", ".onnx.json") + " -o " + out);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("proof: the lowered model reproduces the ONNX graph (host reference evaluator, 6-row input)") !=
          std::string::npos);
    r = test::auspex("inspect " + out);
    CHECK(r.output.find("proof:    proven: the float32 model reproduced the ONNX graph post_relu_sin.onnx") !=
          std::string::npos);
    CHECK(r.output.find("layers:   post-norm, activation relu, layer_norm_eps 1e-05") != std::string::npos);
    CHECK(r.output.find("positional_encoding sinusoidal, max_positions 64, memory_mask none") != std::string::npos);

    // With a check pair from PyTorch, that is what the file records.
    r = test::auspex("convert " + model + " --config " + path_of("post_relu_sin", ".onnx.json") + " -o " + out +
                     " --check-input " + path_of("post_relu_sin", ".src.csv") + " --check-target " +
                     path_of("post_relu_sin", ".tgt.csv") + " --check-output " + path_of("post_relu_sin", ".out.csv"));
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("check: the conversion matches PyTorch on") != std::string::npos);
    r = test::auspex("inspect " + out);
    CHECK(r.output.find("reproduced PyTorch's output post_relu_sin.out.csv") != std::string::npos);
    // A check output that is not this model's is refused, though the graph reproduces itself.
    test::check_error(test::auspex("convert " + model + " --config " + path_of("post_relu_sin", ".onnx.json") + " -o " +
                                   out + " --check-input " + path_of("pre_gelu_learned", ".src.csv") +
                                   " --check-target " + path_of("pre_gelu_learned", ".tgt.csv") + " --check-output " +
                                   path_of("pre_gelu_learned", ".out.csv")),
                      1, "the graph reproduces itself, so the export differs from the PyTorch module");

    // Without the config, the limit of positions is the rows the fixed-axes export ran, with a note.
    r = test::auspex("convert " + model + " -o " + out);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("the graph holds the position table's first 6 rows only") != std::string::npos);
}

TEST_CASE("cli: auspex convert MODEL.onnx refuses what no block explains, and configs that contradict the graph") {
    const std::string dir = test::scratch_dir().string() + "/onnx_refused";
    std::filesystem::create_directories(dir);
    test::check_error(test::auspex("convert " + test::fixture_path("onnx/conv_embed.onnx") + " -o " + dir + "/m.axm"),
                      1, "graph input x is read by Transpose node /Transpose (inputs x), which no block explains");
    test::check_error(test::auspex("convert " + test::fixture_path("onnx/misc_ops.onnx") + " -o " + dir + "/m.axm"), 1,
                      "Softmax node /Softmax (inputs /Where_output_0) is no attention this converter knows");
    // Heads of different value widths joined by one Concat; keys shared by every head (multi-query attention).
    test::check_error(
        test::auspex("convert " + test::fixture_path("onnx_quirks/per_head_mixed/model.onnx") + " -o " + dir +
                     "/m.axm"),
        1,
        "Softmax node /blocks/blocks.0/heads.1/Softmax: its head's values are 8 wide, the first head's (Softmax node "
        "/blocks/blocks.0/heads.0/Softmax) 16");
    test::check_error(
        test::auspex("convert " + test::fixture_path("onnx_quirks/multi_query/model.onnx") + " -o " + dir + "/m.axm"),
        1,
        "Softmax node /Softmax: its queries and keys have different widths (query projection [16, 16], key "
        "projection [8, 16])");
    // A rename map and the config search are a checkpoint's: the graph is read by its structure.
    test::check_error(
        test::auspex("convert " + path_of("pre_gelu_learned", ".onnx") + " --map x.map -o " + dir + "/m.axm"), 1,
        "an ONNX graph is lowered by its structure: drop --map");
    test::check_error(test::auspex("convert " + path_of("pre_gelu_learned", ".onnx") + " --find-config f.json" +
                                   " --check-input a.csv --check-output b.csv -o " + dir + "/m.axm"),
                      2, "--find-config searches a checkpoint's config; an ONNX graph shows its own");
    std::string config = test::write_file("onnx_nhead.json", "{\"nhead\": 4}");
    test::check_error(test::auspex("convert " + path_of("pre_gelu_learned", ".onnx") + " --config " + config + " -o " +
                                   dir + "/m.axm"),
                      1, "\"nhead\" contradicts the graph");
    config = test::write_file("onnx_arch.json", "{\"arch\": \"seq2seq\"}");
    test::check_error(test::auspex("convert " + path_of("pre_gelu_learned", ".onnx") + " --config " + config + " -o " +
                                   dir + "/m.axm"),
                      1, "converting an ONNX graph lowers forecasters");
    // Options the graph shows (RevIN's subtract_last, a tril memory mask, RevIN itself) cannot be stated otherwise.
    config = test::write_file("onnx_subtract_last.json", "{\"subtract_last\": false}");
    test::check_error(test::auspex("convert " + path_of("revin_subtract_last", ".onnx") + " --config " + config +
                                   " -o " + dir + "/m.axm"),
                      1, "\"subtract_last\" contradicts the graph");
    config = test::write_file("onnx_memory_mask.json", "{\"memory_mask\": \"none\"}");
    test::check_error(
        test::auspex("convert " + path_of("memory_tril", ".onnx") + " --config " + config + " -o " + dir + "/m.axm"), 1,
        "\"memory_mask\" contradicts the graph");
    // The loop the Time-Series-Library's graph shows (its output cut to pred_len rows after label_len); time
    // features through a Linear with a bias, which TimeFeatureEmbedding has not.
    config = test::write_file("onnx_label_len.json", "{\"label_len\": 2, \"max_positions\": 64}");
    test::check_error(
        test::auspex("convert " + path_of("time_marks", ".onnx") + " --config " + config + " -o " + dir + "/m.axm"), 1,
        "\"label_len\" contradicts the graph");
    test::check_error(test::auspex("convert " + path_of("time_marks_bias", ".onnx") + " -o " + dir + "/m.axm"), 1,
                      "adds a bias: the Time-Series-Library's TimeFeatureEmbedding has none");
    config = test::write_file("onnx_revin.json", "{\"revin\": false}");
    test::check_error(
        test::auspex("convert " + path_of("revin_plain", ".onnx") + " --config " + config + " -o " + dir + "/m.axm"), 1,
        "\"revin\" contradicts the graph");
    // x.unfold(-1, ...) exports its windows on another axis with torch 1.13: the graph is no patched model.
    test::check_error(test::auspex("convert " + path_of("patch_unfold_last", ".onnx") + " -o " + dir + "/m.axm"), 1,
                      "is no attention this converter knows");
    // A formula shaped like GELU's tanh form with another constant is not taken for it.
    test::check_error(test::auspex("convert " + path_of("gelu_tanh_other", ".onnx") + " -o " + dir + "/m.axm"), 1,
                      "looks like GELU's tanh approximation but not in the form torch writes it");
    // nn.Conv1d(padding_mode="circular") exports its wrap-around one step off: the graph computes another model.
    test::check_error(test::auspex("convert " + path_of("token_conv_circular_mode", ".onnx") + " -o " + dir + "/m.axm"),
                      1, "pads the input's channels otherwise than circularly by one step");
    CHECK(!std::filesystem::exists(dir + "/m.axm"));
}

namespace {

std::string quirk(const std::string& c, const std::string& f) {
    return test::fixture_path("onnx_quirks/" + c + "/" + f);
}

}  // namespace

TEST_CASE(
    "onnx convert: quirks of public code the graph shows convert, match PyTorch and forecast as the author's loop") {
    // decoder_unmasked: a decoder called without tgt_mask; batch_pe: a position table indexed by the batch (every
    // row gets PE(0)); einsum_encoder: hand-written q/k/v Linears with einsum scores, a per-row head, a sliding loop;
    // stack_residual: the embedded rows added to the encoder's output, a causal encoder mask; per_head: nanoGPT's
    // attention, one bias-free q/k/v Linear per head, masked_fill with a tril buffer, the heads concatenated.
    // last_rows_decoder: forward(x) feeds the decoder x's last rows and zero rows (one-pass decoding): PyTorch's
    // forward takes no decoder input, so no check pair; its one call is the forecast compared below.
    // seqfirst_decoder, seqfirst_encoder: batch_first=False stacks, batch-first inputs permuted inside forward.
    // per_head_wide: per_head with value heads as wide as d_model; per_head_wide_decoder: an encoder-decoder written
    // head by head the same way (the decoder's key/value caches hold the wide values).
    for (const char* name :
         {"decoder_unmasked", "batch_pe", "einsum_encoder", "stack_residual", "per_head", "last_rows_decoder",
          "seqfirst_decoder", "seqfirst_encoder", "per_head_wide", "per_head_wide_decoder"}) {
        const std::string c = name;
        CAPTURE(c);
        const bool target =
            c == "decoder_unmasked" || c == "batch_pe" || c == "seqfirst_decoder" || c == "per_head_wide_decoder";
        const bool pair = c != "last_rows_decoder";
        const std::string model = (test::scratch_dir() / ("onnx_quirk_" + c + ".axm")).string();
        test::Result r = test::auspex("convert " + quirk(c, "model.onnx") + " --config " + quirk(c, "config.json") +
                                      (pair ? " --check-input " + quirk(c, "src.csv") : "") +
                                      (target ? " --check-target " + quirk(c, "tgt.csv") : "") +
                                      (pair ? " --check-output " + quirk(c, "run_out.csv") : "") + " -o " + model);
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        CHECK(r.output.find("proof: the lowered model reproduces the ONNX graph") != std::string::npos);
        CHECK((!pair || r.output.find("check: the conversion matches PyTorch") != std::string::npos));
        if (c == "batch_pe") CHECK(r.output.find("adds one constant row to every row") != std::string::npos);
        const std::string out = (test::scratch_dir() / ("onnx_quirk_" + c + "_forecast.csv")).string();
        r = test::auspex("forecast " + model + " --input " + quirk(c, "history.csv") + " --horizon 6 -o " + out);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        const tools::Table got = tools::read_csv(out), want = tools::read_csv(quirk(c, "forecast.csv"));
        CHECK(got.header == want.header);
        const double diff = test::max_abs_error(got.values, want.values);
        MESSAGE(c << ": forecast vs the author's loop in PyTorch, max difference " << diff);
        CHECK(diff < 1e-5);
    }
    // The decoder without tgt_mask is recorded as such (it reruns the whole decoder each step).
    const test::Result r =
        test::auspex("inspect " + (test::scratch_dir() / "onnx_quirk_decoder_unmasked.axm").string());
    CHECK(r.output.find("decoder_mask none: every decoder row attends to every other") != std::string::npos);
    const std::unique_ptr<tools::LoadedModel> residual =
        tools::open_model((test::scratch_dir() / "onnx_quirk_stack_residual.axm").string());
    CHECK(residual->as<Forecaster>().config().stacks.encoder_residual);
}

TEST_CASE("onnx convert: RevIN and patches around stacks laid out sequence first forecast as their authors do") {
    // Converted with what the graph cannot show (NAME.loop.json: the columns' names; the window of a dynamic-axes
    // export or an encoder-decoder) and PyTorch's check pair; `forecast` on a history longer than the window gives
    // what the author's model called on the history's last window gives in PyTorch (NAME.forecast.csv); int8 weights
    // too, within the int8 bound of the other converted graphs.
    for (const char* name : {"seqfirst_revin", "seqfirst_revin_flatten", "seqfirst_patch", "seqfirst_patch_dynamic",
                             "seqfirst_revin_decoder", "revin_decoder"}) {
        const std::string c = name;
        CAPTURE(c);
        const bool decoder = c.find("decoder") != std::string::npos;
        for (const bool int8 : {false, true}) {
            CAPTURE(int8);
            const std::string model =
                (test::scratch_dir() / ("onnx_loop_" + c + (int8 ? "_int8" : "") + ".axm")).string();
            test::Result r = test::auspex(
                "convert " + path_of(c, ".onnx") + " --config " + path_of(c, ".loop.json") + " --check-input " +
                path_of(c, ".src.csv") + (decoder ? " --check-target " + path_of(c, ".tgt.csv") : "") +
                " --check-output " + path_of(c, ".out.csv") +
                (int8 ? std::string(" --dtype int8") + (decoder ? " --kv-cache int8" : "") : "") + " -o " + model);
            INFO(r.output);
            REQUIRE(r.exit_code == 0);
            CHECK(r.output.find("proof: the lowered model reproduces the ONNX graph") != std::string::npos);
            CHECK(r.output.find("check: the conversion matches PyTorch") != std::string::npos);
            CHECK((!int8 || r.output.find("weights int8") != std::string::npos));
            const std::string out =
                (test::scratch_dir() / ("onnx_loop_" + c + (int8 ? "_int8" : "") + ".csv")).string();
            r = test::auspex("forecast " + model + " --input " + path_of(c, ".history.csv") + " -o " + out);
            REQUIRE_MESSAGE(r.exit_code == 0, r.output);
            const tools::Table got = tools::read_csv(out), want = tools::read_csv(path_of(c, ".forecast.csv"));
            CHECK(got.header == want.header);
            REQUIRE(got.values.size() == want.values.size());
            const double diff = test::max_abs_error(got.values, want.values);
            const std::string label = c + (int8 ? " int8" : "");
            MESSAGE(label << ": forecast vs the author's inference in PyTorch, max difference " << diff);
            CHECK(diff < (int8 ? 0.05 : 1e-5));
        }
    }
}

TEST_CASE("onnx convert: RevIN's statistics over another axis than the window's rows are refused naming the node") {
    const std::string dir = test::scratch_dir().string() + "/onnx_revin_axis";
    std::filesystem::create_directories(dir);
    // layers/RevIN.py unchanged (dim2reduce = 1) fed [length, batch, features]: its statistics are over the batch.
    test::check_error(
        test::auspex("convert " + path_of("seqfirst_revin_batch", ".onnx") + " -o " + dir + "/m.axm"), 1,
        "ReduceMean node /revin_layer/ReduceMean_1 (inputs x) and the nodes after it normalize x [8, 1, 3] over its "
        "axis 1 (the batch), where RevIN's statistics are over the window's rows (axis 0 of an input laid out "
        "sequence first)");
    test::check_error(
        test::auspex("convert " + path_of("seqfirst_revin_features", ".onnx") + " -o " + dir + "/m.axm"), 1,
        "ReduceMean node /revin_layer/ReduceMean_1 (inputs x) and the nodes after it normalize x [8, 1, 3] over its "
        "axis 2 (the features), where RevIN's statistics are over the window's rows (axis 0 of an input laid out "
        "sequence first): a normalization over another axis is not lowered");
    CHECK(!std::filesystem::exists(dir + "/m.axm"));
}

TEST_CASE(
    "onnx convert: the Time-Series-Library's four-input graph forecasts with its time features from the timestamps") {
    // forward(x_enc, x_mark_enc, x_dec, x_mark_dec) exported; the config names the columns and the calendar, and
    // `forecast` computes the window's and the horizon's time features from history.csv's timestamps.
    const std::string c = "time_marks_calendar";
    const std::string model = (test::scratch_dir() / "onnx_time_marks_calendar.axm").string();
    test::Result r =
        test::auspex("convert " + quirk(c, "model.onnx") + " --config " + quirk(c, "config.json") + " -o " + model);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("proof: the lowered model reproduces the ONNX graph") != std::string::npos);
    const std::unique_ptr<tools::LoadedModel> loaded = tools::open_model(model);
    CHECK(loaded->as<Forecaster>().config().time_marks == 4);
    const std::string out = (test::scratch_dir() / "onnx_time_marks_calendar_forecast.csv").string();
    r = test::auspex("forecast " + model + " --input " + quirk(c, "history.csv") + " --horizon 3 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const tools::Table got = tools::read_csv(out), want = tools::read_csv(quirk(c, "forecast.csv"));
    CHECK(got.header == want.header);
    const double diff = test::max_abs_error(got.values, want.values);
    MESSAGE("time_marks_calendar: forecast vs the library's experiment in PyTorch, max difference " << diff);
    CHECK(diff < 1e-5);
}

namespace {

// A family fixture `folder`/`c` (.pt with .json, .onnx with an optional .onnx.json, a check pair): both files convert
// to the same tensors, records and outputs; the graph's layers recompute; the proof holds within 1e-6. Returns the
// ONNX import for further checks.
onnx_import::OnnxImport check_family_case(const std::string& folder, const std::string& c, format::Family family,
                                          const std::string& input_ext, const std::string& target_ext) {
    auto path = [&](const std::string& ext) { return test::fixture_path(folder + c + ext); };
    tools::ConvertOptions from_pt;
    from_pt.checkpoint_path = path(".pt");
    const tools::AxmModel pt =
        tools::import_model(tools::read_model_tensors(from_pt), tools::read_convert_config(path(".json")));
    tools::ConvertOptions from_onnx;
    from_onnx.checkpoint_path = path(".onnx");
    if (std::filesystem::exists(path(".onnx.json"))) from_onnx.config_path = path(".onnx.json");
    onnx_import::OnnxImport ox = onnx_import::import_onnx(from_onnx);
    CHECK(ox.model.family == family);
    check_same_model(pt, ox.model);
    const tools::CheckPair pair = tools::read_check_pair(
        tools::CheckFiles{path(input_ext), target_ext.empty() ? "" : path(target_ext), path(".out.csv")}, family);
    CHECK(onnx_import::first_block_that_differs(ox).find("every layer recomputed") == 0);
    MESSAGE(c << ": ONNX-lowered vs PyTorch max difference " << check_same_outputs(pt, ox.model, pair, 1e-6));
    const tools::ConversionProof proof = onnx_import::prove_against_graph(ox, from_onnx.checkpoint_path);
    MESSAGE(c << ": lowered vs the graph max difference " << proof.max_diff);
    CHECK(proof.proven);
    CHECK(proof.max_diff < 1e-6);
    return ox;
}

}  // namespace

TEST_CASE("onnx convert: an exported Transformer-VAE and its state_dict convert to the same tensors and outputs") {
    // The graph's three outputs (reconstruction, z_mean, z_log_var); the decoder attends to z_mean embedded and
    // repeated over the rows, and reads the sequence shifted right after a zero row.
    for (const char* name : {"post_relu_pe", "pre_gelu_norms"}) {
        CAPTURE(name);
        check_family_case("onnx_tvae/", name, format::Family::tvae, ".src.csv", "");
    }
}

TEST_CASE("onnx convert: an exported classifier and its state_dict convert to the same tensors and probabilities") {
    // first_padded: a key-padding mask the graph makes from the ids (tokens == 0), read as "pad_id": 0.
    // seqfirst_mean: ids [length, batch] (batch_first=False, dynamic axes), the mean over dim 0.
    for (const char* name : {"mean_softmax", "first_sigmoid", "first_padded", "seqfirst_mean"}) {
        CAPTURE(name);
        check_family_case("onnx_classifier/", name, format::Family::classifier, ".tokens.txt", "");
    }
}

TEST_CASE("onnx convert: the proof refuses a classifier whose mean pools the padding the runtime leaves out") {
    // The graph masks keys whose id is 0 but averages every row, pads included; the runtime's mean leaves pads out.
    test::check_error(test::auspex("convert " + test::fixture_path("onnx_classifier/mean_over_pads.onnx") + " -o " +
                                   (test::scratch_dir() / "mean_over_pads.axm").string()),
                      1, "the lowered model does not reproduce the ONNX graph");
    CHECK(!std::filesystem::exists(test::scratch_dir() / "mean_over_pads.axm"));
}

TEST_CASE("cli: a converted ONNX graph is a model like any other: int8, external data, header") {
    const std::string dir = test::scratch_dir().string();
    // Weights in an external data file beside the model.
    test::Result r =
        test::auspex("convert " + test::fixture_path("onnx/external/model.onnx") + " -o " + dir + "/onnx_external.axm");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("proof: the lowered model reproduces the ONNX graph") != std::string::npos);
    // int8 weights and caches: the proof runs on the float32 model, the file is int8 and forecasts.
    const std::string q = dir + "/onnx_int8.axm";
    r = test::auspex("convert " + quirk("decoder_unmasked", "model.onnx") + " --config " +
                     quirk("decoder_unmasked", "config.json") + " --dtype int8 --kv-cache int8 -o " + q);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("weights int8, int8 kv cache") != std::string::npos);
    const std::string forecast = dir + "/onnx_int8_forecast.csv";
    r = test::auspex("forecast " + q + " --input " + quirk("decoder_unmasked", "history.csv") + " --horizon 6 -o " +
                     forecast);
    CHECK(r.exit_code == 0);
    const tools::Table got = tools::read_csv(forecast),
                       want = tools::read_csv(quirk("decoder_unmasked", "forecast.csv"));
    const double diff = test::max_abs_error(got.values, want.values);
    MESSAGE("int8 forecast of the ONNX-converted decoder_unmasked vs PyTorch's loop: max difference " << diff);
    CHECK(diff < 0.05);
    r = test::auspex("header " + q + " -o " + dir + "/onnx_int8.h");
    CHECK(r.exit_code == 0);
}

TEST_CASE("onnx convert: an exported translator and its state_dict convert to the same tensors and logits") {
    // translator_tgt_pad: the target's own padding masked too (tgt_key_padding_mask of the same pad id).
    // translator_seqfirst: the translation tutorial's layout, ids [length, batch] (batch_first=False).
    for (const char* name : {"translator", "translator_tgt_pad", "translator_seqfirst"}) {
        const std::string c = name;
        CAPTURE(c);
        // pad_id 1 read off the graph's padding masks
        const onnx_import::OnnxImport ox =
            check_family_case("onnx_classifier/", c, format::Family::seq2seq, ".src.txt", ".tgt.txt");
        CHECK(ox.lowered.target_pad == (c != "translator"));
    }
}
