// Text to token ids and back with a stored vocabulary (runtime/vocabulary.h), giving the ids the user's Python
// gives: torchtext's basic_english or whitespace-split words looked up in a torchtext Vocab, or SentencePiece's
// encoders (unigram Viterbi, BPE merges by score) over SentencePiece's normalization. No heap: the caller
// passes scratch memory of encode_scratch_bytes(), an exact figure for the longest text it declares.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/status.h"
#include "runtime/vocabulary.h"

namespace ax {

// What the scratch holds per byte of normalized text for SentencePiece: a unigram lattice node, a BPE symbol
// (the normalized text itself comes first, rounded up to 8 bytes).
constexpr size_t kUnigramNodeBytes = 12;
constexpr size_t kBpeSymbolBytes = 8;

// Scratch bytes encode_text needs for texts up to max_text_bytes (0 for a plain word list).
size_t encode_scratch_bytes(const Vocabulary& v, size_t max_text_bytes);
// Ids encode_text can give for a text of max_text_bytes at most (the capacity to pass it).
size_t encode_max_ids(const Vocabulary& v, size_t max_text_bytes);

// Encodes `length` bytes of UTF-8 `text` into ids[0..*count). Words outside the vocabulary become its unknown
// id; without one they are an error naming the word. Errors: text not UTF-8 (bad_input), scratch smaller
// than encode_scratch_bytes(v, length) (arena_too_small), more ids than `capacity` (invalid_argument).
Status encode_text(const Vocabulary& v, const char* text, size_t length, void* scratch, size_t scratch_bytes,
                   int32_t* ids, size_t capacity, size_t* count);

// Writes the text of ids[0..count) to out[0..*length) (no terminating zero): words joined by spaces,
// SentencePiece pieces joined with "▁" turned back into spaces. Special (control) ids are left out, an
// unknown id is its word ("<unk>") or SentencePiece's " ⁇ ". *length is the full length even when it
// exceeds `capacity` (then invalid_argument and nothing beyond capacity is written).
Status decode_ids(const Vocabulary& v, const int32_t* ids, size_t count, char* out, size_t capacity, size_t* length);

}  // namespace ax
