// `convert --vocab` (a classifier's), `--src-vocab` and `--tgt-vocab` (a translator's): the vocabularies read
// (tools/convert/vocabulary_source.h), checked against the model they go with and stored in it as
// Role::src_vocabulary / Role::tgt_vocabulary (runtime/vocabulary.h).
#pragma once
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/vocabulary_source.h"

namespace ax::tools {

struct VocabularyOptions {
    std::string src;      // the source side's file (a classifier's input), "" for none
    std::string tgt;      // a translator's target side
    bool shared = false;  // --vocab given to a translator: src is both sides' vocabulary
    format::Tokenizer words = format::Tokenizer::basic_english;  // how a word vocabulary splits text
};

// Checks each vocabulary against its embedding (one piece per row) and the config's special ids (a <pad>,
// <bos>, <eos> or <unk> the vocabulary names must be the id the config gives), marks the config's special
// ids as such (decoding leaves them out) and adds the tensors. Throws ToolError saying what differs.
void add_vocabularies(AxmModel& model, const VocabularyOptions& options, std::vector<std::string>* notes);

// The int32 words of a vocabulary tensor (docs/FORMAT.md, "Vocabularies").
std::vector<uint32_t> vocabulary_words(const VocabSource& v);

}  // namespace ax::tools
