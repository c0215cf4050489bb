// A vocabulary stored in a model file (docs/FORMAT.md, "Vocabularies"), read in place: the pieces (words or
// SentencePiece pieces) in id order, their scores and kinds, an index sorted by bytes for lookups, and a
// SentencePiece model's normalization table. One int32 tensor per side (Role::src_vocabulary,
// Role::tgt_vocabulary); runtime/tokenizer.h turns text into ids with it and back.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/format.h"
#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

namespace vocab {
// The tensor's words: a header, then the sections in this order, each padded to whole words.
constexpr size_t kTokenizer = 0;      // format::Tokenizer
constexpr size_t kFlags = 1;          // Flag bits
constexpr size_t kPieces = 2;         // n pieces (ids 0..n-1)
constexpr size_t kTextBytes = 3;      // bytes of all pieces together
constexpr size_t kCharsmapBytes = 4;  // bytes of the SentencePiece precompiled charsmap (0: none)
constexpr size_t kUnkId = 5;          // the id of unknown words, or format::kNoToken
constexpr size_t kExpansion = 6;      // normalized bytes per input byte at most (1..64)
constexpr size_t kReserved = 7;       // 0
constexpr size_t kHeaderWords = 8;
// offsets u32[n + 1], sorted ids u32[n], scores f32[n], kinds u8[n], text u8[text bytes], charsmap u8[...]

enum Flag : uint32_t {
    add_dummy_prefix = 1u << 0,          // SentencePiece: a "▁" before the text
    remove_extra_whitespaces = 1u << 1,  // SentencePiece: leading, trailing and repeated spaces dropped
    escape_whitespaces = 1u << 2,        // SentencePiece: ' ' becomes "▁" (U+2581)
};
constexpr uint32_t kKnownFlags = 7;

// SentencePiece's piece types, as its ModelProto numbers them.
enum class Kind : uint8_t { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };

// Words of a vocabulary tensor with these section sizes.
size_t tensor_words(size_t pieces, size_t text_bytes, size_t charsmap_bytes);
}  // namespace vocab

class Vocabulary {
public:
    // Validates the tensor `role` when the model has it; a model without it gives an empty vocabulary
    // (present() false). `size`: the ids the model's embedding takes (the vocabulary must have exactly as
    // many pieces).
    static Status open(const ModelFile& file, format::Role role, size_t size, Vocabulary* out);

    bool present() const { return words_ != nullptr; }
    format::Tokenizer tokenizer() const { return tokenizer_; }
    uint32_t flags() const { return flags_; }
    size_t size() const { return pieces_; }
    uint32_t unk_id() const { return unk_id_; }
    size_t expansion() const { return expansion_; }
    size_t longest_piece() const { return longest_; }

    // Bytes of piece `id` (not zero-terminated).
    const char* piece(uint32_t id, size_t* length) const;
    float score(uint32_t id) const;
    vocab::Kind kind(uint32_t id) const { return static_cast<vocab::Kind>(kinds_[id]); }
    // The id of the piece equal to `length` bytes at `text`, or format::kNoToken.
    uint32_t find(const char* text, size_t length) const;

    const uint8_t* charsmap() const { return charsmap_; }
    size_t charsmap_bytes() const { return charsmap_bytes_; }

private:
    const uint32_t* words_ = nullptr;
    format::Tokenizer tokenizer_ = format::Tokenizer::words;
    uint32_t flags_ = 0;
    size_t pieces_ = 0;
    uint32_t unk_id_ = format::kNoToken;
    size_t expansion_ = 1;
    size_t longest_ = 0;
    const uint32_t* offsets_ = nullptr;
    const uint32_t* sorted_ = nullptr;
    const uint32_t* scores_ = nullptr;
    const uint8_t* kinds_ = nullptr;
    const char* text_ = nullptr;
    const uint8_t* charsmap_ = nullptr;
    size_t charsmap_bytes_ = 0;
};

}  // namespace ax
