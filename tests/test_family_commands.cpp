// verify, bench and header for every family, reconstruct --latent, and the one header convention of the CSVs
// the commands write. verify is measured against PyTorch: the fixtures' outputs (tests/fixtures, written by
// gen_family_fixtures.py / gen_forecaster_fixtures.py) and the committed int8 goldens of the generic port
// (tests/fixtures/int8), never against a figure the test computes with the sessions under test.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/family_support.h"
#include "tests/tolerances.h"
#include "tools/host/family_sessions.h"
#include "tools/import/config_scope.h"
#include "tools/text/csv.h"

namespace {

namespace fs = std::filesystem;

using ax::test::auspex;
using ax::test::check_error;
using ax::test::Result;
using ax::test::scratch_dir;
using ax::test::write_file;

std::string fixture(const std::string& relative) { return ax::test::fixture_path(relative); }

// Converts a fixture case once per dtype and returns the .axm path.
std::string converted(const std::string& family_case, const std::string& dtype = "f32") {
    std::string stem = family_case + "_" + dtype;
    std::replace(stem.begin(), stem.end(), '/', '_');
    return ax::test::converted_fixture(family_case, "cmd_" + stem + ".axm", "--dtype " + dtype);
}

// A case.json's token sequences as a file of lines (the --input/--target layout).
std::string token_lines(const std::string& name, const std::vector<std::vector<int32_t>>& seqs) {
    std::string text;
    for (const auto& s : seqs) text += ax::tools::format_token_list(s) + "\n";
    return write_file(name, text);
}

std::vector<std::vector<int32_t>> case_inputs(const std::string& dir) {
    std::vector<std::vector<int32_t>> seqs;
    const ax::tools::JsonValue j = ax::test::case_json(fixture(dir));  // outlives the loop over its array
    for (const ax::tools::JsonValue& s : j.find("inputs")->as_array("inputs"))
        seqs.push_back(ax::test::json_ids(s, "inputs"));
    return seqs;
}

// The largest |a - b| per column of two row-major tables of `cols` columns.
std::vector<double> column_max_diff(const std::vector<float>& a, const std::vector<float>& b, size_t cols) {
    REQUIRE(a.size() == b.size());
    std::vector<double> worst(cols, 0.0);
    for (size_t i = 0; i < a.size(); ++i)
        worst[i % cols] = std::max(worst[i % cols], std::fabs(static_cast<double>(a[i]) - b[i]));
    return worst;
}

std::vector<float> values(const std::string& csv) { return ax::tools::read_csv(csv).values; }

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// Printed with 4 significant digits.
constexpr double kPrinted = 1e-3;

}  // namespace

