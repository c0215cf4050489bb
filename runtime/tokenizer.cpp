// SentencePiece's rules as its normalizer.cc, unigram_model.cc and bpe_model.cc apply them; basic_english as
// torchtext's data/utils.py writes it (lowercase, then regex replacements in order, then str.split()).
#include "runtime/tokenizer.h"

#include <cstring>

#include "runtime/utf8_sequence.h"

namespace ax {

namespace {

using format::Tokenizer;

constexpr char kSpaceSymbol[] = "\xE2\x96\x81";  // U+2581, SentencePiece's visible space
constexpr size_t kSpaceSymbolBytes = 3;
constexpr char kUnknownSurface[] = " \xE2\x81\x87 ";  // " ⁇ ", what SentencePiece decodes an unknown id to
constexpr float kUnkPenalty = 10.0f;                  // unigram: an unknown character scores min_score - 10

bool is_spm(const Vocabulary& v) { return v.tokenizer() == Tokenizer::unigram || v.tokenizer() == Tokenizer::bpe; }

size_t utf8_length(const uint8_t* s, size_t left) { return utf8_sequence_length(s, left); }

uint32_t decode_point(const uint8_t* s, size_t n) {
    if (n == 1) return s[0];
    uint32_t c = s[0] & (0x7F >> n);
    for (size_t k = 1; k < n; ++k) c = (c << 6) | (s[k] & 0x3F);
    return c;
}

size_t encode_point(uint32_t c, uint8_t* out) {
    if (c < 0x80) {
        out[0] = static_cast<uint8_t>(c);
        return 1;
    }
    if (c < 0x800) {
        out[0] = static_cast<uint8_t>(0xC0 | (c >> 6));
        out[1] = static_cast<uint8_t>(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        out[0] = static_cast<uint8_t>(0xE0 | (c >> 12));
        out[1] = static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F));
        out[2] = static_cast<uint8_t>(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = static_cast<uint8_t>(0xF0 | (c >> 18));
    out[1] = static_cast<uint8_t>(0x80 | ((c >> 12) & 0x3F));
    out[2] = static_cast<uint8_t>(0x80 | ((c >> 6) & 0x3F));
    out[3] = static_cast<uint8_t>(0x80 | (c & 0x3F));
    return 4;
}

Status check_utf8(const char* text, size_t length) {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(text);
    for (size_t i = 0; i < length;) {
        const size_t n = utf8_length(s + i, length - i);
        if (n == 0) return Status::error(StatusCode::bad_input, "text is not well-formed UTF-8 at byte ").add(i);
        i += n;
    }
    return Status::ok();
}

// Python's str.isspace(), which both str.split() and re's \s follow.
bool is_python_space(uint32_t c) {
    return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Python's str.lower() where it keeps the UTF-8 length: ASCII, Latin-1, Latin Extended-A, Greek, Cyrillic,
// full-width Latin (docs/text.md lists what is left as it is).
uint32_t lower(uint32_t c) {
    if (c >= 'A' && c <= 'Z') return c + 32;
    if (c < 0xC0) return c;
    if (c <= 0xDE) return c == 0xD7 ? c : c + 32;
    if (c >= 0x100 && c <= 0x17F) {
        if (c == 0x130 || c == 0x131 || c == 0x138 || c == 0x149 || c == 0x17F) return c;
        if (c == 0x178) return 0xFF;
        const bool odd_upper = (c >= 0x139 && c <= 0x148) || (c >= 0x179 && c <= 0x17E);
        if (odd_upper) return (c & 1) ? c + 1 : c;
        return (c & 1) ? c : c + 1;
    }
    if (c == 0x1C4 || c == 0x1C5) return 0x1C6;  // the DŽ, LJ, NJ digraphs (capital and title case)
    if (c == 0x1C7 || c == 0x1C8) return 0x1C9;
    if (c == 0x1CA || c == 0x1CB) return 0x1CC;
    if (c >= 0x391 && c <= 0x3AB && c != 0x3A2) return c + 32;
    if (c == 0x386) return 0x3AC;
    if (c >= 0x388 && c <= 0x38A) return c + 37;
    if (c == 0x38C) return 0x3CC;
    if (c == 0x38E || c == 0x38F) return c + 63;
    if (c >= 0x410 && c <= 0x42F) return c + 32;
    if (c >= 0x400 && c <= 0x40F) return c + 80;
    if (c >= 0xFF21 && c <= 0xFF3A) return c + 32;  // full-width Latin capitals
    return c;
}

// A letter with case in the scripts lower() covers (what Python's Final_Sigma rule looks at around a sigma).
bool is_cased(uint32_t c) {
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= 0xC0 && c <= 0x24F && c != 0xD7 && c != 0xF7) ||
           (c >= 0x386 && c <= 0x3FF && c != 0x387) || (c >= 0x400 && c <= 0x4FF);
}

Status too_many_ids(size_t capacity) {
    return Status::error(StatusCode::invalid_argument, "the text gives more than ")
        .add(capacity)
        .add(" ids (the capacity given)");
}

// Looks a word up, or gives the unknown id.
Status word_id(const Vocabulary& v, const char* word, size_t n, int32_t* id) {
    uint32_t found = v.find(word, n);
    if (found == format::kNoToken) found = v.unk_id();
    if (found == format::kNoToken) {
        Status s = Status::error(StatusCode::bad_input, "the word '");
        char shown[33];
        const size_t k = n < 32 ? n : 32;
        std::memcpy(shown, word, k);
        shown[k] = '\0';
        return s.add(shown).add("' is not in the vocabulary, which has no unknown-word id");
    }
    *id = static_cast<int32_t>(found);
    return Status::ok();
}

// Splits on Python's whitespace and on the single-character tokens `alone` (each its own word), dropping the
// characters in `drop`.
Status split_words(const Vocabulary& v, const uint8_t* s, size_t length, const char* alone, int32_t* ids,
                   size_t capacity, size_t* count) {
    size_t start = 0, n = 0;
    auto flush = [&](size_t end) -> Status {
        if (end > start) {
            if (n == capacity) return too_many_ids(capacity);
            AX_RETURN_IF_ERROR(word_id(v, reinterpret_cast<const char*>(s + start), end - start, &ids[n]));
            ++n;
        }
        return Status::ok();
    };
    for (size_t i = 0; i < length;) {
        const size_t k = utf8_length(s + i, length - i);
        const uint32_t c = decode_point(s + i, k);
        if (is_python_space(c)) {
            AX_RETURN_IF_ERROR(flush(i));
            start = i + k;
        } else if (c != 0 && c < 0x80 && alone != nullptr && std::strchr(alone, static_cast<int>(c)) != nullptr) {
            AX_RETURN_IF_ERROR(flush(i));
            start = i;
            AX_RETURN_IF_ERROR(flush(i + 1));
            start = i + 1;
        }
        i += k;
    }
    AX_RETURN_IF_ERROR(flush(length));
    *count = n;
    return Status::ok();
}

// torchtext's basic_english: lower(); ' -> " '  "; " removed; . -> " . "; "<br />" -> " "; , ( ) ! ? each a
// word; ; : -> " "; \s+ -> " "; split(). The first three are rewritten into `buf` (at most 4 bytes per input
// byte), "<br />" is removed in place (a removed quote may make one), the rest is splitting.
Status basic_english(const Vocabulary& v, const char* text, size_t length, uint8_t* buf, int32_t* ids, size_t capacity,
                     size_t* count) {
    const uint8_t* s = reinterpret_cast<const uint8_t*>(text);
    size_t n = 0;
    uint32_t previous = 0;
    for (size_t i = 0; i < length;) {
        const size_t k = utf8_length(s + i, length - i);
        const uint32_t original = decode_point(s + i, k);
        uint32_t c = lower(original);
        i += k;
        // Python's two context rules of lower() here: capital sigma ending a word is final sigma, and
        // dotted capital I becomes i with a combining dot above.
        if (original == 0x3A3) {
            const uint32_t next = i < length ? decode_point(s + i, utf8_length(s + i, length - i)) : 0;
            if (is_cased(previous) && !is_cased(next)) c = 0x3C2;
        }
        previous = original;
        if (original == 0x130) {
            n += encode_point('i', buf + n);
            n += encode_point(0x307, buf + n);
        } else if (c == '\'') {
            std::memcpy(buf + n, " '  ", 4);
            n += 4;
        } else if (c == '.') {
            std::memcpy(buf + n, " . ", 3);
            n += 3;
        } else if (c != '"') {
            n += encode_point(c, buf + n);
        }
    }
    static const char kBreak[] = "<br />";
    const size_t break_bytes = sizeof kBreak - 1;
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        if (n - i >= break_bytes && std::memcmp(buf + i, kBreak, break_bytes) == 0) {
            buf[m++] = ' ';
            i += break_bytes;
        } else {
            buf[m++] = buf[i++];
        }
    }
    for (size_t i = 0; i < m; ++i)
        if (buf[i] == ';' || buf[i] == ':') buf[i] = ' ';
    return split_words(v, buf, m, ",()!?", ids, capacity, count);
}

// The SentencePiece normalizer's precompiled charsmap: a Darts double-array trie of input byte strings whose
// leaves index zero-terminated replacements stored after it.
class Charsmap {
public:
    explicit Charsmap(const Vocabulary& v) {
        if (v.charsmap() == nullptr) return;
        uint32_t trie_bytes = 0;
        std::memcpy(&trie_bytes, v.charsmap(), 4);
        units_ = reinterpret_cast<const uint32_t*>(v.charsmap() + 4);
        count_ = trie_bytes / 4;
        strings_ = reinterpret_cast<const char*>(v.charsmap() + 4 + trie_bytes);
        string_bytes_ = v.charsmap_bytes() - 4 - trie_bytes;
    }

