// `convert --check-*` and `--find-config` end to end, against the PyTorch fixtures' forward outputs: a right
// config passes on every family, each wrong key is refused naming the largest difference and writing
// nothing, the search recovers the fixture's config from a wrong one, and malformed check files are clear
// errors.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/family_support.h"
#include "tools/text/csv.h"
#include "tools/text/json.h"
#include "tools/text/json_writer.h"

namespace {

namespace fs = std::filesystem;

using ax::test::auspex;
using ax::test::check_error;
using ax::test::Result;
using ax::test::scratch_dir;
using ax::test::write_file;
using ax::tools::JsonValue;

// One fixture case: checkpoint, config and the check arguments made from its PyTorch files.
struct Case {
    std::string family, name, map;
    std::string check;  // " --check-input ... --check-output ..."

    std::string dir() const { return ax::test::fixture_path(family + "/" + name); }
    std::string config() const { return dir() + "/config.json"; }
    std::string convert(const std::string& config_path, const std::string& out) const {
        return "convert " + dir() + "/model.pt" + (config_path.empty() ? "" : " --config " + config_path) +
               (map.empty() ? "" : " --map " + std::string(AUSPEX_SOURCE_DIR) + "/tools/import/maps/" + map) + check +
               " -o " + out;
    }
};

std::string token_line(const JsonValue& ids) {
    std::string s;
    for (int32_t id : ax::test::json_ids(ids, "tokens")) s += (s.empty() ? "" : " ") + std::to_string(id);
    return s;
}

Case forecaster_case(const std::string& name) {
    Case c{"forecaster", name, "", ""};
    c.check = " --check-input " + c.dir() + "/src.csv --check-target " + c.dir() + "/tgt.csv --check-output " +
              c.dir() + "/run_out.csv";
    return c;
}

Case seq2seq_case(const std::string& name, const std::string& map = "") {
    Case c{"seq2seq", name, map, ""};
    const JsonValue j = ax::test::case_json(c.dir());
    c.check = " --check-input " + write_file(name + ".src", token_line(*j.find("src")) + "\n") + " --check-target " +
              write_file(name + ".tgt", token_line(*j.find("tgt")) + "\n") + " --check-output " + c.dir() +
              "/logits.csv";
    return c;
}

Case classifier_case(const std::string& name) {
    Case c{"classifier", name, "", ""};
    std::string lines;
    const JsonValue j = ax::test::case_json(c.dir());
    for (const JsonValue& seq : j.find("inputs")->as_array("inputs")) lines += token_line(seq) + "\n";
    c.check = " --check-input " + write_file(name + ".tokens", lines) + " --check-output " + c.dir() + "/probs.csv";
    return c;
}

Case tvae_case(const std::string& name, const std::string& map = "") {
    Case c{"tvae", name, map, ""};
    c.check = " --check-input " + c.dir() + "/input.csv --check-output " + c.dir() + "/run_out.csv";
    return c;
}

std::vector<Case> every_family() {
    return {forecaster_case("post_relu_tril"),
            forecaster_case("pre_gelu_none_final"),
            seq2seq_case("tutorial"),
            seq2seq_case("learned_pre_gelu"),
            classifier_case("learned_mean_softmax"),
            classifier_case("decoder_start"),
            tvae_case("post_relu_pe"),
            tvae_case("pre_gelu_norms")};
}

// The case's config with `key` set to `value`, written to the scratch folder.
std::string config_with(const Case& c, const std::vector<std::pair<std::string, JsonValue>>& changes,
                        const std::string& name) {
    std::vector<std::pair<std::string, JsonValue>> members = ax::tools::parse_json_file(c.config()).as_object("config");
    for (const auto& [key, value] : changes) {
        bool replaced = false;
        for (auto& m : members)
            if (m.first == key) {
                m.second = value;
                replaced = true;
            }
        if (!replaced) members.emplace_back(key, value);
    }
    return write_file(name, ax::tools::format_json(JsonValue::make_object(members)));
}

std::string string_key(const JsonValue& config, const char* key, const char* fallback) {
    const JsonValue* v = config.find(key);
    return v ? v->as_string(key) : fallback;
}

bool bool_key(const JsonValue& config, const char* key) {
    const JsonValue* v = config.find(key);
    return v && v->as_bool(key);
}

// The wrong value of each key a config cannot be told by its weights.
std::vector<std::pair<std::string, JsonValue>> wrong_keys(const Case& c) {
    const JsonValue config = ax::tools::parse_json_file(c.config());
    const int64_t nhead = config.find("nhead")->as_int("nhead", 1, 1 << 20);
    std::vector<std::pair<std::string, JsonValue>> wrong = {
        {"nhead", JsonValue::make_integer(static_cast<uint64_t>(nhead == 1 ? 2 : nhead / 2))},
        {"activation", JsonValue::make_string(string_key(config, "activation", "relu") == "relu" ? "gelu" : "relu")},
        {"norm_first", JsonValue::make_bool(!bool_key(config, "norm_first"))},
    };
    if (c.family == "forecaster")
        wrong.emplace_back("memory_mask", JsonValue::make_string(
                                              string_key(config, "memory_mask", "none") == "tril" ? "none" : "tril"));
    return wrong;
}

std::string out_path(const std::string& name) {
    const std::string p = (scratch_dir() / name).string();
    fs::remove(p);
    return p;
}

}  // namespace