TEST_CASE("cli verify --expected: every family's float32 model within its PyTorch bound, int8 by its goldens") {
    // seq2seq: teacher-forced logits of case.json's src/tgt; one row over all the logits.
    {
        const ax::tools::JsonValue j = ax::test::case_json(fixture("seq2seq/tutorial"));
        const std::string src = token_lines("v_src.txt", {ax::test::json_ids(*j.find("src"), "src")});
        const std::string tgt = token_lines("v_tgt.txt", {ax::test::json_ids(*j.find("tgt"), "tgt")});
        const std::string want = fixture("seq2seq/tutorial/logits.csv");
        const std::string args = " --expected " + want + " --input " + src + " --target " + tgt + " --port generic";
        const Result f = auspex("verify " + converted("seq2seq/tutorial") + args);
        REQUIRE_MESSAGE(f.exit_code == 0, f.output);
        CHECK(has(f, "(PyTorch's outputs): 8 x 20 outputs, port generic"));
        const auto f_err = ax::test::verify_max_abs(f.output, "outputs");
        REQUIRE(f_err.count("all 20"));
        CHECK(f_err.at("all 20") <= ax::test::tolerance::seq2seq);
        CHECK(has(f, "<= tolerance"));
        const Result q = auspex("verify " + converted("seq2seq/tutorial", "int8") + args);
        REQUIRE_MESSAGE(q.exit_code == 0, q.output);
        const std::vector<double> d = column_max_diff(values(fixture("int8/seq2seq_tutorial.csv")), values(want), 20);
        CHECK(ax::test::verify_max_abs(q.output, "outputs").at("all 20") ==
              doctest::Approx(*std::max_element(d.begin(), d.end())).epsilon(kPrinted));
    }
    // classifier: one row per input line, one error row per label.
    for (const char* name : {"pad0_max_sigmoid", "decoder_start"}) {
        const std::string dir = std::string("classifier/") + name;
        const std::string in = token_lines(std::string("v_") + name + ".txt", case_inputs(dir));
        const std::string want = fixture(dir + "/probs.csv");
        const std::string args = " --expected " + want + " --input " + in + " --port generic";
        const Result f = auspex("verify " + converted(dir) + args);
        REQUIRE_MESSAGE(f.exit_code == 0, f.output);
        const size_t labels = ax::tools::read_csv(want).cols;
        const auto f_err = ax::test::verify_max_abs(f.output, "outputs");
        REQUIRE(f_err.size() == labels);
        for (const auto& row : f_err)  // not a structured binding: CHECK_MESSAGE captures it (clang, C++17)
            CHECK_MESSAGE(row.second <= ax::test::tolerance::classifier, name << " " << row.first);
        const Result q = auspex("verify " + converted(dir, "int8") + args);
        REQUIRE_MESSAGE(q.exit_code == 0, q.output);
        const std::vector<double> d =
            column_max_diff(values(fixture(std::string("int8/classifier_") + name + ".csv")), values(want), labels);
        const auto q_err = ax::test::verify_max_abs(q.output, "outputs");
        for (size_t l = 0; l < labels; ++l)
            CHECK_MESSAGE(q_err.at("label_" + std::to_string(l)) == doctest::Approx(d[l]).epsilon(kPrinted).scale(1e-9),
                          name << " label " << l);
    }
    // tvae: the teacher-forced forward(x)[0], per feature.
    {
        const Result f =
            auspex("verify " + converted("tvae/post_relu_pe") + " --expected " +
                   fixture("tvae/post_relu_pe/run_out.csv") + " --input " + fixture("tvae/post_relu_pe/input.csv"));
        REQUIRE_MESSAGE(f.exit_code == 0, f.output);
        const auto f_err = ax::test::verify_max_abs(f.output, "outputs");
        REQUIRE(f_err.size() == 2);
        for (const auto& row : f_err) CHECK_MESSAGE(row.second <= ax::test::tolerance::tvae, row.first);
    }
    // forecaster: the check pair in model units (src, tgt, forward's output).
    {
        const std::string dir = "forecaster/post_relu_tril";
        const std::string args = " --expected " + fixture(dir + "/run_out.csv") + " --input " +
                                 fixture(dir + "/src.csv") + " --target " + fixture(dir + "/tgt.csv") +
                                 " --port generic";
        const Result f = auspex("verify " + converted(dir) + args);
        REQUIRE_MESSAGE(f.exit_code == 0, f.output);
        CHECK(ax::test::verify_max_abs(f.output, "outputs").at("output_0") <= ax::test::tolerance::forecaster);
        const Result q = auspex("verify " + converted(dir, "int8") + args);
        REQUIRE_MESSAGE(q.exit_code == 0, q.output);
        const std::vector<double> d = column_max_diff(values(fixture("int8/forecaster_post_relu_tril_run.csv")),
                                                      values(fixture(dir + "/run_out.csv")), 1);
        CHECK(ax::test::verify_max_abs(q.output, "outputs").at("output_0") == doctest::Approx(d[0]).epsilon(kPrinted));
    }
}