    // The replacement of the longest key that prefixes s[0..left): its bytes and the input bytes it replaces;
    // 0 consumed when no key does (or the table points outside itself).
    size_t match(const uint8_t* s, size_t left, const char** out, size_t* out_bytes) const {
        if (count_ == 0) return 0;
        size_t pos = offset(units_[0]);
        size_t longest = 0;
        uint32_t value = 0;
        for (size_t i = 0; i < left; ++i) {
            pos ^= s[i];
            if (pos >= count_) break;
            const uint32_t unit = units_[pos];
            if ((unit & ((1u << 31) | 0xFFu)) != s[i]) break;
            pos ^= offset(unit);
            if (pos >= count_) break;
            if ((unit >> 8) & 1u) {
                longest = i + 1;
                value = units_[pos] & 0x7FFFFFFFu;
            }
        }
        if (longest == 0 || value >= string_bytes_) return 0;
        const void* end = std::memchr(strings_ + value, 0, string_bytes_ - value);
        if (end == nullptr) return 0;
        *out = strings_ + value;
        *out_bytes = static_cast<size_t>(static_cast<const char*>(end) - *out);
        return longest;
    }

private:
    static size_t offset(uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

    const uint32_t* units_ = nullptr;
    size_t count_ = 0;
    const char* strings_ = nullptr;
    size_t string_bytes_ = 0;
};

// The next normalized piece of s: the charsmap's replacement or the character itself.
size_t normalize_prefix(const Charsmap& map, const uint8_t* s, size_t left, const char** out, size_t* out_bytes) {
    const size_t taken = map.match(s, left, out, out_bytes);
    if (taken != 0) return taken;
    *out = reinterpret_cast<const char*>(s);
    *out_bytes = utf8_length(s, left);
    return *out_bytes;
}

// SentencePiece's Normalizer::Normalize without user-defined symbols (the converter refuses them) and with the
// whitespace as prefix: into buf[0..*n), at most `cap` bytes.
Status normalize(const Vocabulary& v, const char* text, size_t length, char* buf, size_t cap, size_t* n) {
    const Charsmap map(v);
    const uint32_t flags = v.flags();
    const bool remove_extra = (flags & vocab::remove_extra_whitespaces) != 0;
    const bool escape = (flags & vocab::escape_whitespaces) != 0;
    const uint8_t* s = reinterpret_cast<const uint8_t*>(text);
    size_t left = length, out = 0;
    auto put = [&](const char* bytes, size_t k) -> bool {
        if (cap - out < k) return false;
        std::memcpy(buf + out, bytes, k);
        out += k;
        return true;
    };
    const Status overflow = Status::error(StatusCode::bad_model, "vocabulary: normalized text exceeds the expansion");
    *n = 0;
    const char* piece = nullptr;
    size_t piece_bytes = 0;
    if (remove_extra) {
        while (left > 0) {
            const size_t taken = normalize_prefix(map, s, left, &piece, &piece_bytes);
            if (!(piece_bytes == 1 && piece[0] == ' ')) break;
            s += taken;
            left -= taken;
        }
    }
    if (left == 0) return Status::ok();
    if ((flags & vocab::add_dummy_prefix) != 0) {
        if (!(escape ? put(kSpaceSymbol, kSpaceSymbolBytes) : put(" ", 1))) return overflow;
    }
    bool prev_space = remove_extra;
    while (left > 0) {
        const size_t taken = normalize_prefix(map, s, left, &piece, &piece_bytes);
        while (prev_space && piece_bytes > 0 && piece[0] == ' ') ++piece, --piece_bytes;
        if (piece_bytes > 0) {
            for (size_t k = 0; k < piece_bytes; ++k) {
                const bool ok = escape && piece[k] == ' ' ? put(kSpaceSymbol, kSpaceSymbolBytes) : put(piece + k, 1);
                if (!ok) return overflow;
            }
            prev_space = piece[piece_bytes - 1] == ' ';
        }
        s += taken;
        left -= taken;
        if (!remove_extra) prev_space = false;
    }
    if (remove_extra) {
        const char* space = escape ? kSpaceSymbol : " ";
        const size_t space_bytes = escape ? kSpaceSymbolBytes : 1;
        while (out >= space_bytes && std::memcmp(buf + out - space_bytes, space, space_bytes) == 0) out -= space_bytes;
    }
    *n = out;
    return Status::ok();
}

// A character's bytes in normalized text. The input was checked, but a damaged normalization table could
// still put a stray byte there: it counts as one character, so the loops always advance.
size_t char_bytes_at(const uint8_t* s, size_t left) {
    const size_t n = utf8_length(s, left);
    return n == 0 ? 1 : n;
}

// Pieces text may match (Vocabulary::open leaves a SentencePiece vocabulary only normal, unknown and control
// ones).
bool matchable(const Vocabulary& v, uint32_t id) { return v.kind(id) == vocab::Kind::normal; }

float min_normal_score(const Vocabulary& v) {
    float lowest = 0.0f;
    bool any = false;
    for (uint32_t id = 0; id < v.size(); ++id)
        if (v.kind(id) == vocab::Kind::normal && (!any || v.score(id) < lowest)) lowest = v.score(id), any = true;
    return lowest;
}

struct Node {
    float score;
    int32_t start;  // -1: not reached
    int32_t id;
};

// Unigram: the best-scoring segmentation (Viterbi over character boundaries; ties keep the first found).
Status unigram(const Vocabulary& v, const char* s, size_t n, Node* nodes, int32_t* ids, size_t capacity,
               size_t* count) {
    const float unk_score = min_normal_score(v) - kUnkPenalty;
    for (size_t i = 0; i <= n; ++i) nodes[i] = Node{0.0f, -1, -1};
    nodes[0].start = 0;
    const uint8_t* u = reinterpret_cast<const uint8_t*>(s);
    for (size_t start = 0; start < n;) {
        const float here = nodes[start].score;
        const size_t char_bytes = char_bytes_at(u + start, n - start);
        bool single = false;
        const size_t longest = n - start < v.longest_piece() ? n - start : v.longest_piece();
        for (size_t len = 1; len <= longest; ++len) {
            const uint32_t id = v.find(s + start, len);
            if (id == format::kNoToken || !matchable(v, id)) continue;
            const float score = v.score(id);
            Node& end = nodes[start + len];
            if (end.start == -1 || score + here > end.score)
                end = Node{score + here, static_cast<int32_t>(start), static_cast<int32_t>(id)};
            if (len == char_bytes) single = true;
        }
        if (!single) {
            Node& end = nodes[start + char_bytes];
            if (end.start == -1 || unk_score + here > end.score)
                end = Node{unk_score + here, static_cast<int32_t>(start), static_cast<int32_t>(v.unk_id())};
        }
        start += char_bytes;
    }
    size_t k = 0;
    for (size_t end = n; end > 0; end = static_cast<size_t>(nodes[end].start)) {
        if (k == capacity) return too_many_ids(capacity);
        ids[k++] = nodes[end].id;
    }
    for (size_t i = 0; i < k / 2; ++i) {
        const int32_t t = ids[i];
        ids[i] = ids[k - 1 - i];
        ids[k - 1 - i] = t;
    }
    *count = k;
    return Status::ok();
}

struct Symbol {
    uint32_t start, bytes;
};
static_assert(sizeof(Node) == kUnigramNodeBytes && sizeof(Symbol) == kBpeSymbolBytes, "tokenizer.h's sizes");

// BPE: characters merged pairwise, the best-scoring pair whose join is a piece first (the leftmost on a tie).
Status bpe(const Vocabulary& v, const char* s, size_t n, Symbol* symbols, int32_t* ids, size_t capacity,
           size_t* count) {
    const uint8_t* u = reinterpret_cast<const uint8_t*>(s);
    size_t m = 0;
    for (size_t i = 0; i < n;) {
        const size_t k = char_bytes_at(u + i, n - i);
        symbols[m++] = Symbol{static_cast<uint32_t>(i), static_cast<uint32_t>(k)};
        i += k;
    }
    for (;;) {
        size_t best = m;
        float best_score = 0.0f;
        for (size_t i = 0; i + 1 < m; ++i) {
            const uint32_t id = v.find(s + symbols[i].start, symbols[i].bytes + symbols[i + 1].bytes);
            if (id == format::kNoToken || !matchable(v, id)) continue;
            if (best == m || v.score(id) > best_score) best = i, best_score = v.score(id);
        }
        if (best == m) break;
        symbols[best].bytes += symbols[best + 1].bytes;
        for (size_t i = best + 1; i + 1 < m; ++i) symbols[i] = symbols[i + 1];
        --m;
    }
    if (m > capacity) return too_many_ids(capacity);
    for (size_t i = 0; i < m; ++i) {
        const uint32_t id = v.find(s + symbols[i].start, symbols[i].bytes);
        ids[i] = static_cast<int32_t>(id != format::kNoToken && matchable(v, id) ? id : v.unk_id());
    }
    *count = m;
    return Status::ok();
}

// SentencePiece reports a run of unknown characters as one unknown piece.
size_t merge_unknowns(const Vocabulary& v, int32_t* ids, size_t count) {
    size_t out = 0;
    for (size_t i = 0; i < count; ++i) {
        const bool unk = static_cast<uint32_t>(ids[i]) == v.unk_id();
        if (unk && out > 0 && static_cast<uint32_t>(ids[out - 1]) == v.unk_id()) continue;
        ids[out++] = ids[i];
    }
    return out;
}

size_t normalized_capacity(const Vocabulary& v, size_t max_text_bytes) {
    return v.expansion() * max_text_bytes + kSpaceSymbolBytes;
}

size_t align8(size_t n) { return (n + 7) & ~size_t{7}; }

}  // namespace

size_t encode_scratch_bytes(const Vocabulary& v, size_t max_text_bytes) {
    switch (v.tokenizer()) {
        case Tokenizer::words:
            return 0;
        case Tokenizer::basic_english:
            return 4 * max_text_bytes;
        case Tokenizer::unigram:
            return align8(normalized_capacity(v, max_text_bytes)) +
                   sizeof(Node) * (normalized_capacity(v, max_text_bytes) + 1);
        case Tokenizer::bpe:
            return align8(normalized_capacity(v, max_text_bytes)) +
                   sizeof(Symbol) * normalized_capacity(v, max_text_bytes);
    }
    return 0;
}

size_t encode_max_ids(const Vocabulary& v, size_t max_text_bytes) {
    // A word is at least one byte; basic_english makes each byte at most one word; a piece at least a byte.
    return is_spm(v) ? normalized_capacity(v, max_text_bytes) : max_text_bytes;
}

Status encode_text(const Vocabulary& v, const char* text, size_t length, void* scratch, size_t scratch_bytes,
                   int32_t* ids, size_t capacity, size_t* count) {
    *count = 0;
    if (!v.present()) return Status::error(StatusCode::invalid_argument, "the model stores no vocabulary");
    if (text == nullptr && length != 0) return Status::error(StatusCode::invalid_argument, "text is null");
    AX_RETURN_IF_ERROR(check_utf8(text, length));
    const size_t need = encode_scratch_bytes(v, length);
    if (scratch_bytes < need || (need != 0 && scratch == nullptr))
        return Status::error(StatusCode::arena_too_small, "text scratch of ")
            .add(scratch_bytes)
            .add(" bytes, the text needs ")
            .add(need);
    uint8_t* mem = static_cast<uint8_t*>(scratch);
    switch (v.tokenizer()) {
        case Tokenizer::words:
            return split_words(v, reinterpret_cast<const uint8_t*>(text), length, nullptr, ids, capacity, count);
        case Tokenizer::basic_english:
            return basic_english(v, text, length, mem, ids, capacity, count);
        case Tokenizer::unigram:
        case Tokenizer::bpe: {
            const size_t cap = normalized_capacity(v, length);
            char* buf = reinterpret_cast<char*>(mem);
            size_t n = 0;
            AX_RETURN_IF_ERROR(normalize(v, text, length, buf, cap, &n));
            void* rest = mem + align8(cap);
            if (v.tokenizer() == Tokenizer::unigram) {
                AX_RETURN_IF_ERROR(unigram(v, buf, n, static_cast<Node*>(rest), ids, capacity, count));
            } else {
                AX_RETURN_IF_ERROR(bpe(v, buf, n, static_cast<Symbol*>(rest), ids, capacity, count));
            }
            *count = merge_unknowns(v, ids, *count);
            return Status::ok();
        }
    }
    return Status::error(StatusCode::unsupported, "unknown tokenizer");
}

Status decode_ids(const Vocabulary& v, const int32_t* ids, size_t count, char* out, size_t capacity, size_t* length) {
    *length = 0;
    if (!v.present()) return Status::error(StatusCode::invalid_argument, "the model stores no vocabulary");
    size_t n = 0;
    auto put = [&](const char* bytes, size_t k) {
        for (size_t i = 0; i < k; ++i, ++n)
            if (n < capacity) out[n] = bytes[i];
    };
    const bool spm = is_spm(v);
    bool first = true;
    for (size_t i = 0; i < count; ++i) {
        if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= v.size())
            return Status::error(StatusCode::invalid_argument, "id ").add(ids[i]).add(" is outside the vocabulary");
        const uint32_t id = static_cast<uint32_t>(ids[i]);
        const vocab::Kind kind = v.kind(id);
        if (kind == vocab::Kind::control) continue;
        size_t bytes = 0;
        const char* p = v.piece(id, &bytes);
        if (!spm) {
            if (!first) put(" ", 1);
            put(p, bytes);
        } else if (kind == vocab::Kind::unknown) {
            put(kUnknownSurface, sizeof kUnknownSurface - 1);
        } else {
            for (size_t k = 0; k < bytes;) {
                if (bytes - k >= kSpaceSymbolBytes && std::memcmp(p + k, kSpaceSymbol, kSpaceSymbolBytes) == 0) {
                    // The dummy prefix's space is not part of the text.
                    if (!(first && k == 0 && (v.flags() & vocab::add_dummy_prefix) != 0)) put(" ", 1);
                    k += kSpaceSymbolBytes;
                } else {
                    put(p + k, 1);
                    ++k;
                }
            }
        }
        first = false;
    }
    *length = n;
    if (n > capacity)
        return Status::error(StatusCode::invalid_argument, "the text takes ")
            .add(n)
            .add(" bytes, more than the ")
            .add(capacity)
            .add(" given");
    return Status::ok();
}

}  // namespace ax
