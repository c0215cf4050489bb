// convert --vocab, translate --text and classify --text against the tutorials' own functions
// (tests/fixtures/gen_text_fixtures.py, text/tasks.json): the translation equals the tutorial's translate()
// (its string without the spaces its <bos>/<eos> removal leaves), the classification the predicted
// probabilities; the C API encodes and decodes with the same stored vocabulary; mismatched vocabularies are
// refused at conversion.
#include <doctest/doctest.h>

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include "api/auspex.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"
#include "tools/common/aligned_buffer.h"
#include "tools/text/json.h"

namespace {

using namespace ax;

const tools::JsonValue& tasks() {
    static const tools::JsonValue json = tools::parse_json_file(test::fixture_path("text/tasks.json"));
    return json;
}

std::string strip(const std::string& s) {
    const size_t a = s.find_first_not_of(' ');
    if (a == std::string::npos) return "";
    return s.substr(a, s.find_last_not_of(' ') - a + 1);
}

std::string translator() {
    return test::converted_fixture(
        "seq2seq/tutorial", "text_translator.axm",
        "--vocab " + test::fixture_path("text/translator_vocab.txt") + " --tokenizer whitespace");
}

std::string classifier() {
    const std::string out = (test::scratch_dir() / "text_classifier.axm").string();
    const test::Result r = test::auspex("convert " + test::fixture_path("text/classifier.pt") + " --config " +
                                        test::fixture_path("text/classifier_config.json") + " --vocab " +
                                        test::fixture_path("text/unigram.model") + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return out;
}

}  // namespace

TEST_CASE("cli text: translate --text equals the tutorial's translate()") {
    const std::string model = translator();
    std::string lines, want;
    for (const auto& c : tasks().find("translate")->as_array("translate")) {
        const std::string text = c.find("text")->as_string("text");
        const std::string expected = strip(c.find("translation")->as_string("translation"));
        const test::Result r = test::auspex_stdout("translate " + model + " --text '" + text + "'");
        INFO(r.output);
        CHECK(r.exit_code == 0);
        CHECK(r.output == expected + "\n");
        lines += text + "\n";
        want += expected + "\n";
    }
    // A file of lines in, a file of lines out.
    const std::string in = test::write_file("sentences.txt", lines);
    const std::string out = (test::scratch_dir() / "translations.txt").string();
    const test::Result r = test::auspex("translate " + model + " --text-file " + in + " -o " + out);
    CHECK(r.exit_code == 0);
    CHECK(test::read_file(out) == want);
    // --tokens stays, and inspect shows the vocabularies.
    CHECK(test::auspex("translate " + model + " --tokens '2 5 9 13 7 3'").exit_code == 0);
    const test::Result i = test::auspex("inspect " + model);
    CHECK(i.output.find("vocab:    source 20 tokens, whitespace, unknown words -> 0") != std::string::npos);
}

TEST_CASE("cli text: a SentencePiece translator (unigram source, BPE target) equals translate() with sp.decode") {
    const std::string out = (test::scratch_dir() / "text_translator_spm.axm").string();
    const test::Result c = test::auspex("convert " + test::fixture_path("text/translator_spm.pt") + " --config " +
                                        test::fixture_path("text/translator_spm_config.json") + " --src-vocab " +
                                        test::fixture_path("text/unigram.model") + " --tgt-vocab " +
                                        test::fixture_path("text/bpe.model") + " -o " + out);
    REQUIRE_MESSAGE(c.exit_code == 0, c.output);
    std::string lines, want;
    for (const auto& t : tasks().find("translate_sentencepiece")->as_array("translate_sentencepiece")) {
        lines += t.find("text")->as_string("text") + "\n";
        want += t.find("translation")->as_string("translation") + "\n";
    }
    const test::Result r =
        test::auspex_stdout("translate " + out + " --text-file " + test::write_file("spm_sentences.txt", lines));
    CHECK(r.exit_code == 0);
    CHECK(r.output == want);
    CHECK(test::auspex("inspect " + out).output.find("target 250 tokens, sentencepiece_bpe") != std::string::npos);
}

TEST_CASE("cli text: classify --text equals the SentencePiece predict() probabilities") {
    const std::string model = classifier();
    std::string lines;
    std::vector<double> want;
    for (const auto& c : tasks().find("classify")->as_array("classify")) {
        lines += c.find("text")->as_string("text") + "\n";
        for (const auto& p : c.find("probs")->as_array("probs")) want.push_back(p.as_number("prob"));
    }
    const std::string in = test::write_file("reviews.txt", lines);
    const test::Result r = test::auspex_stdout("classify " + model + " --text-file " + in);
    REQUIRE(r.exit_code == 0);
    std::vector<double> got;
    for (const std::string& line : {r.output}) {
        size_t at = 0;
        while (at < line.size()) {
            size_t used = 0;
            got.push_back(std::stod(line.substr(at), &used));
            at += used;
            while (at < line.size() && (line[at] == ' ' || line[at] == '\n')) ++at;
        }
    }
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) CHECK(std::fabs(got[i] - want[i]) < test::tolerance::classifier);
    const test::Result csv = test::auspex("classify " + model + " --text-file " + in + " -o " +
                                          (test::scratch_dir() / "reviews.csv").string());
    CHECK(csv.exit_code == 0);
    CHECK(test::lines_of((test::scratch_dir() / "reviews.csv").string()).size() == 4);  // header + 3 rows
    CHECK(test::auspex("inspect " + model).output.find("sentencepiece_unigram") != std::string::npos);
}