TEST_CASE("cli verify --against: any family against itself is zero; int8 against float32 as its goldens say") {
    const ax::tools::JsonValue j = ax::test::case_json(fixture("seq2seq/tutorial"));
    const std::string src = token_lines("a_src.txt", {ax::test::json_ids(*j.find("src"), "src")});
    const std::string tgt = token_lines("a_tgt.txt", {ax::test::json_ids(*j.find("tgt"), "tgt")});
    const std::string s2s = converted("seq2seq/tutorial"), s2s8 = converted("seq2seq/tutorial", "int8");
    const Result same = auspex("verify " + s2s + " --against " + s2s + " --input " + src + " --target " + tgt);
    REQUIRE_MESSAGE(same.exit_code == 0, same.output);
    CHECK(ax::test::verify_max_abs(same.output, "outputs").at("all 20") == 0.0);
    CHECK(has(same, "greedy translations: 1 of 1 the same ids"));
    // int8 against float32: the int8 golden's distance from PyTorch, give or take float32's own.
    const Result q =
        auspex("verify " + s2s8 + " --against " + s2s + " --input " + src + " --target " + tgt + " --port generic");
    REQUIRE_MESSAGE(q.exit_code == 0, q.output);
    const std::vector<double> d = column_max_diff(values(fixture("int8/seq2seq_tutorial.csv")),
                                                  values(fixture("seq2seq/tutorial/logits.csv")), 20);
    const double want = *std::max_element(d.begin(), d.end());
    CHECK(std::fabs(ax::test::verify_max_abs(q.output, "outputs").at("all 20") - want) <=
          ax::test::tolerance::seq2seq + kPrinted * want);

    const std::string cls = converted("classifier/pad0_max_sigmoid");
    const std::string in = token_lines("a_cls.txt", case_inputs("classifier/pad0_max_sigmoid"));
    const Result c = auspex("verify " + cls + " --against " + cls + " --input " + in);
    REQUIRE_MESSAGE(c.exit_code == 0, c.output);
    for (const auto& row : ax::test::verify_max_abs(c.output, "outputs")) CHECK_MESSAGE(row.second == 0.0, row.first);

    // tvae: teacher-forced outputs and the reconstruction (the anomaly score's path).
    const std::string dir = "tvae/post_relu_pe";
    const Result v = auspex("verify " + converted(dir, "int8") + " --against " + converted(dir) + " --input " +
                            fixture(dir + "/input.csv") + " --port generic");
    REQUIRE_MESSAGE(v.exit_code == 0, v.output);
    CHECK(ax::test::verify_max_abs(v.output, "teacher-forced outputs").size() == 2);
    const std::vector<double> r =
        column_max_diff(values(fixture("int8/tvae_post_relu_pe.csv")), values(fixture(dir + "/reconstruct.csv")), 2);
    const auto recon = ax::test::verify_max_abs(v.output, "reconstructions");
    for (size_t f = 0; f < 2; ++f)
        CHECK(std::fabs(recon.at("feature_" + std::to_string(f)) - r[f]) <=
              ax::test::tolerance::tvae + kPrinted * r[f]);
}

TEST_CASE("cli verify: wrong references and inputs give one error line") {
    const std::string cls = converted("classifier/pad0_max_sigmoid"), s2s = converted("seq2seq/tutorial");
    const std::string in = token_lines("e_cls.txt", case_inputs("classifier/pad0_max_sigmoid"));
    check_error(auspex("verify " + cls + " --input " + in), 2, "give one reference");
    check_error(auspex("verify " + cls + " --input " + in + " --against " + cls + " --expected x.csv"), 2,
                "give one reference");
    check_error(auspex("verify " + cls + " --input " + in + " --against " + cls + " --target " + in), 2,
                "--target does not apply");
    check_error(auspex("verify " + cls + " --input " + in + " --against " + cls + " --window 4"), 2, "--window");
    check_error(auspex("verify " + s2s + " --input " + in + " --against " + s2s), 2, "takes --target too");
    check_error(auspex("verify " + cls + " --input " + in + " --against " + s2s), 1, "seq2seq model");
    // PyTorch's outputs of another shape.
    check_error(auspex("verify " + cls + " --input " + in + " --expected " + fixture("seq2seq/tutorial/logits.csv")), 1,
                "the model gives 5 x 6");
    check_error(auspex("verify " + cls + " --input \"3 x\" --against " + cls), 1, "--input");
}

