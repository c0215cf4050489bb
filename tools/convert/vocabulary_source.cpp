// SentencePiece's ModelProto as sentencepiece_model.proto numbers it: pieces = 1 (piece 1, score 2, type 3),
// trainer_spec = 2 (model_type 3, treat_whitespace_as_suffix 24, byte_fallback 35, unk/bos/eos/pad ids
// 40..43), normalizer_spec = 3 (name 1, precompiled_charsmap 2, add_dummy_prefix 3, remove_extra_whitespaces
// 4, escape_whitespaces 5), denormalizer_spec = 5. Whatever rules made the normalization (nmt_nfkc, nfkc, the
// _cf case-folding ones, a user's TSV), SentencePiece encodes through their precompiled charsmap alone, which
// the runtime applies as it is.
#include "tools/convert/vocabulary_source.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>

#include "runtime/vocabulary.h"
#include "tools/checkpoint/pickle_reader.h"
#include "tools/checkpoint/zip_archive.h"
#include "tools/common/split_text.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

constexpr size_t kMaxVocabularyBytes = size_t{64} << 20;

std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ToolError(path + ": cannot open the vocabulary file");
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (bytes.size() > kMaxVocabularyBytes)
        throw ToolError(path + ": a vocabulary of " + std::to_string(bytes.size()) + " bytes is beyond the " +
                        std::to_string(kMaxVocabularyBytes) + " this reader takes");
    return bytes;
}

uint8_t kind(vocab::Kind k) { return static_cast<uint8_t>(k); }

// Words: specials (<unk>, <pad>, <bos>, <eos>) are normal words until the store marks the model's special ids.
VocabSource from_words(const std::string& path, std::vector<std::string> words, int64_t unk, format::Tokenizer t) {
    VocabSource v;
    v.path = path;
    v.tokenizer = t;
    std::set<std::string> seen;
    for (size_t i = 0; i < words.size(); ++i) {
        if (words[i].empty()) throw ToolError(path + ": token " + std::to_string(i) + " is empty");
        if (!seen.insert(words[i]).second)
            throw ToolError(path + ": the token '" + words[i] + "' appears twice (ids must name one token each)");
    }
    if (words.empty()) throw ToolError(path + ": the vocabulary is empty");
    v.pieces = std::move(words);
    v.scores.assign(v.pieces.size(), 0.0f);
    v.kinds.assign(v.pieces.size(), kind(vocab::Kind::normal));
    if (unk >= static_cast<int64_t>(v.pieces.size()))
        throw ToolError(path + ": the default index " + std::to_string(unk) + " is outside its " +
                        std::to_string(v.pieces.size()) + " tokens");
    if (unk < 0)
        for (size_t i = 0; i < v.pieces.size(); ++i)
            if (v.pieces[i] == "<unk>") unk = static_cast<int64_t>(i);
    v.unk = unk;
    return v;
}

VocabSource token_list(const std::string& path, const std::string& bytes, format::Tokenizer t) {
    std::vector<std::string> words = split_lines(bytes);
    for (size_t i = 0; i < words.size(); ++i)
        if (words[i].empty())
            throw ToolError(path + ": line " + std::to_string(i + 1) +
                            " is empty (a token list holds one token per line, in id order)");
    return from_words(path, std::move(words), -1, t);
}

