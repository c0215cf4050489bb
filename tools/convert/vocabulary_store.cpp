#include "tools/convert/vocabulary_store.h"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "runtime/vocabulary.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

using format::ConfigKey;
using format::Role;

uint32_t config_value(const AxmModel& m, ConfigKey key) {
    for (const auto& [k, value] : m.config)
        if (k == key) return value;
    return format::kNoToken;
}

size_t embedding_rows(const AxmModel& m, Role role) {
    for (const AxmTensor& t : m.tensors)
        if (t.role == role && !t.dims.empty()) return t.dims[0];
    throw ToolError(std::string("internal error: no ") + format::role_name(role) + " to check a vocabulary against");
}

int64_t find_name(const VocabSource& v, const char* name) {
    for (size_t i = 0; i < v.pieces.size(); ++i)
        if (v.pieces[i] == name) return static_cast<int64_t>(i);
    return -1;
}

// The vocabulary's own id for a special token: SentencePiece's trainer spec, else the token found by name.
int64_t special(const VocabSource& v, const char* name, int64_t spm_id) {
    if (v.tokenizer == format::Tokenizer::unigram || v.tokenizer == format::Tokenizer::bpe) return spm_id;
    return find_name(v, name);
}

void check_special(const VocabSource& v, const char* name, const char* key, int64_t in_vocab, uint32_t configured,
                   std::vector<std::string>* notes) {
    if (configured != format::kNoToken && in_vocab >= 0 && static_cast<uint32_t>(in_vocab) != configured)
        throw ToolError(v.path + ": " + name + " is id " + std::to_string(in_vocab) + " here but the config's " + key +
                        " is " + std::to_string(configured) +
                        "; the vocabulary must be the one the model was trained with (or fix the config)");
    if (configured == format::kNoToken && in_vocab >= 0 && notes != nullptr)
        notes->push_back(v.path + ": names " + name + " (id " + std::to_string(in_vocab) + ") but the config has no " +
                         key);
}

void add_side(AxmModel& model, const std::string& path, Role vocab_role, Role embed_role, format::Tokenizer words,
              bool check_bos_eos, std::vector<std::string>* notes) {
    VocabSource v = read_vocabulary(path, words);
    const size_t rows = embedding_rows(model, embed_role);
    if (v.pieces.size() != rows)
        throw ToolError(path + ": " + std::to_string(v.pieces.size()) + " tokens, but the model's " +
                        format::role_name(embed_role) + " has " + std::to_string(rows) +
                        " rows: the vocabulary must be the one the model was trained with");
    const uint32_t pad = config_value(model, ConfigKey::pad_id);
    const uint32_t bos = check_bos_eos ? config_value(model, ConfigKey::bos_id) : format::kNoToken;
    const uint32_t eos = check_bos_eos ? config_value(model, ConfigKey::eos_id) : format::kNoToken;
    check_special(v, "<pad>", "pad_id", special(v, "<pad>", v.pad), pad, notes);
    if (check_bos_eos) {
        check_special(v, "<bos>", "bos_id", special(v, "<bos>", v.bos), bos, notes);
        check_special(v, "<eos>", "eos_id", special(v, "<eos>", v.eos), eos, notes);
    }
    const int64_t named_unk = find_name(v, "<unk>");
    if (v.unk >= 0 && named_unk >= 0 && named_unk != v.unk)
        throw ToolError(path + ": <unk> is id " + std::to_string(named_unk) + " but unknown words get id " +
                        std::to_string(v.unk));
    if (v.unk < 0 && notes != nullptr)
        notes->push_back(path + ": no <unk> and no default index: a word outside the vocabulary is an error");
    // Words: the config's special ids are left out when decoding, as the tutorials strip <bos> and <eos>.
    if (v.tokenizer == format::Tokenizer::words || v.tokenizer == format::Tokenizer::basic_english)
        for (const uint32_t id : {pad, bos, eos})
            if (id != format::kNoToken && id < v.kinds.size()) v.kinds[id] = static_cast<uint8_t>(vocab::Kind::control);
    AxmTensor t;
    t.role = vocab_role;
    t.dtype = format::DType::i32;
    const std::vector<uint32_t> w = vocabulary_words(v);
    t.dims = {static_cast<uint32_t>(w.size())};
    t.data.resize(w.size() * 4);
    std::memcpy(t.data.data(), w.data(), t.data.size());  // little-endian hosts only, as the writer
    t.source_name = path;
    model.tensors.push_back(std::move(t));
    if (notes != nullptr)
        notes->push_back(path + ": " + std::to_string(v.pieces.size()) + " tokens stored, text split by " +
                         format::enum_name(v.tokenizer));
}

}  // namespace