TEST_CASE("cli bench: every family, sized by its own length options") {
    struct Case {
        std::string dir, lengths, json_lengths;
        size_t (*arena)(const ax::tools::LoadedModel&);
    };
    const Case cases[] = {
        {"seq2seq/tutorial", "--src-len 9 --tgt-len 7", "\"src_len\": 9, \"tgt_len\": 7",
         [](const ax::tools::LoadedModel& m) { return m.as<ax::Seq2Seq>().arena_bytes(9, 7); }},
        {"classifier/decoder_start", "--max-len 10", "\"max_len\": 10",
         [](const ax::tools::LoadedModel& m) { return m.as<ax::Classifier>().arena_bytes(10); }},
        {"tvae/post_relu_pe", "--max-len 12", "\"max_len\": 12",
         [](const ax::tools::LoadedModel& m) { return m.as<ax::Tvae>().arena_bytes(12); }},
    };
    for (const Case& c : cases) {
        const std::string model = converted(c.dir);
        const auto m = ax::tools::open_model(model);
        const Result r = auspex("bench " + model + " " + c.lengths + " --runs 2 --json --port generic");
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        CHECK(has(r, std::string("\"family\": \"") + ax::tools::family_name(m->family) + "\""));
        CHECK(has(r, c.json_lengths + ", \"runs\": 2"));
        CHECK(has(r, "\"arena_bytes\": " + std::to_string(c.arena(*m))));
        CHECK(has(r, "\"model_bytes\": " + std::to_string(fs::file_size(model))));
        const Result text = auspex("bench " + model + " " + c.lengths + " --runs 1 --stages --port generic");
        REQUIRE_MESSAGE(text.exit_code == 0, text.output);
        CHECK(has(text, "median of 1 runs"));
        CHECK(has(text, "stages of one forward pass"));
        check_error(auspex("bench " + model + " --window 8"), 2, "does not apply");
    }
    const Result s = auspex("bench " + converted("seq2seq/tutorial") + " --src-len 9 --tgt-len 7 --runs 1");
    CHECK(has(s, "source 9, target 7 tokens"));
    CHECK(has(s, "translate (7 greedy steps, KV cache):"));
    const Result v = auspex("bench " + converted("tvae/post_relu_pe") + " --max-len 12 --runs 1 --json");
    CHECK(has(v, "\"reconstruct_ms\": "));
}

TEST_CASE("cli header: every family's array, lengths, sizes and exact arena") {
    struct Case {
        std::string dir, lengths;
        std::map<std::string, long long> defines;
    };
    const auto s2s = ax::tools::open_model(converted("seq2seq/tutorial"));
    const auto cls = ax::tools::open_model(converted("classifier/pad0_max_sigmoid", "int8"));
    const auto vae = ax::tools::open_model(converted("tvae/post_relu_pe"));
    const Case cases[] = {
        {"seq2seq/tutorial",
         "--src-len 9 --tgt-len 7",
         {{"MAX_SRC_LEN", 9},
          {"MAX_TGT_LEN", 7},
          {"SRC_VOCAB", 20},
          {"TGT_VOCAB", 20},
          {"ARENA_BYTES", static_cast<long long>(s2s->as<ax::Seq2Seq>().arena_bytes(9, 7))}}},
        {"classifier/pad0_max_sigmoid",
         "--max-len 12",
         {{"MAX_LEN", 12},
          {"VOCAB", 40},
          {"N_LABELS", 6},
          {"ARENA_BYTES", static_cast<long long>(cls->as<ax::Classifier>().arena_bytes(12))}}},
        {"tvae/post_relu_pe",
         "--max-len 16",
         {{"MAX_LEN", 16},
          {"N_FEATURES", 2},
          {"LATENT_SIZE", 8},
          {"ARENA_BYTES", static_cast<long long>(vae->as<ax::Tvae>().arena_bytes(16))}}},
    };
    for (const Case& c : cases) {
        const std::string model = c.dir == "classifier/pad0_max_sigmoid" ? converted(c.dir, "int8") : converted(c.dir);
        const std::string h = (scratch_dir() / "fam_model.h").string();
        const Result r = auspex("header " + model + " -o " + h + " " + c.lengths);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        std::stringstream text_stream;
        text_stream << std::ifstream(h).rdbuf();
        const std::string text = text_stream.str();
        for (const auto& define : c.defines) {
            const std::string key = "#define FAM_MODEL_" + define.first + " ";
            const size_t at = text.find(key);
            REQUIRE_MESSAGE(at != std::string::npos, key);
            CHECK_MESSAGE(std::stoll(text.substr(at + key.size())) == define.second, c.dir << " " << define.first);
        }
        // The array is the file.
        std::vector<uint8_t> parsed;
        for (size_t at = text.find(" = {"); (at = text.find("0x", at)) != std::string::npos; at += 4)
            parsed.push_back(static_cast<uint8_t>(std::stoul(text.substr(at, 4), nullptr, 16)));
        std::ifstream file(model, std::ios::binary);
        const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        CHECK(parsed == bytes);
        check_error(auspex("header " + model + " -o " + h + " --horizon 4"), 2, "does not apply");
    }
    check_error(auspex("header " + converted("tvae/post_relu_pe") + " -o " + (scratch_dir() / "x.h").string() +
                       " --max-len 9999999"),
                2, "--max-len");
}