TEST_CASE("convert --check: the fixture's own config matches PyTorch on every family") {
    for (const Case& c : every_family()) {
        INFO(c.family << "/" << c.name);
        const std::string out = out_path("checked.axm");
        const Result r = auspex(c.convert(c.config(), out));
        INFO(r.output);
        CHECK(r.exit_code == 0);
        CHECK(r.output.find("the conversion matches PyTorch") != std::string::npos);
        CHECK(fs::exists(out));
    }
    // Hand-written modules through rename maps.
    for (const Case& c :
         {seq2seq_case("bentrevett_map", "bentrevett_seq2seq.map"), tvae_case("conv1d_map", "ts_vae_conv1d.map")}) {
        INFO(c.name);
        const Result r = auspex(c.convert(c.config(), out_path("mapped.axm")));
        INFO(r.output);
        CHECK(r.exit_code == 0);
        CHECK(r.output.find("the conversion matches PyTorch") != std::string::npos);
    }
}

TEST_CASE("convert --check: a wrong nhead, activation, norm_first or memory_mask is refused, nothing written") {
    for (const Case& c : every_family()) {
        for (const auto& change : wrong_keys(c)) {
            INFO(c.family << "/" << c.name << ": wrong " << change.first);
            const std::string out = out_path("wrong.axm");
            const Result r = auspex(c.convert(config_with(c, {change}, "wrong.json"), out));
            check_error(r, 1, "does not reproduce PyTorch's output");
            CHECK(r.output.find("largest difference at row ") != std::string::npos);
            CHECK(r.output.find(", column ") != std::string::npos);
            CHECK(r.output.find("got ") != std::string::npos);
            CHECK(r.output.find("want ") != std::string::npos);
            CHECK(!fs::exists(out));
        }
    }
}

TEST_CASE("convert --check on an int8 conversion checks the float32 model and reports the int8 difference") {
    const Case c = forecaster_case("post_relu_tril");
    const std::string out = out_path("checked_int8.axm");
    const Result r = auspex(c.convert(c.config(), out) + " --dtype int8");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("float32 model checked before quantizing") != std::string::npos);
    CHECK(r.output.find("the int8 model's max difference is") != std::string::npos);
    CHECK(fs::exists(out));
    const Case wrong = forecaster_case("post_relu_tril");
    check_error(auspex(wrong.convert(config_with(c, {{"activation", JsonValue::make_string("gelu")}}, "w8.json"),
                                     out_path("wrong_int8.axm")) +
                       " --dtype int8"),
                1, "largest difference");
    CHECK(!fs::exists(scratch_dir() / "wrong_int8.axm"));
}

TEST_CASE("convert --find-config recovers the fixture's config from a wrong one, on every family") {
    for (const Case& c : every_family()) {
        INFO(c.family << "/" << c.name);
        std::vector<std::pair<std::string, JsonValue>> wrong_all = wrong_keys(c);
        if (c.family == "seq2seq" || c.family == "classifier")  // a position kind the tensors rule out
            wrong_all.emplace_back("positional_encoding", JsonValue::make_string("none"));
        const std::string wrong = config_with(c, wrong_all, "all_wrong.json");
        const std::string found = out_path("found.json");
        const std::string out = out_path("found.axm");
        const Result r = auspex(c.convert(wrong, out) + " --find-config " + found);
        INFO(r.output);
        REQUIRE(r.exit_code == 0);
        CHECK(r.output.find("the conversion matches PyTorch") != std::string::npos);
        CHECK(fs::exists(out));
        const JsonValue want = ax::tools::parse_json_file(c.config());
        const JsonValue got = ax::tools::parse_json_file(found);
        CHECK(got.find("nhead")->as_int("nhead", 1, 1 << 20) == want.find("nhead")->as_int("nhead", 1, 1 << 20));
        CHECK(string_key(got, "activation", "relu") == string_key(want, "activation", "relu"));
        CHECK(bool_key(got, "norm_first") == bool_key(want, "norm_first"));
        if (c.family == "forecaster")
            CHECK(string_key(got, "memory_mask", "none") == string_key(want, "memory_mask", "none"));
        if (want.find("positional_encoding"))
            CHECK(string_key(got, "positional_encoding", "") == string_key(want, "positional_encoding", ""));
        // Keys the search does not try are the user's.
        for (const auto& [key, value] : want.as_object("config"))
            if (key == "pad_id" || key == "output_activation" || key == "arch" || key == "embed_scale")
                CHECK(got.find(key) != nullptr);
        // The written config converts (and checks) on its own.
        const Result again = auspex(c.convert(found, out_path("again.axm")));
        CHECK(again.exit_code == 0);
    }
}

