#include "runtime/vocabulary.h"

#include <cstring>

namespace ax {

namespace {

size_t words_for(size_t bytes) { return (bytes + 3) / 4; }

// Byte order of piece bytes, as unsigned bytes, shorter first on a common prefix.
int compare(const char* a, size_t na, const char* b, size_t nb) {
    const size_t n = na < nb ? na : nb;
    const int c = n == 0 ? 0 : std::memcmp(a, b, n);
    if (c != 0) return c;
    return na < nb ? -1 : na > nb ? 1 : 0;
}

Status bad(format::Role role, const char* text) {
    return Status::error(StatusCode::bad_model, format::role_name(role)).add(": ").add(text);
}

constexpr size_t kMaxExpansion = 64;

}  // namespace

size_t vocab::tensor_words(size_t pieces, size_t text_bytes, size_t charsmap_bytes) {
    return kHeaderWords + (pieces + 1) + pieces + pieces + words_for(pieces) + words_for(text_bytes) +
           words_for(charsmap_bytes);
}

Status Vocabulary::open(const ModelFile& file, format::Role role, size_t size, Vocabulary* out) {
    *out = Vocabulary{};
    TensorView v;
    if (!file.find(role, format::kNoLayer, &v)) return Status::ok();
    if (v.rank != 1 || v.dtype != format::DType::i32) return bad(role, "must be an int32 vector");
    const size_t words = v.dims[0];
    if (words < vocab::kHeaderWords) return bad(role, "shorter than its header");
    const uint32_t* w = static_cast<const uint32_t*>(v.data);
    Vocabulary r;
    r.words_ = w;
    if (w[vocab::kTokenizer] > format::enum_max<format::Tokenizer>()) return bad(role, "unknown tokenizer");
    r.tokenizer_ = static_cast<format::Tokenizer>(w[vocab::kTokenizer]);
    r.flags_ = w[vocab::kFlags];
    if ((r.flags_ & ~vocab::kKnownFlags) != 0) return bad(role, "unknown flags");
    r.pieces_ = w[vocab::kPieces];
    const size_t text_bytes = w[vocab::kTextBytes];
    r.charsmap_bytes_ = w[vocab::kCharsmapBytes];
    r.unk_id_ = w[vocab::kUnkId];
    r.expansion_ = w[vocab::kExpansion];
    if (w[vocab::kReserved] != 0) return bad(role, "reserved word is not 0");
    if (r.pieces_ == 0 || r.pieces_ > words || text_bytes > 4 * words || r.charsmap_bytes_ > 4 * words)
        return bad(role, "section sizes exceed the tensor");
    if (vocab::tensor_words(r.pieces_, text_bytes, r.charsmap_bytes_) != words)
        return bad(role, "section sizes do not add up to the tensor's length");
    if (r.pieces_ != size)
        return bad(role, "").add(r.pieces_).add(" pieces for an embedding of ").add(size).add(" tokens");
    if (r.unk_id_ != format::kNoToken && r.unk_id_ >= r.pieces_) return bad(role, "unknown-word id out of range");
    if (r.expansion_ < 1 || r.expansion_ > kMaxExpansion) return bad(role, "expansion out of range");
    const bool spm = r.tokenizer_ == format::Tokenizer::unigram || r.tokenizer_ == format::Tokenizer::bpe;
    if (!spm && (r.flags_ != 0 || r.charsmap_bytes_ != 0)) return bad(role, "normalization given to a word list");
    if (spm && r.unk_id_ == format::kNoToken) return bad(role, "a SentencePiece vocabulary without its unknown piece");
    size_t at = vocab::kHeaderWords;
    r.offsets_ = w + at;
    at += r.pieces_ + 1;
    r.sorted_ = w + at;
    at += r.pieces_;
    r.scores_ = w + at;
    at += r.pieces_;
    r.kinds_ = reinterpret_cast<const uint8_t*>(w + at);
    at += words_for(r.pieces_);
    r.text_ = reinterpret_cast<const char*>(w + at);
    at += words_for(text_bytes);
    r.charsmap_ = r.charsmap_bytes_ ? reinterpret_cast<const uint8_t*>(w + at) : nullptr;
    if (r.offsets_[0] != 0 || r.offsets_[r.pieces_] != text_bytes)
        return bad(role, "piece offsets do not span the text");
    for (size_t i = 0; i < r.pieces_; ++i) {
        if (r.offsets_[i + 1] <= r.offsets_[i]) return bad(role, "an empty piece or offsets out of order");
        const size_t n = r.offsets_[i + 1] - r.offsets_[i];
        if (n > r.longest_) r.longest_ = n;
        const uint8_t k = r.kinds_[i];
        if (k < 1 || k > 6) return bad(role, "unknown piece kind");
        if (!spm && k != static_cast<uint8_t>(vocab::Kind::normal) && k != static_cast<uint8_t>(vocab::Kind::control))
            return bad(role, "a word list holds only normal and special words");
        // User-defined, unused and byte pieces change how SentencePiece encodes; the converter refuses them.
        if (spm && k > static_cast<uint8_t>(vocab::Kind::control))
            return bad(role, "a SentencePiece piece of a kind auspex does not encode (user-defined, unused, byte)");
        uint32_t bits = r.scores_[i];
        float s;
        std::memcpy(&s, &bits, sizeof s);
        if (!(s == s) || s > 3.0e38f || s < -3.0e38f) return bad(role, "a score is not finite");
    }
    // Strictly ascending bytes: every id appears once (n distinct pieces among n ids), so lookups are exact.
    for (size_t i = 0; i < r.pieces_; ++i) {
        if (r.sorted_[i] >= r.pieces_) return bad(role, "sorted index out of range");
        if (i == 0) continue;
        size_t na = 0, nb = 0;
        const char* a = r.piece(r.sorted_[i - 1], &na);
        const char* b = r.piece(r.sorted_[i], &nb);
        if (compare(a, na, b, nb) >= 0) return bad(role, "pieces are repeated or the index is not sorted");
    }
    if (r.charsmap_bytes_ != 0) {
        uint32_t trie_bytes = 0;
        if (r.charsmap_bytes_ < 4) return bad(role, "normalization table shorter than its header");
        std::memcpy(&trie_bytes, r.charsmap_, 4);
        if (trie_bytes % 4 != 0 || trie_bytes == 0 || trie_bytes > r.charsmap_bytes_ - 4)
            return bad(role, "normalization table's trie does not fit it");
    }
    *out = r;
    return Status::ok();
}

const char* Vocabulary::piece(uint32_t id, size_t* length) const {
    *length = offsets_[id + 1] - offsets_[id];
    return text_ + offsets_[id];
}

float Vocabulary::score(uint32_t id) const {
    float s;
    std::memcpy(&s, &scores_[id], sizeof s);
    return s;
}

uint32_t Vocabulary::find(const char* text, size_t length) const {
    if (length == 0 || length > longest_) return format::kNoToken;
    size_t lo = 0, hi = pieces_;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        size_t n = 0;
        const char* p = piece(sorted_[mid], &n);
        const int c = compare(p, n, text, length);
        if (c == 0) return sorted_[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return format::kNoToken;
}

}  // namespace ax