TEST_CASE("cli reconstruct --latent writes PyTorch's z_mean and z_log_var") {
    const std::string dir = "tvae/post_relu_pe";
    const std::string latent = (scratch_dir() / "latent.csv").string();
    const Result r = auspex("reconstruct " + converted(dir) + " --input " + fixture(dir + "/input.csv") + " --latent " +
                            latent + " -o " + (scratch_dir() / "recon.csv").string());
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const ax::tools::Table t = ax::tools::read_csv(latent);
    REQUIRE(t.header == std::vector<std::string>{"z_mean", "z_log_var"});
    REQUIRE(t.cols == 2);
    std::vector<float> mean, log_var;
    for (size_t i = 0; i < t.rows; ++i) mean.push_back(t.at(i, 0)), log_var.push_back(t.at(i, 1));
    ax::test::check_close(mean, values(fixture(dir + "/z_mean.csv")), ax::test::tolerance::tvae, "z_mean");
    ax::test::check_close(log_var, values(fixture(dir + "/z_log_var.csv")), ax::test::tolerance::tvae, "z_log_var");
    // --latent is an output: naming the input is refused before anything is read or written.
    check_error(auspex("reconstruct " + converted(dir) + " --input " + fixture(dir + "/input.csv") + " --latent " +
                       fixture(dir + "/input.csv")),
                1, "is the same file as --input");
    // The reconstruction itself is unchanged by --latent.
    ax::test::check_close(values((scratch_dir() / "recon.csv").string()), values(fixture(dir + "/reconstruct.csv")),
                          ax::test::tolerance::tvae, "reconstruct");
}

TEST_CASE("written CSVs: feature columns keep the input's (or the model's) names and times, others say what they are") {
    // tvae: a headed, timed input gives a headed, timed reconstruction.
    const std::string dir = "tvae/post_relu_pe";
    const ax::tools::Table input = ax::tools::read_csv(fixture(dir + "/input.csv"));
    std::string timed = "time,speed,load\n";
    for (size_t r = 0; r < input.rows; ++r)
        timed += "2026-01-" + std::string(r + 1 < 10 ? "0" : "") + std::to_string(r + 1) + "," +
                 std::to_string(input.at(r, 0)) + "," + std::to_string(input.at(r, 1)) + "\n";
    const std::string recon = (scratch_dir() / "named_recon.csv").string();
    REQUIRE(auspex("reconstruct " + converted(dir) + " --input " + write_file("timed.csv", timed) + " -o " + recon)
                .exit_code == 0);
    const ax::tools::Table out = ax::tools::read_csv(recon);
    CHECK(out.header == std::vector<std::string>{"speed", "load"});
    CHECK(out.time_name == "time");
    CHECK(out.times.size() == input.rows);
    CHECK(out.times.front() == "2026-01-01");
    // A headerless input: no header line, as forecast writes.
    const std::string plain = (scratch_dir() / "plain_recon.csv").string();
    REQUIRE(auspex("reconstruct " + converted(dir) + " --input " + fixture(dir + "/input.csv") + " -o " + plain)
                .exit_code == 0);
    CHECK(ax::tools::read_csv(plain).header.empty());
    // A model with stored feature names names its generated columns by them (tvae's config is arch and nhead).
    const std::string named = (scratch_dir() / "named_tvae.axm").string();
    const std::string config =
        write_file("named_tvae.json", R"({"arch": "tvae", "nhead": 4, "features": ["speed", "load"]})");
    REQUIRE(auspex("convert " + fixture(dir + "/model.pt") + " --config " + config + " -o " + named).exit_code == 0);
    const std::string gen = (scratch_dir() / "named_gen.csv").string();
    REQUIRE(auspex("generate " + named + " --z \"0 0 0 0 0 0 0 0\" --length 3 -o " + gen).exit_code == 0);
    CHECK(ax::tools::read_csv(gen).header == std::vector<std::string>{"speed", "load"});
    const std::string named_recon = (scratch_dir() / "named_recon2.csv").string();
    REQUIRE(
        auspex("reconstruct " + named + " --input " + fixture(dir + "/input.csv") + " -o " + named_recon).exit_code ==
        0);
    CHECK(ax::tools::read_csv(named_recon).header == std::vector<std::string>{"speed", "load"});

    // Outputs that are not features: logits by token id, labels, a forecaster's outputs.
    const ax::tools::JsonValue j = ax::test::case_json(fixture("seq2seq/tutorial"));
    const std::string logits = (scratch_dir() / "named_logits.csv").string();
    REQUIRE(auspex("run " + converted("seq2seq/tutorial") + " --src-tokens \"" +
                   ax::tools::format_token_list(ax::test::json_ids(*j.find("src"), "src")) + "\" --tgt-tokens \"" +
                   ax::tools::format_token_list(ax::test::json_ids(*j.find("tgt"), "tgt")) + "\" -o " + logits)
                .exit_code == 0);
    const ax::tools::Table l = ax::tools::read_csv(logits);
    REQUIRE(l.header.size() == 20);
    CHECK(l.header.front() == "logit_0");
    CHECK(l.header.back() == "logit_19");
    ax::test::check_close(l.values, values(fixture("seq2seq/tutorial/logits.csv")), ax::test::tolerance::seq2seq,
                          "named logits");

    const std::string cls_dir = "classifier/pad0_max_sigmoid";
    const std::string probs = (scratch_dir() / "named_probs.csv").string();
    REQUIRE(auspex("classify " + converted(cls_dir) + " --tokens \"" +
                   ax::tools::format_token_list(case_inputs(cls_dir)[0]) + "\" -o " + probs)
                .exit_code == 0);
    const ax::tools::Table p = ax::tools::read_csv(probs);
    CHECK(p.header == std::vector<std::string>{"label_0", "label_1", "label_2", "label_3", "label_4", "label_5"});
    const std::vector<float> want = values(fixture(cls_dir + "/probs.csv"));
    ax::test::check_close(p.values, std::vector<float>(want.begin(), want.begin() + 6), ax::test::tolerance::classifier,
                          "classify -o");

    const std::string fc_dir = "forecaster/multi_out";
    const std::string run_out = (scratch_dir() / "named_run.csv").string();
    REQUIRE(auspex("run " + converted(fc_dir) + " --src " + fixture(fc_dir + "/src.csv") + " --tgt " +
                   fixture(fc_dir + "/tgt.csv") + " --model-space -o " + run_out)
                .exit_code == 0);
    const ax::tools::Table o = ax::tools::read_csv(run_out);
    REQUIRE(!o.header.empty());
    CHECK(o.header.front() == "output_0");
    CHECK(o.header.size() == o.cols);
    ax::test::check_close(o.values, values(fixture(fc_dir + "/run_out.csv")), ax::test::tolerance::forecaster,
                          "named run");
}