std::vector<uint32_t> vocabulary_words(const VocabSource& v) {
    const size_t n = v.pieces.size();
    std::string text;
    std::vector<uint32_t> offsets{0};
    for (const std::string& p : v.pieces) {
        text += p;
        offsets.push_back(static_cast<uint32_t>(text.size()));
    }
    std::vector<uint32_t> sorted(n);
    std::iota(sorted.begin(), sorted.end(), 0u);
    std::sort(sorted.begin(), sorted.end(), [&](uint32_t a, uint32_t b) { return v.pieces[a] < v.pieces[b]; });
    const uint32_t expansion =
        v.charsmap.empty() && v.tokenizer != format::Tokenizer::unigram && v.tokenizer != format::Tokenizer::bpe
            ? 1u
            : charsmap_expansion(v.charsmap);
    std::vector<uint32_t> w(vocab::kHeaderWords, 0u);
    w[vocab::kTokenizer] = static_cast<uint32_t>(v.tokenizer);
    w[vocab::kFlags] = v.flags;
    w[vocab::kPieces] = static_cast<uint32_t>(n);
    w[vocab::kTextBytes] = static_cast<uint32_t>(text.size());
    w[vocab::kCharsmapBytes] = static_cast<uint32_t>(v.charsmap.size());
    w[vocab::kUnkId] = v.unk >= 0 ? static_cast<uint32_t>(v.unk) : format::kNoToken;
    w[vocab::kExpansion] = expansion;
    w.insert(w.end(), offsets.begin(), offsets.end());
    w.insert(w.end(), sorted.begin(), sorted.end());
    for (const float s : v.scores) {
        uint32_t bits = 0;
        std::memcpy(&bits, &s, 4);
        w.push_back(bits);
    }
    auto append_bytes = [&w](const void* data, size_t bytes) {
        const uint8_t* p = static_cast<const uint8_t*>(data);
        for (size_t i = 0; i < bytes; i += 4) {
            uint32_t word = 0;
            for (size_t b = 0; b < 4 && i + b < bytes; ++b) word |= uint32_t{p[i + b]} << (8 * b);
            w.push_back(word);
        }
    };
    append_bytes(v.kinds.data(), v.kinds.size());
    append_bytes(text.data(), text.size());
    append_bytes(v.charsmap.data(), v.charsmap.size());
    if (w.size() != vocab::tensor_words(n, text.size(), v.charsmap.size()))
        throw ToolError("internal error: vocabulary sections do not add up");
    return w;
}

void add_vocabularies(AxmModel& model, const VocabularyOptions& options, std::vector<std::string>* notes) {
    if (options.src.empty() && options.tgt.empty()) return;
    if (model.family == format::Family::seq2seq) {
        if (!options.src.empty())
            add_side(model, options.src, Role::src_vocabulary, Role::src_token_embed, options.words, true, notes);
        const std::string& tgt = options.shared ? options.src : options.tgt;
        if (!tgt.empty()) add_side(model, tgt, Role::tgt_vocabulary, Role::tgt_token_embed, options.words, true, notes);
        return;
    }
    if (model.family == format::Family::classifier) {
        if (!options.tgt.empty() || options.src.empty())
            throw ToolError("--src-vocab and --tgt-vocab are a translator's; a classifier takes --vocab FILE");
        add_side(model, options.src, Role::src_vocabulary, Role::src_token_embed, options.words, false, notes);
        return;
    }
    throw ToolError(std::string("--vocab goes with a translator (seq2seq) or a classifier, not a ") +
                    format::enum_name(model.family));
}

}  // namespace ax::tools
