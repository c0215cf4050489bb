// Text in, text out, against the real libraries (tests/fixtures/gen_text_fixtures.py): 300 sentences
// (punctuation, numbers, casing, accents, Korean, characters and words outside the vocabularies) encoded
// by SentencePiece (a unigram model with nmt_nfkc, a BPE model) and torchtext's basic_english over a real
// torch.save'd torchtext Vocab; the ids must be identical, SentencePiece's decoding too. Plus the readers'
// refusals and the exact scratch sizes.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstring>
#include <memory>

#include "runtime/model_file.h"
#include "runtime/tokenizer.h"
#include "runtime/vocabulary.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/common/tool_error.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/vocabulary_source.h"
#include "tools/convert/vocabulary_store.h"
#include "tools/text/json.h"

namespace {

using namespace ax;

// A model file holding one vocabulary (enough for ModelFile and Vocabulary to read it in place).
struct StoredVocabulary {
    std::vector<uint8_t> bytes;
    ModelFile file;
    Vocabulary vocab;
};

std::unique_ptr<StoredVocabulary> store(const tools::VocabSource& source) {
    auto s = std::make_unique<StoredVocabulary>();
    tools::AxmModel m;
    m.family = format::Family::classifier;
    tools::AxmTensor t;
    t.role = format::Role::src_vocabulary;
    t.dtype = format::DType::i32;
    const std::vector<uint32_t> w = tools::vocabulary_words(source);
    t.dims = {static_cast<uint32_t>(w.size())};
    t.data.resize(4 * w.size());
    std::memcpy(t.data.data(), w.data(), t.data.size());
    m.tensors.push_back(t);
    s->bytes = tools::serialize_axm(m);
    REQUIRE(ModelFile::open(s->bytes.data(), s->bytes.size(), Checksum::verify, &s->file).is_ok());
    const Status st = Vocabulary::open(s->file, format::Role::src_vocabulary, source.pieces.size(), &s->vocab);
    INFO(st.message());
    REQUIRE(st.is_ok());
    return s;
}

std::unique_ptr<StoredVocabulary> load(const std::string& fixture, format::Tokenizer words) {
    return store(tools::read_vocabulary(test::fixture_path("text/" + fixture), words));
}

std::vector<int32_t> encode(const Vocabulary& v, const std::string& text) {
    std::vector<uint8_t> scratch(encode_scratch_bytes(v, text.size()));
    std::vector<int32_t> ids(encode_max_ids(v, text.size()) + 1);
    size_t n = 0;
    const Status s =
        encode_text(v, text.data(), text.size(), scratch.data(), scratch.size(), ids.data(), ids.size(), &n);
    INFO(s.message());
    REQUIRE(s.is_ok());
    ids.resize(n);
    return ids;
}

std::string decode(const Vocabulary& v, const std::vector<int32_t>& ids) {
    size_t n = 0;
    decode_ids(v, ids.data(), ids.size(), nullptr, 0, &n);
    std::string out(n, '\0');
    const Status s = decode_ids(v, ids.data(), ids.size(), out.data(), out.size(), &n);
    REQUIRE(s.is_ok());
    return out;
}

std::vector<int32_t> ids_of(const tools::JsonValue& v) {
    std::vector<int32_t> out;
    for (const auto& x : v.as_array("ids")) out.push_back(static_cast<int32_t>(x.as_int("id", 0, 1 << 20)));
    return out;
}

const tools::JsonValue& sentences() {
    static const tools::JsonValue json = tools::parse_json_file(test::fixture_path("text/sentences.json"));
    return json;
}

}  // namespace

TEST_CASE("text: SentencePiece unigram (nmt_nfkc) and BPE give SentencePiece's ids and decoding") {
    const auto uni = load("unigram.model", format::Tokenizer::words);
    const auto bpe = load("bpe.model", format::Tokenizer::words);
    CHECK(uni->vocab.tokenizer() == format::Tokenizer::unigram);
    CHECK(bpe->vocab.tokenizer() == format::Tokenizer::bpe);
    CHECK(uni->vocab.charsmap_bytes() > 0);  // nmt_nfkc's table travels with the model
    size_t checked = 0, unknown = 0, korean = 0;
    for (const auto& c : sentences().as_array("sentences")) {
        const std::string text = c.find("text")->as_string("text");
        INFO("text: '" << text << "'");
        const std::vector<int32_t> want_uni = ids_of(*c.find("unigram"));
        const std::vector<int32_t> want_bpe = ids_of(*c.find("bpe"));
        CHECK(encode(uni->vocab, text) == want_uni);
        CHECK(encode(bpe->vocab, text) == want_bpe);
        CHECK(decode(uni->vocab, want_uni) == c.find("unigram_decoded")->as_string("decoded"));
        CHECK(decode(bpe->vocab, want_bpe) == c.find("bpe_decoded")->as_string("decoded"));
        unknown += std::count(want_uni.begin(), want_uni.end(), 1) > 0;
        korean += text.find("\xEC\x98\x81\xED\x99\x94") != std::string::npos;  // 영화
        ++checked;
    }
    CHECK(checked == 300);
    CHECK(unknown > 20);
    CHECK(korean > 5);
}