TEST_CASE("convert: a misspelt module names both sides of the mismatch and the map lines that matched nothing") {
    const std::string dir = "seq2seq/bentrevett_map";
    const Result r = auspex("convert " + fixture(dir + "/misspelt.pt") + " --config " + fixture(dir + "/config.json") +
                            " --map " + fixture("../../tools/import/maps/bentrevett_seq2seq.map") + " -o " +
                            (scratch_dir() / "misspelt.axm").string());
    check_error(r, 1, "potisionwise_feedforward");
    // The canonical tensors nothing provided: the layer's whole feed-forward pair.
    for (const char* canonical : {"encoder.layers.0.linear1.weight", "encoder.layers.0.linear1.bias",
                                  "encoder.layers.0.linear2.weight", "encoder.layers.0.linear2.bias"})
        CHECK_MESSAGE(has(r, canonical), canonical);
    // The user's tensors nothing matched, and the map's lines no tensor matched.
    CHECK(has(r, "tensors nothing matched there: encoder.layers.0.potisionwise_feedforward.fc_1.bias"));
    CHECK(has(r, "Map lines that matched no tensor: "));
    CHECK(has(r, "bentrevett_seq2seq.map:26: encoder.layers.{N}.positionwise_feedforward.fc_1.{p}"));
    CHECK(has(r, "decoder.layers.{N}.positionwise_feedforward.fc_2.{p}"));
    // Not the attention, which the map did match.
    CHECK(!has(r, "self_attn.in_proj_weight"));
    CHECK(!has(r, "self_attention.fc_q"));
}

