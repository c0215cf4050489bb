// Fuzzes the vocabulary readers: the converter's (tools/convert/vocabulary_source.cpp: a SentencePiece
// protobuf, a torch.save'd torchtext Vocab, a token list) and the runtime's (runtime/vocabulary.cpp: a
// vocabulary tensor of any words read in place), then the tokenizers over what they accept. Any input must
// give a Status or a ToolError, never a read outside the buffer.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_support.h"
#include "runtime/tokenizer.h"
#include "runtime/vocabulary.h"
#include "tools/common/tool_error.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/vocabulary_source.h"
#include "tools/convert/vocabulary_store.h"

namespace {

using namespace ax;

const char* const kTexts[] = {"",
                              " ",
                              "Hello, World! It's 3.14 (ok)?",
                              "  a\tb\n c  ",
                              "안녕하세요 영화 <br />",
                              "Ｆｕｌｌ ﬁ ①",
                              "\xF0\x9F\x98\x80x"};

void exercise(const Vocabulary& v, const std::string& extra) {
    std::vector<std::string> texts(std::begin(kTexts), std::end(kTexts));
    texts.push_back(extra);
    for (const std::string& t : texts) {
        std::vector<uint8_t> scratch(encode_scratch_bytes(v, t.size()));
        std::vector<int32_t> ids(encode_max_ids(v, t.size()) + 1);
        size_t n = 0;
        if (!encode_text(v, t.data(), t.size(), scratch.data(), scratch.size(), ids.data(), ids.size(), &n).is_ok())
            continue;
        size_t len = 0;
        decode_ids(v, ids.data(), n, nullptr, 0, &len);
        std::vector<char> out(len + 1);
        if (!decode_ids(v, ids.data(), n, out.data(), out.size(), &len).is_ok()) __builtin_trap();
    }
}

void open_words(const std::vector<uint32_t>& words, size_t pieces, const std::string& extra) {
    tools::AxmModel m;
    m.family = format::Family::classifier;
    tools::AxmTensor t;
    t.role = format::Role::src_vocabulary;
    t.dtype = format::DType::i32;
    t.dims = {static_cast<uint32_t>(words.size())};
    t.data.resize(4 * words.size());
    if (!words.empty()) std::memcpy(t.data.data(), words.data(), t.data.size());
    m.tensors.push_back(t);
    const std::vector<uint8_t> bytes = tools::serialize_axm(m);
    fuzz::AlignedCopy buffer(bytes.data(), bytes.size());
    ModelFile f;
    if (!ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &f).is_ok()) __builtin_trap();
    Vocabulary v;
    if (Vocabulary::open(f, format::Role::src_vocabulary, pieces, &v).is_ok()) exercise(v, extra);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string bytes(reinterpret_cast<const char*>(data), size);
    const std::string extra = bytes.substr(0, 64);
    // The converter's readers.
    for (const char* name : {"fuzz.model", "fuzz.txt"}) {
        try {
            const tools::VocabSource s = tools::parse_vocabulary(name, bytes, format::Tokenizer::basic_english);
            const std::vector<uint32_t> w = tools::vocabulary_words(s);
            open_words(w, s.pieces.size(), extra);
        } catch (const tools::ToolError&) {
        }
    }
    // The runtime's reader over arbitrary words (the piece count it is checked against from the header).
    if (size >= 4 * ax::vocab::kHeaderWords) {
        std::vector<uint32_t> words(size / 4);
        std::memcpy(words.data(), data, 4 * words.size());
        open_words(words, words[ax::vocab::kPieces], extra);
    }
    return 0;
}