TEST_CASE("convert --find-config: without --config for a forecaster; layer_norm_eps when it matters") {
    const Case c = forecaster_case("multi_out");  // eps 1e-3: far enough from 1e-5 to show
    const std::string found = out_path("found_noconfig.json");
    const Result r = auspex(c.convert("", out_path("noconfig.axm")) + " --find-config " + found);
    INFO(r.output);
    // Without the config's eps the defaults 1e-5/1e-6 do not reproduce it: the search says so.
    check_error(r, 1, "no config the checkpoint allows reproduces");
    CHECK(r.output.find("the closest") != std::string::npos);
    CHECK(!fs::exists(found));

    const std::string wrong = config_with(
        c, {{"nhead", JsonValue::make_integer(1)}, {"layer_norm_eps", JsonValue::make_number(1e-5)}}, "eps_wrong.json");
    const Result fixed = auspex(c.convert(c.config(), out_path("eps.axm")) + " --find-config " + found);
    CHECK(fixed.exit_code == 0);
    CHECK(ax::tools::parse_json_file(found).find("layer_norm_eps")->as_number("eps") == doctest::Approx(1e-3));
    check_error(auspex(c.convert(wrong, out_path("eps_wrong.axm"))), 1, "largest difference");

    const Case plain = forecaster_case("post_relu_tril");
    // An nhead that does not even divide d_model is where a search may start.
    const Result five = auspex(
        plain.convert(config_with(plain, {{"nhead", JsonValue::make_integer(5)}}, "five.json"), out_path("five.axm")) +
        " --find-config " + found);
    INFO(five.output);
    CHECK(five.exit_code == 0);
    CHECK(ax::tools::parse_json_file(found).find("nhead")->as_int("nhead", 1, 64) == 4);

    const Result bare = auspex(plain.convert("", out_path("bare.axm")) + " --find-config " + found);
    INFO(bare.output);
    CHECK(bare.exit_code == 0);
    CHECK(bare.output.find("layer_norm_eps is not told apart") != std::string::npos);
    CHECK(ax::tools::parse_json_file(found).find("memory_mask")->as_string("mask") == "tril");
}

