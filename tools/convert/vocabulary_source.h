// Vocabularies as users have them, read for `convert --vocab`: a token list (one token per line, in the id
// order of torchtext's get_itos()), a torchtext Vocab saved with torch.save, or a SentencePiece .model
// (its protobuf read here, field by field). docs/text.md says what each gives and what is refused.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"

namespace ax::tools {

struct VocabSource {
    std::string path;
    format::Tokenizer tokenizer = format::Tokenizer::basic_english;
    std::vector<std::string> pieces;  // in id order
    std::vector<float> scores;        // SentencePiece's; 0 for words
    std::vector<uint8_t> kinds;       // vocab::Kind
    uint32_t flags = 0;               // vocab::Flag
    std::string charsmap;             // SentencePiece's precompiled normalization table
    int64_t unk = -1;                 // the id unknown words get, -1: none
    // Special ids the file itself names (SentencePiece's trainer spec), -1 when it does not.
    int64_t bos = -1, eos = -1, pad = -1;
};

// Reads `path` by its content (a zip: torch.save; a SentencePiece protobuf: ".model"; else a token list).
// `words`: how a word vocabulary splits text (basic_english or words). Throws ToolError naming the file.
VocabSource read_vocabulary(const std::string& path, format::Tokenizer words);
// The same over the file's bytes (`path` names it in messages and tells a ".model").
VocabSource parse_vocabulary(const std::string& path, const std::string& bytes, format::Tokenizer words);

// The most normalized bytes one input byte gives under a precompiled charsmap (each space counted as the
// three bytes of "▁"), at least 3; throws ToolError for a table that is not a valid trie.
uint32_t charsmap_expansion(const std::string& charsmap);

}  // namespace ax::tools