TEST_CASE(
    "The config reference's defaults table: every config key has a row, and the defaults it states are the "
    "converter's") {
    std::ifstream in(std::string(AUSPEX_SOURCE_DIR) + "/docs/importing-models.md");
    std::stringstream page;
    page << in.rdbuf();
    const std::string text = page.str();
    const size_t start = text.find("### Config defaults, per family");
    REQUIRE(start != std::string::npos);
    const std::string table = text.substr(start, text.find("\n##", start + 4) - start);
    for (const std::string& key : ax::tools::known_config_keys())
        CHECK_MESSAGE(table.find("`" + key + "`") != std::string::npos, key << " has no row");

    // The defaults the table states, as inspect shows them for fixtures whose configs leave the keys out.
    // seq2seq/tutorial states arch, nhead and the token ids only (d_model 32: sqrt = 5.65685).
    const Result s = auspex("inspect " + converted("seq2seq/tutorial"));
    REQUIRE_MESSAGE(s.exit_code == 0, s.output);
    for (const char* shown : {"post-norm, activation relu, layer_norm_eps 1e-05", "decode_mask_pads false",
                              "embed_scale 5.65685", "positional_encoding sinusoidal"})
        CHECK_MESSAGE(has(s, shown), shown);
    CHECK(has(s,
              "assumed:  activation, norm_first, layer_norm_eps, positional_encoding, embed_scale, "
              "decode_mask_pads"));
    // A classifier's embed_scale is 1 (paul-hyun's posts do not scale); its pooling mean.
    const Result c = auspex("inspect " + converted("classifier/decoder_start"));
    REQUIRE_MESSAGE(c.exit_code == 0, c.output);
    CHECK(has(c, "embed_scale 1\n"));
    CHECK(has(c, "assumed:  activation, norm_first, layer_norm_eps, positional_encoding, embed_scale"));
    const std::string no_pooling = write_file(
        "cls_no_pooling.json", R"({"arch": "classifier", "nhead": 4, "pad_id": 0, "output_activation": "softmax"})");
    const std::string pooled = (scratch_dir() / "cls_no_pooling.axm").string();
    REQUIRE(auspex("convert " + fixture("classifier/learned_mean_softmax/model.pt") + " --config " + no_pooling +
                   " -o " + pooled)
                .exit_code == 0);
    const Result p = auspex("inspect " + pooled);
    CHECK(has(p, "pooling mean"));
    CHECK(has(p, "embed_scale, pooling (taken by default"));
    // A forecaster without "memory_mask" runs without one, and says so.
    const std::string no_mask =
        write_file("fc_no_mask.json", R"({"arch": "forecaster", "nhead": 4, "positional_encoding": "sinusoidal"})");
    const Result f = auspex("convert " + fixture("forecaster/post_relu_tril/model.pt") + " --config " + no_mask +
                            " -o " + (scratch_dir() / "fc_no_mask.axm").string());
    REQUIRE_MESSAGE(f.exit_code == 0, f.output);
    CHECK(has(f, "\"memory_mask\": \"none\""));
    const Result fi = auspex("inspect " + (scratch_dir() / "fc_no_mask.axm").string());
    CHECK(has(fi, "memory_mask none"));
    CHECK(has(fi, "activation relu, layer_norm_eps 1e-05"));
}

TEST_CASE("convert: structure it cannot tell apart lists the candidates and the map line that resolves it") {
    // A seq2seq checkpoint read as a forecaster: its Linear modules are listed, and the map lines that name them.
    const std::string as_fc = write_file("amb_as_fc.json", R"({"arch": "forecaster", "nhead": 4})");
    const Result r = auspex("convert " + fixture("seq2seq/tutorial/model.pt") + " --config " + as_fc + " -o " +
                            (scratch_dir() / "amb.axm").string());
    check_error(r, 1, "cannot tell the forecaster's input embeddings and generator apart");
    CHECK(has(r, "found Linear modules: generator"));
    CHECK(has(r, "\"MODULE.{p} -> embedding_src.{p}\""));
    CHECK(has(r, "\"MODULE.{p} -> generator.{p}\""));
    // A tvae's layers read as a seq2seq model: no token tables, and the map lines that would name them.
    const std::string as_s2s = write_file("amb_as_s2s.json", R"({"arch": "seq2seq", "nhead": 4})");
    const Result s = auspex("convert " + fixture("tvae/post_relu_pe/model.pt") + " --config " + as_s2s + " -o " +
                            (scratch_dir() / "amb.axm").string());
    check_error(s, 1, "cannot find the source and target token embeddings");
    CHECK(has(s, "\"X.weight -> src_token_embed.weight\""));
}