VocabSource torchtext(const std::string& path, const std::string& bytes, format::Tokenizer t) {
    const ZipArchive zip(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    const ZipEntry* pickle = nullptr;
    for (const ZipEntry& e : zip.entries()) {
        const std::string suffix = "/data.pkl";
        if (e.name.size() > suffix.size() && e.name.compare(e.name.size() - suffix.size(), suffix.size(), suffix) == 0)
            pickle = &e;
    }
    if (pickle == nullptr) throw ToolError(path + ": a zip without data.pkl is not a torch.save file");
    try {
        const PickledVocab p = parse_torchtext_vocab(zip.entry_data(*pickle), static_cast<size_t>(pickle->size));
        return from_words(path, p.itos, p.default_index, t);
    } catch (const ToolError& e) {
        throw ToolError(path + ": " + e.what());
    }
}

// Protobuf wire format over a byte range.
class Wire {
public:
    Wire(const std::string& path, const char* p, size_t n)
        : path_(path), p_(reinterpret_cast<const uint8_t*>(p)), n_(n) {}
    bool more() const { return at_ < n_; }
    uint64_t varint() {
        uint64_t v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (at_ >= n_) fail("truncated varint");
            const uint8_t b = p_[at_++];
            v |= uint64_t{b & 0x7Fu} << shift;
            if ((b & 0x80) == 0) return v;
        }
        fail("varint longer than 10 bytes");
    }
    // The next field's number and wire type.
    void tag(uint32_t* field, uint32_t* type) {
        const uint64_t t = varint();
        *field = static_cast<uint32_t>(t >> 3);
        *type = static_cast<uint32_t>(t & 7);
    }
    std::string bytes() {
        const uint64_t len = varint();
        if (len > n_ - at_) fail("field runs past its message");
        std::string s(reinterpret_cast<const char*>(p_ + at_), static_cast<size_t>(len));
        at_ += static_cast<size_t>(len);
        return s;
    }
    float fixed32() {
        if (n_ - at_ < 4) fail("truncated float");
        uint32_t bits = 0;
        for (int b = 0; b < 4; ++b) bits |= uint32_t{p_[at_ + b]} << (8 * b);
        at_ += 4;
        float f;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    void skip(uint32_t type) {
        if (type == 0)
            varint();
        else if (type == 1)
            advance(8);
        else if (type == 2)
            bytes();
        else if (type == 5)
            advance(4);
        else
            fail("unknown wire type " + std::to_string(type));
    }
    [[noreturn]] void fail(const std::string& what) const {
        throw ToolError(path_ + ": not a SentencePiece model (" + what + ")");
    }

private:
    void advance(size_t k) {
        if (n_ - at_ < k) fail("truncated field");
        at_ += k;
    }
    const std::string& path_;
    const uint8_t* p_;
    size_t n_;
    size_t at_ = 0;
};

VocabSource sentencepiece(const std::string& path, const std::string& bytes) {
    VocabSource v;
    v.path = path;
    bool dummy = true, remove_extra = true, escape = true;  // the proto's defaults
    uint64_t model_type = 1;                                // UNIGRAM
    bool suffix = false, byte_fallback = false;
    std::string denormalizer_map;
    Wire w(path, bytes.data(), bytes.size());
    while (w.more()) {
        uint32_t field = 0, type = 0;
        w.tag(&field, &type);
        if (field == 1 && type == 2) {
            const std::string m = w.bytes();
            Wire p(path, m.data(), m.size());
            std::string piece;
            float score = 0.0f;
            uint64_t kind_value = 1;
            while (p.more()) {
                uint32_t f = 0, t = 0;
                p.tag(&f, &t);
                if (f == 1 && t == 2)
                    piece = p.bytes();
                else if (f == 2 && t == 5)
                    score = p.fixed32();
                else if (f == 3 && t == 0)
                    kind_value = p.varint();
                else
                    p.skip(t);
            }
            if (kind_value < 1 || kind_value > 6) w.fail("piece type " + std::to_string(kind_value));
            v.pieces.push_back(piece);
            v.scores.push_back(score);
            v.kinds.push_back(static_cast<uint8_t>(kind_value));
        } else if (field == 2 && type == 2) {
            const std::string m = w.bytes();
            Wire t(path, m.data(), m.size());
            while (t.more()) {
                uint32_t f = 0, ty = 0;
                t.tag(&f, &ty);
                if (ty != 0) {
                    t.skip(ty);
                    continue;
                }
                const uint64_t value = t.varint();
                const int64_t id = static_cast<int32_t>(static_cast<uint32_t>(value));
                if (f == 3) model_type = value;
                if (f == 24) suffix = value != 0;
                if (f == 35) byte_fallback = value != 0;
                if (f == 40) v.unk = id;
                if (f == 41) v.bos = id;
                if (f == 42) v.eos = id;
                if (f == 43) v.pad = id;
            }
        } else if ((field == 3 || field == 5) && type == 2) {
            const std::string m = w.bytes();
            Wire n(path, m.data(), m.size());
            while (n.more()) {
                uint32_t f = 0, t = 0;
                n.tag(&f, &t);
                if (f == 2 && t == 2) {
                    (field == 3 ? v.charsmap : denormalizer_map) = n.bytes();
                } else if (field == 3 && f >= 3 && f <= 5 && t == 0) {
                    const bool on = n.varint() != 0;
                    (f == 3 ? dummy : f == 4 ? remove_extra : escape) = on;
                } else {
                    n.skip(t);
                }
            }
        } else {
            w.skip(type);
        }
    }
    if (v.pieces.empty()) w.fail("no pieces");
    if (model_type != 1 && model_type != 2)
        throw ToolError(path + ": a SentencePiece " + std::string(model_type == 3 ? "word" : "char") +
                        " model; auspex encodes unigram and BPE models (retrain with --model_type=unigram or bpe)");
    v.tokenizer = model_type == 1 ? format::Tokenizer::unigram : format::Tokenizer::bpe;
    if (suffix) throw ToolError(path + ": treat_whitespace_as_suffix is not supported (the ▁ comes first here)");
    if (byte_fallback)
        throw ToolError(path + ": byte_fallback models are not supported (unknown characters would become bytes)");
    if (!denormalizer_map.empty())
        throw ToolError(path + ": the model has denormalization rules; auspex decodes without them");
    for (size_t i = 0; i < v.kinds.size(); ++i)
        if (v.kinds[i] == kind(vocab::Kind::user_defined) || v.kinds[i] == kind(vocab::Kind::byte) ||
            v.kinds[i] == kind(vocab::Kind::unused))
            throw ToolError(path + ": piece " + std::to_string(i) + " ('" + v.pieces[i] +
                            "') is user-defined, a byte or unused; auspex encodes models with normal, control and "
                            "unknown pieces only");
    v.flags = (dummy ? vocab::add_dummy_prefix : 0u) | (remove_extra ? vocab::remove_extra_whitespaces : 0u) |
              (escape ? vocab::escape_whitespaces : 0u);
    const int64_t n = static_cast<int64_t>(v.pieces.size());
    for (int64_t* id : {&v.unk, &v.bos, &v.eos, &v.pad})
        if (*id >= n) throw ToolError(path + ": a special id (" + std::to_string(*id) + ") beyond its pieces");
    if (v.unk < 0 || v.kinds[static_cast<size_t>(v.unk)] != kind(vocab::Kind::unknown))
        throw ToolError(path + ": the model's unk_id does not name its unknown piece");
    return v;
}

bool ends_with(const std::string& s, const char* suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// Darts double-array units.
uint32_t offset(uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

}  // namespace

uint32_t charsmap_expansion(const std::string& charsmap) {
    uint32_t ratio = 3;  // an unmapped space becomes "▁"
    if (charsmap.empty()) return ratio;
    if (charsmap.size() < 4) throw ToolError("the normalization table is shorter than its header");
    uint32_t trie_bytes = 0;
    std::memcpy(&trie_bytes, charsmap.data(), 4);
    if (trie_bytes == 0 || trie_bytes % 4 != 0 || trie_bytes > charsmap.size() - 4)
        throw ToolError("the normalization table's trie does not fit it");
    const size_t count = trie_bytes / 4;
    std::vector<uint32_t> units(count);
    std::memcpy(units.data(), charsmap.data() + 4, trie_bytes);
    const std::string strings = charsmap.substr(4 + trie_bytes);
    struct Item {
        size_t pos, depth;
    };
    std::vector<Item> stack{{offset(units[0]), 0}};
    // Darts-clone shares common suffixes, so nodes have several parents: the walk follows every key (the
    // built-in tables hold a few hundred thousand) and refuses a table whose keys never end.
    constexpr size_t kMaxKeyBytes = 256, kMaxVisits = size_t{1} << 22;
    size_t visited = 0;
    while (!stack.empty()) {
        const Item it = stack.back();
        stack.pop_back();
        if (++visited > kMaxVisits || it.depth > kMaxKeyBytes)
            throw ToolError("the normalization table's trie has keys beyond " + std::to_string(kMaxKeyBytes) +
                            " bytes or a cycle");
        for (uint32_t c = 1; c < 256; ++c) {
            const size_t child = it.pos ^ c;
            if (child >= count || (units[child] & ((1u << 31) | 0xFFu)) != c) continue;
            const size_t next = child ^ offset(units[child]);
            if (next >= count) continue;
            if ((units[child] >> 8) & 1u) {
                const uint32_t value = units[next] & 0x7FFFFFFFu;
                const size_t end = strings.find('\0', value);
                if (value >= strings.size() || end == std::string::npos)
                    throw ToolError("the normalization table points past its strings");
                size_t out = 0;
                for (size_t k = value; k < end; ++k) out += strings[k] == ' ' ? 3 : 1;
                const size_t key = it.depth + 1;
                ratio = std::max<uint32_t>(ratio, static_cast<uint32_t>((out + key - 1) / key));
            }
            stack.push_back({next, it.depth + 1});
        }
    }
    return ratio;
}

VocabSource read_vocabulary(const std::string& path, format::Tokenizer words) {
    return parse_vocabulary(path, read_all(path), words);
}

VocabSource parse_vocabulary(const std::string& path, const std::string& bytes, format::Tokenizer words) {
    if (bytes.size() >= 4 && bytes.compare(0, 4, "PK\x03\x04") == 0) return torchtext(path, bytes, words);
    if (ends_with(path, ".model")) return sentencepiece(path, bytes);
    return token_list(path, bytes, words);
}

}  // namespace ax::tools