TEST_CASE("convert --check: malformed or mismatched check files are clear errors") {
    const Case c = forecaster_case("post_relu_tril");
    const std::string dir = c.dir();
    const std::string base = "convert " + dir + "/model.pt --config " + c.config() + " -o ";
    const std::string out = out_path("bad_check.axm");
    auto run = [&](const std::string& in, const std::string& tgt, const std::string& want) {
        return auspex(base + out + " --check-input " + in + " --check-target " + tgt + " --check-output " + want);
    };
    const std::string src = dir + "/src.csv", tgt = dir + "/tgt.csv", want = dir + "/run_out.csv";
    check_error(run(src, tgt, write_file("short_out.csv", "0.5\n0.25\n")), 1, "2 x 1 values, the model gives 16 x 1");
    check_error(run(src, tgt, write_file("wide_out.csv", "0.5,1\n0.25,2\n")), 1, "the model gives 16 x 1");
    check_error(run(src, tgt, write_file("nan_out.csv", "0.5\nnan\n")), 1, "nan_out.csv:2");
    check_error(run(write_file("two_cols.csv", "1,2\n3,4\n"), tgt, want), 1, "check input has 2 column(s)");
    check_error(run(src, write_file("nan_tgt.csv", "1\ninf\n"), want), 1, "nan_tgt.csv:2");
    check_error(run(src, "/nonexistent/tgt.csv", want), 1, "/nonexistent/tgt.csv");
    check_error(auspex(base + out + " --check-input " + src + " --check-output " + want), 1, "--check-target");
    check_error(auspex(base + out + " --check-input " + src + " --check-target " + tgt), 1, "--check-output");
    CHECK(!fs::exists(out));

    const Case cls = classifier_case("learned_mean_softmax");
    check_error(auspex(cls.convert(cls.config(), out) + " --check-target " + src), 1, "does not apply to a classifier");
    check_error(
        auspex("convert " + cls.dir() + "/model.pt --config " + cls.config() + " -o " + out + " --check-input " +
               write_file("bad.tokens", "5 x 7\n") + " --check-output " + cls.dir() + "/probs.csv"),
        1, "bad.tokens:1");
    check_error(
        auspex("convert " + cls.dir() + "/model.pt --config " + cls.config() + " -o " + out + " --check-input " +
               write_file("one.tokens", "5 6 7\n") + " --check-output " + cls.dir() + "/probs.csv"),
        1, "one row per input sequence");
    CHECK(!fs::exists(out));

    // A literal token list stands for a one-line token file.
    const JsonValue j = ax::test::case_json(ax::test::fixture_path("seq2seq/tutorial"));
    const Result literal =
        auspex("convert " + ax::test::fixture_path("seq2seq/tutorial/model.pt") + " --config " +
               ax::test::fixture_path("seq2seq/tutorial/config.json") + " -o " + out_path("literal.axm") +
               " --check-input \"" + token_line(*j.find("src")) + "\" --check-target \"" + token_line(*j.find("tgt")) +
               "\" --check-output " + ax::test::fixture_path("seq2seq/tutorial/logits.csv"));
    INFO(literal.output);
    CHECK(literal.exit_code == 0);

    check_error(auspex("convert " + dir + "/model.pt -o " + out + " --find-config x.json"), 2, "--find-config needs");
    // An output PyTorch did not make: no candidate matches, the closest is named.
    const Result none = run(src, tgt,
                            write_file("shifted_out.csv",
                                       [&] {
                                           std::string s;
                                           for (float v : ax::tools::read_csv(want).values)
                                               s += std::to_string(v + 0.05f) + "\n";
                                           return s;
                                       }()) +
                                " --find-config " + out_path("none.json"));
    check_error(none, 1, "no config the checkpoint allows reproduces");
    CHECK(none.output.find("the closest, nhead 4, activation relu") != std::string::npos);
    CHECK(!fs::exists(scratch_dir() / "none.json"));
    CHECK(!fs::exists(out));
}

TEST_CASE("convert --find-config: when several configs match it says so and keeps the user's values") {
    // One encoder and one decoder row (tests/fixtures/gen_check_fixtures.py): nhead and the memory mask
    // cannot show, activation still does.
    Case c = forecaster_case("post_relu_tril");
    c.check = " --check-input " + c.dir() + "/one_src.csv --check-target " + c.dir() + "/one_tgt.csv --check-output " +
              c.dir() + "/one_out.csv";
    const std::string found = out_path("several.json");
    const std::string wrong =
        config_with(c, {{"nhead", JsonValue::make_integer(2)}, {"activation", JsonValue::make_string("gelu")}},
                    "several_wrong.json");
    const Result r = auspex(c.convert(wrong, out_path("several.axm")) + " --find-config " + found);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(r.output.find("configs match, differing in nhead, layer_norm_eps, memory_mask") != std::string::npos);
    CHECK(r.output.find("this check pair does not tell them apart") != std::string::npos);
    const JsonValue got = ax::tools::parse_json_file(found);
    CHECK(got.find("nhead")->as_int("nhead", 1, 64) == 2);             // the user's, as good as any here
    CHECK(got.find("memory_mask")->as_string("mask") == "tril");       // the user's
    CHECK(got.find("activation")->as_string("activation") == "relu");  // what the pair does tell
}

TEST_CASE("format_json writes a config that reads back the same, numbers in their shortest form") {
    const std::string text = R"({"arch": "forecaster", "nhead": 4, "layer_norm_eps": 1e-05, "norm_first": false,
        "normalization": {"mode": "global", "mean": [300, -40.5], "scale": [0.1, 2]}, "comment": "a \"q\"\n"})";
    const JsonValue v = ax::tools::parse_json(text, "config");
    const std::string written = ax::tools::format_json(v);
    CHECK(written.find("\"layer_norm_eps\": 1e-05") != std::string::npos);
    CHECK(written.find("\"mean\": [300, -40.5]") != std::string::npos);
    CHECK(written.find("\"scale\": [0.1, 2]") != std::string::npos);
    CHECK(ax::tools::format_json(ax::tools::parse_json(written, "written")) == written);
    const JsonValue back = ax::tools::parse_json(written, "written");
    CHECK(back.find("comment")->as_string("comment") == "a \"q\"\n");
    CHECK(back.find("normalization")->find("scale")->as_array("scale")[0].as_number("s") == 0.1);
}