TEST_CASE("cli text: the C API encodes and decodes with the model's vocabulary, no heap") {
    const std::string bytes = test::read_file(classifier());
    // The runtime reads a model 16-byte aligned (a vector of uint64_t is 8 on 32-bit targets).
    const ax::tools::AlignedBuffer aligned(std::vector<uint8_t>(bytes.begin(), bytes.end()));
    auspex_text t;
    REQUIRE(auspex_text_open(&t, aligned.data(), bytes.size(), AUSPEX_SOURCE_VOCABULARY) == AUSPEX_OK);
    const auto& c = tasks().find("classify")->as_array("classify")[0];
    const std::string text = c.find("text")->as_string("text");
    std::vector<unsigned char> scratch(auspex_text_scratch_bytes(&t, text.size()));
    std::vector<int32_t> ids(auspex_text_max_ids(&t, text.size()));
    size_t n = 0;
    REQUIRE(auspex_text_encode(&t, text.data(), text.size(), scratch.data(), scratch.size(), ids.data(), ids.size(),
                               &n) == AUSPEX_OK);
    ids.resize(n);
    std::vector<int32_t> want;
    for (const auto& x : c.find("ids")->as_array("ids")) want.push_back(static_cast<int32_t>(x.as_int("id", 0, 999)));
    CHECK(ids == want);
    char out[128];
    size_t len = 0;
    REQUIRE(auspex_text_decode(&t, ids.data(), ids.size(), out, sizeof out, &len) == AUSPEX_OK);
    CHECK(std::string(out, len) == text);
    CHECK(auspex_text_encode(&t, text.data(), text.size(), scratch.data(), scratch.size() - 1, ids.data(), ids.size(),
                             &n) == AUSPEX_ARENA_TOO_SMALL);
    CHECK(std::string(auspex_text_message(&t)).find("scratch") != std::string::npos);
    auspex_text target;
    CHECK(auspex_text_open(&target, aligned.data(), bytes.size(), AUSPEX_TARGET_VOCABULARY) == AUSPEX_INVALID_ARGUMENT);
}

TEST_CASE("cli text: vocabularies that do not fit the model are refused at conversion") {
    const std::string dir = test::fixture_path("seq2seq/tutorial");
    const std::string base = "convert " + dir + "/model.pt --config " + dir + "/config.json -o " +
                             (test::scratch_dir() / "refused.axm").string();
    // 837 tokens for an embedding of 20.
    test::check_error(test::auspex(base + " --vocab " + test::fixture_path("text/itos.txt")), 1, "837 tokens");
    // <pad> at id 2 while the config's pad_id is 1.
    std::string swapped = "<unk>\n<bos>\n<pad>\n<eos>\n";
    for (int i = 4; i < 20; ++i) swapped += "w" + std::to_string(i) + "\n";
    test::check_error(test::auspex(base + " --vocab " + test::write_file("swapped.txt", swapped)), 1,
                      "<pad> is id 2 here but the config's pad_id is 1");
    test::check_error(
        test::auspex(base + " --vocab " + test::fixture_path("text/translator_vocab.txt") + " --tokenizer spacy"), 2,
        "--tokenizer");
    // A model without a vocabulary says how to get one.
    const std::string plain = test::converted_fixture("seq2seq/tutorial", "text_plain.axm");
    test::check_error(test::auspex("translate " + plain + " --text 'w05 w09'"), 1, "--vocab");
}

TEST_CASE("cli text: header's text scratch macros are the runtime's exact figures") {
    const std::string model = classifier();
    const std::string h = (test::scratch_dir() / "text_classifier.h").string();
    REQUIRE(test::auspex("header " + model + " -o " + h + " --name cls --max-len 16").exit_code == 0);
    const std::string header = test::read_file(h);
    const size_t at = header.find("#define CLS_TEXT_SCRATCH_BYTES(n) ");
    REQUIRE(at != std::string::npos);
    CHECK(header.find("#define CLS_TEXT_MAX_IDS(n) ") != std::string::npos);
    std::string expression = header.substr(at + 34, header.find(" /*", at) - at - 34);
    // Evaluated by the shell's arithmetic for a few lengths (the C suffixes dropped) against the runtime.
    const std::string bytes = test::read_file(model);
    // The runtime reads a model 16-byte aligned (a vector of uint64_t is 8 on 32-bit targets).
    const ax::tools::AlignedBuffer aligned(std::vector<uint8_t>(bytes.begin(), bytes.end()));
    auspex_text t;
    REQUIRE(auspex_text_open(&t, aligned.data(), bytes.size(), AUSPEX_SOURCE_VOCABULARY) == AUSPEX_OK);
    for (const size_t n : {size_t{0}, size_t{1}, size_t{17}, size_t{256}}) {
        std::string e;
        for (size_t i = 0; i < expression.size(); ++i) {
            if (expression[i] == 'u' && i > 0 && std::isdigit(static_cast<unsigned char>(expression[i - 1]))) continue;
            if (expression[i] == 'n') {
                e += std::to_string(n);
                continue;
            }
            e += expression[i];
        }
        FILE* pipe = popen(("echo $((" + e + "))").c_str(), "r");
        REQUIRE(pipe != nullptr);
        char value[64] = {};
        const size_t got = std::fread(value, 1, sizeof value - 1, pipe);
        pclose(pipe);
        INFO(e);
        CHECK(std::string(value, got) == std::to_string(auspex_text_scratch_bytes(&t, n)) + "\n");
    }
}