TEST_CASE("text: basic_english over a real torchtext Vocab gives torchtext's ids") {
    const auto v = load("torchvocab.pth", format::Tokenizer::basic_english);
    CHECK(v->vocab.size() == 837);
    CHECK(v->vocab.unk_id() == 0);
    // The vocabulary's own example, written with torchtext itself.
    CHECK(encode(v->vocab, "The GNU General Public License is a free, copyleft license (for software).") ==
          std::vector<int32_t>{4, 116, 102, 75, 18, 19, 8, 72, 5, 513, 18, 27, 15, 47, 20, 6});
    const auto words = load("itos.txt", format::Tokenizer::words);  // the same list as text, split on whitespace
    // The sentences' own tokens as a vocabulary: ids that are mostly not <unk> check the lowercasing (every
    // capital of the scripts covered, final sigma, dotted I) and the splitting character by character.
    const auto own = load("lower_vocab.txt", format::Tokenizer::basic_english);
    size_t nonempty = 0, known = 0;
    for (const auto& c : sentences().as_array("sentences")) {
        const std::string text = c.find("text")->as_string("text");
        INFO("text: '" << text << "'");
        const std::vector<int32_t> want = ids_of(*c.find("basic_english"));
        CHECK(encode(v->vocab, text) == want);
        CHECK(encode(words->vocab, text) == ids_of(*c.find("words")));
        const std::vector<int32_t> want_own = ids_of(*c.find("basic_english_own"));
        CHECK(encode(own->vocab, text) == want_own);
        nonempty += !want.empty();
        known +=
            static_cast<size_t>(std::count_if(want_own.begin(), want_own.end(), [](int32_t id) { return id != 0; }));
    }
    CHECK(nonempty > 280);
    CHECK(known > 1000);
    // A zero byte is part of a word, as in Python's split(), not a separator or a token of its own.
    CHECK(encode(v->vocab, std::string("the\0the the", 11)) == std::vector<int32_t>{0, 4});
}

TEST_CASE("text: scratch sizes are exact and refusals are clear") {
    const auto v = load("unigram.model", format::Tokenizer::words);
    const std::string text = "안녕하세요 영화";
    const size_t need = encode_scratch_bytes(v->vocab, text.size());
    std::vector<uint8_t> scratch(need);
    std::vector<int32_t> ids(encode_max_ids(v->vocab, text.size()));
    size_t n = 0;
    CHECK(encode_text(v->vocab, text.data(), text.size(), scratch.data(), need, ids.data(), ids.size(), &n).is_ok());
    const Status small =
        encode_text(v->vocab, text.data(), text.size(), scratch.data(), need - 1, ids.data(), ids.size(), &n);
    CHECK(small.code() == StatusCode::arena_too_small);
    const Status few = encode_text(v->vocab, text.data(), text.size(), scratch.data(), need, ids.data(), 1, &n);
    CHECK(few.code() == StatusCode::invalid_argument);
    const char bad[] = "a\xC3(";
    CHECK(encode_text(v->vocab, bad, 3, scratch.data(), need, ids.data(), ids.size(), &n).code() ==
          StatusCode::bad_input);
    const int32_t out_of_range[] = {9999};
    char buf[8];
    CHECK(decode_ids(v->vocab, out_of_range, 1, buf, sizeof buf, &n).code() == StatusCode::invalid_argument);

    // A word list without <unk>: an unknown word is an error naming it.
    const std::string list = test::write_file("no_unk.txt", "hello\nworld\n");
    const auto plain = store(tools::read_vocabulary(list, format::Tokenizer::words));
    std::vector<int32_t> two(4);
    const Status missing = encode_text(plain->vocab, "hello there", 11, nullptr, 0, two.data(), two.size(), &n);
    CHECK(missing.code() == StatusCode::bad_input);
    CHECK(std::string(missing.message()).find("'there'") != std::string::npos);

    CHECK_THROWS_WITH_AS(tools::read_vocabulary(test::write_file("dup.txt", "a\nb\na\n"), format::Tokenizer::words),
                         doctest::Contains("appears twice"), tools::ToolError);
    CHECK_THROWS_WITH_AS(tools::read_vocabulary(test::write_file("gap.txt", "a\n\nb\n"), format::Tokenizer::words),
                         doctest::Contains("empty"), tools::ToolError);
    CHECK_THROWS_WITH_AS(
        tools::read_vocabulary(test::write_file("junk.model", "\x0a\x05hello"), format::Tokenizer::words),
        doctest::Contains("not a SentencePiece model"), tools::ToolError);
}

TEST_CASE("text: a damaged vocabulary tensor is refused, not read") {
    const auto v = load("bpe.model", format::Tokenizer::words);
    TensorView t;
    REQUIRE(v->file.find(format::Role::src_vocabulary, format::kNoLayer, &t));
    const size_t at = t.data_offset;
    struct Patch {
        size_t word;
        uint32_t value;
    };
    const size_t n = v->vocab.size();
    const Patch patches[] = {
        {vocab::kTokenizer, 9},
        {vocab::kFlags, 1u << 7},
        {vocab::kPieces, static_cast<uint32_t>(n + 1)},
        {vocab::kUnkId, static_cast<uint32_t>(n)},
        {vocab::kUnkId, format::kNoToken},  // SentencePiece always has its unknown piece
        {vocab::kExpansion, 0},
        {vocab::kHeaderWords + 1, 0xFFFFu},                       // an offset past the text
        {vocab::kHeaderWords + n + 1, static_cast<uint32_t>(n)},  // sorted index out of range
        {vocab::kHeaderWords + n + 2, 0},                         // sorted index not sorted
    };
    for (const Patch& p : patches) {
        std::vector<uint8_t> bytes = v->bytes;
        std::memcpy(bytes.data() + at + 4 * p.word, &p.value, 4);
        tools::reseal_axm(bytes);
        ModelFile f;
        REQUIRE(ModelFile::open(bytes.data(), bytes.size(), Checksum::verify, &f).is_ok());
        Vocabulary out;
        const Status s = Vocabulary::open(f, format::Role::src_vocabulary, n, &out);
        INFO("word " << p.word);
        CHECK(s.code() == StatusCode::bad_model);
    }
    Vocabulary other;
    CHECK(Vocabulary::open(v->file, format::Role::src_vocabulary, n + 1, &other).code() == StatusCode::bad_model);
}
