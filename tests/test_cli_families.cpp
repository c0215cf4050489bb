// The CLI commands of the token and latent families end to end: convert, inspect, translate, run, classify,
// reconstruct, generate; bad input gives one error line and a non-zero exit.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/cli_support.h"
#include "tests/family_support.h"
#include "tests/tolerances.h"
#include "tools/text/csv.h"
#include "tools/host/family_sessions.h"

namespace {

using ax::test::auspex;
using ax::test::check_error;
using ax::test::Result;
using ax::test::scratch_dir;
using ax::test::write_file;

std::string fixture(const std::string& family_case, const std::string& file) {
    return ax::test::fixture_path(family_case + "/" + file);
}

// Converts a fixture case once (optionally through a rename map) and returns the .axm path.
std::string converted(const std::string& family_case, const std::string& extra = "") {
    std::string stem = family_case;
    for (char& ch : stem)
        if (ch == '/') ch = '_';
    return ax::test::converted_fixture(family_case, stem + ".axm", extra);
}

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("cli seq2seq: inspect names the family and every role; translate and run reproduce PyTorch") {
    const std::string model = converted("seq2seq/tutorial");
    const Result info = auspex("inspect " + model + " --src-len 12 --tgt-len 12");
    REQUIRE_MESSAGE(info.exit_code == 0, info.output);
    CHECK(has(info, "family:   seq2seq"));
    for (const char* role : {"src_token_embed.weight", "tgt_token_embed.weight", "generator.weight",
                             "encoder.norm.weight", "decoder.norm.bias", "encoder.layers.1.self_attn.in_proj_weight",
                             "decoder.layers.1.multihead_attn.out_proj.bias"})
        CHECK_MESSAGE(has(info, role), role);
    CHECK(has(info, "positional_encoding sinusoidal"));
    const auto m = ax::tools::open_model(model);
    CHECK(has(info, "arena:    " + std::to_string(m->as<ax::Seq2Seq>().arena_bytes(12, 12)) + " bytes"));

    const ax::tools::JsonValue j = ax::test::case_json(fixture("seq2seq/tutorial", ""));
    for (const ax::tools::JsonValue& g : j.find("greedy")->as_array("greedy")) {
        const std::string src = ax::tools::format_token_list(ax::test::json_ids(*g.find("src"), "src"));
        const std::string want = ax::tools::format_token_list(ax::test::json_ids(*g.find("out"), "out"));
        const Result r = auspex("translate " + model + " --tokens \"" + src + "\" --max-len " +
                                std::to_string(g.find("max_len")->as_int("max_len", 1, 100)));
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        CHECK(r.output == want + "\n");
    }
    const std::string out = (scratch_dir() / "logits.csv").string();
    const std::string src = ax::tools::format_token_list(ax::test::json_ids(*j.find("src"), "src"));
    const std::string tgt = ax::tools::format_token_list(ax::test::json_ids(*j.find("tgt"), "tgt"));
    const Result r = auspex("run " + model + " --src-tokens \"" + src + "\" --tgt-tokens \"" + tgt + "\" -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    ax::test::check_close(ax::tools::read_csv(out).values,
                          ax::tools::read_csv(fixture("seq2seq/tutorial", "logits.csv")).values,
                          ax::test::tolerance::seq2seq, "cli run");
}

TEST_CASE("cli seq2seq: bad input gives one clear error line") {
    const std::string model = converted("seq2seq/tutorial");
    check_error(auspex("translate " + model + " --tokens \"5 99 3\""), 1, "outside the vocabulary");
    check_error(auspex("translate " + model + " --tokens \"5 x 3\""), 1, "not a token id");
    check_error(auspex("translate " + model + " --tokens \"\""), 1, "empty");
    check_error(auspex("translate " + model + " --tokens \"5 6\" --max-len 0"), 2, "--max-len");
    check_error(auspex("translate " + model + " --tokens \"5 6\" --bos 20"), 2, "--bos");
    check_error(auspex("forecast " + model + " --input x.csv"), 1, "seq2seq model");
    check_error(auspex("run " + model + " --src a.csv --tgt b.csv"), 2, "--src-tokens");
    const std::string forecaster = (scratch_dir() / "fc.axm").string();
    REQUIRE(auspex("convert " + ax::test::fixture_path("forecaster/multi_out/model.pt") + " --config " +
                   ax::test::fixture_path("forecaster/multi_out/config.json") + " -o " + forecaster)
                .exit_code == 0);
    check_error(auspex("translate " + forecaster + " --tokens \"5 6\""), 1, "forecaster model");
    const std::string wrong = write_file("s2s_wrong.json", R"({"arch": "seq2seq", "nhead": 4, "pooling": "mean"})");
    check_error(auspex("convert " + fixture("seq2seq/tutorial", "model.pt") + " --config " + wrong + " -o " +
                       (scratch_dir() / "w.axm").string()),
                1, "do not apply");
    const std::string as_fc = write_file("s2s_as_fc.json", R"({"arch": "forecaster", "nhead": 4})");
    check_error(auspex("convert " + fixture("seq2seq/tutorial", "model.pt") + " --config " + as_fc + " -o " +
                       (scratch_dir() / "w.axm").string()),
                1, "found Linear modules");
}

TEST_CASE("cli classifier: inspect and classify reproduce PyTorch; bad input gives one error line") {
    for (const char* name : {"pad0_max_sigmoid", "decoder_start"}) {
        const std::string dir = std::string("classifier/") + name;
        const std::string model = converted(dir);
        const Result info = auspex("inspect " + model + " --max-len 12");
        REQUIRE_MESSAGE(info.exit_code == 0, info.output);
        CHECK(has(info, "family:   classifier"));
        CHECK(has(info, "src_token_embed.weight"));
        CHECK(has(info, "head.weight"));
        const auto m = ax::tools::open_model(model);
        CHECK(has(info, "arena:    " + std::to_string(m->as<ax::Classifier>().arena_bytes(12)) + " bytes"));
        const ax::tools::JsonValue j = ax::test::case_json(fixture(dir, ""));
        const ax::tools::Table want = ax::tools::read_csv(fixture(dir, "probs.csv"));
        const auto& inputs = j.find("inputs")->as_array("inputs");
        for (size_t i = 0; i < inputs.size(); ++i) {
            const Result r = auspex("classify " + model + " --tokens \"" +
                                    ax::tools::format_token_list(ax::test::json_ids(inputs[i], "inputs")) + "\"");
            REQUIRE_MESSAGE(r.exit_code == 0, r.output);
            CHECK(std::count(r.output.begin(), r.output.end(), '\n') == 1);
            std::istringstream line(r.output);
            std::vector<float> got;
            for (float v = 0; line >> v;) got.push_back(v);
            const std::vector<float> row(want.values.begin() + static_cast<long>(i * want.cols),
                                         want.values.begin() + static_cast<long>((i + 1) * want.cols));
            ax::test::check_close(got, row, ax::test::tolerance::classifier, std::string("cli classify ") + name);
        }
    }
    const std::string model = converted("classifier/learned_mean_softmax");
    check_error(auspex("classify " + model + " --tokens \"3 4 30\""), 1, "outside the vocabulary");
    check_error(auspex("classify " + model + " --tokens \"1 2 3 4 5 6 7 8 9 10 11 12 13\""), 1, "positions");
    check_error(auspex("classify " + model), 2, "--tokens");
    check_error(auspex("translate " + model + " --tokens \"3 4\""), 1, "classifier model");
    const std::string no_act = write_file("cls_no_act.json", R"({"arch": "classifier", "nhead": 4})");
    check_error(auspex("convert " + fixture("classifier/learned_mean_softmax", "model.pt") + " --config " + no_act +
                       " -o " + (scratch_dir() / "w.axm").string()),
                1, "output_activation");
}

TEST_CASE("cli tvae: inspect, reconstruct (score) and generate reproduce PyTorch; bad input gives one error line") {
    const std::string dir = "tvae/post_relu_pe";
    const std::string model = converted(dir);
    const Result info = auspex("inspect " + model + " --max-len 16");
    REQUIRE_MESSAGE(info.exit_code == 0, info.output);
    CHECK(has(info, "family:   tvae"));
    for (const char* role : {"seq_embedding.weight", "z_mean.bias", "z_log_var.weight", "z_embedding.weight",
                             "r_seq_embedding.bias", "decoder.layers.1.norm3.weight"})
        CHECK_MESSAGE(has(info, role), role);
    const auto m = ax::tools::open_model(model);
    CHECK(has(info, "arena:    " + std::to_string(m->as<ax::Tvae>().arena_bytes(16)) + " bytes"));

    const std::string out = (scratch_dir() / "recon.csv").string();
    const Result r = auspex("reconstruct " + model + " --input " + fixture(dir, "input.csv") + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    ax::test::check_close(ax::tools::read_csv(out).values, ax::tools::read_csv(fixture(dir, "reconstruct.csv")).values,
                          ax::test::tolerance::tvae, "cli reconstruct");
    const double mse = ax::test::case_json(fixture(dir, "")).find("reconstruction_mse")->as_number("mse");
    REQUIRE(has(r, "reconstruction error (mean squared): "));
    CHECK(std::stod(r.output.substr(r.output.find(": ") + 2)) == doctest::Approx(mse).epsilon(1e-4));
    const Result sampled = auspex("reconstruct " + model + " --input " + fixture(dir, "input.csv") +
                                  " --sample --seed 7 -o " + (scratch_dir() / "sampled.csv").string());
    REQUIRE_MESSAGE(sampled.exit_code == 0, sampled.output);
    const Result again = auspex("reconstruct " + model + " --input " + fixture(dir, "input.csv") +
                                " --sample --seed 7 -o " + (scratch_dir() / "sampled2.csv").string());
    CHECK(sampled.output == again.output);  // the same seed draws the same z

    const std::vector<float> z = ax::tools::read_csv(fixture(dir, "z.csv")).values;
    const size_t len = static_cast<size_t>(
        ax::test::case_json(fixture(dir, "")).find("generate_length")->as_int("generate_length", 1, 100));
    const std::string gen = (scratch_dir() / "gen.csv").string();
    char zbuf[4096] = {};
    size_t used = 0;
    for (float v : z)
        used += static_cast<size_t>(std::snprintf(zbuf + used, sizeof zbuf - used, "%.9g ", static_cast<double>(v)));
    const Result g = auspex("generate " + model + " --z \"" + std::string(zbuf) + "\" --length " + std::to_string(len) +
                            " -o " + gen);
    REQUIRE_MESSAGE(g.exit_code == 0, g.output);
    ax::test::check_close(ax::tools::read_csv(gen).values, ax::tools::read_csv(fixture(dir, "generate.csv")).values,
                          ax::test::tolerance::tvae, "cli generate");

    check_error(auspex("generate " + model + " --z \"0.1 0.2\" --length 4"), 1, "latent");
    check_error(auspex("generate " + model + " --z \"0.1 x\" --length 4"), 1, "not a finite number");
    check_error(auspex("generate " + model + " --z \"" + std::string(zbuf) + "\" --length 65"), 2, "--length");
    check_error(auspex("reconstruct " + model + " --input " + write_file("three.csv", "1,2,3\n4,5,6\n")), 1, "column");
    check_error(auspex("reconstruct " + model + " --input " + write_file("nan2.csv", "1,2\nnan,3\n")), 1, ":2");
    check_error(auspex("classify " + model + " --tokens 1"), 1, "tvae model");
}

TEST_CASE("cli: convert --map brings a hand-written layout to canonical names") {
    const std::string map = std::string(AUSPEX_SOURCE_DIR) + "/tools/import/maps/bentrevett_seq2seq.map";
    const std::string model = converted("seq2seq/bentrevett_map", "--map " + map);
    const Result info = auspex("inspect " + model);
    REQUIRE_MESSAGE(info.exit_code == 0, info.output);
    CHECK(has(info, "family:   seq2seq"));
    CHECK(has(info, "positional_encoding learned"));
    CHECK(has(info, "decoder.layers.1.multihead_attn.in_proj_weight"));
    const ax::tools::JsonValue j = ax::test::case_json(fixture("seq2seq/bentrevett_map", ""));
    const auto& g = j.find("greedy")->as_array("greedy")[0];
    const Result r = auspex("translate " + model + " --tokens \"" +
                            ax::tools::format_token_list(ax::test::json_ids(*g.find("src"), "src")) + "\" --max-len " +
                            std::to_string(g.find("max_len")->as_int("max_len", 1, 100)));
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output == ax::tools::format_token_list(ax::test::json_ids(*g.find("out"), "out")) + "\n");
    check_error(auspex("convert " + fixture("seq2seq/bentrevett_map", "model.pt") + " --config " +
                       fixture("seq2seq/bentrevett_map", "config.json") + " --map " +
                       write_file("bad.map", "encoder.{N -> x\n") + " -o " + (scratch_dir() / "b.axm").string()),
                1, "bad.map:1");
}
