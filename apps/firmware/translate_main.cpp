// A translator on a bare-metal Cortex-M board, text in and text out through the C++ API: the model and its
// vocabularies are one const array in flash (translator_model.h, made by `auspex header`), the vocabularies
// are read in place, the tokenizer's scratch and the session's arena are static buffers of exact sizes, and
// nothing is allocated. Prints the translation of TRANSLATE_SENTENCE on one line, exactly as
// `auspex translate --text` does on the host; diagnostics go to stderr, errors with a non-zero exit status.
#include <cstdint>
#include <cstdio>
#include <cstring>

#define TRANSLATOR_MODEL_SECTION __attribute__((section(".axm_model")))
#include "models/seq2seq/seq2seq.h"
#include "ports/ports.h"
#include "runtime/tokenizer.h"
#include "translator_model.h"  // generated: translator_model[], TRANSLATOR_MODEL_ARENA_BYTES, ...

#ifndef TRANSLATE_SENTENCE
#define TRANSLATE_SENTENCE "w05 w09 w13 w07"
#endif

static constexpr size_t kMaxText = 64;  // bytes of the longest sentence this firmware takes
static constexpr size_t kMaxIds = TRANSLATOR_MODEL_MAX_SRC_LEN;

alignas(64) static uint8_t arena[TRANSLATOR_MODEL_ARENA_BYTES];
// The tokenizer's exact scratch for the longest sentence, from the header's formula (runtime/tokenizer.h);
// + 1: a word vocabulary needs none, and an array cannot be empty.
alignas(8) static uint8_t text_scratch[TRANSLATOR_MODEL_SRC_TEXT_SCRATCH_BYTES(kMaxText) + 1];
static int32_t src[kMaxIds];
static int32_t out[TRANSLATOR_MODEL_MAX_TGT_LEN];
static char line[256];
static ax::ModelFile file;
static ax::Seq2Seq model;
static ax::Seq2SeqSession session;

static ax::Status translate(const char* sentence, size_t* line_length) {
    ax::Status s = ax::ModelFile::open(translator_model, sizeof translator_model, ax::Checksum::verify, &file);
    if (s) s = ax::Seq2Seq::open(file, &model);
    if (!s) return s;
    const ax::Seq2SeqConfig& c = model.config();
    const size_t length = std::strlen(sentence);
    if (length > kMaxText || ax::encode_scratch_bytes(model.src_vocabulary(), length) > sizeof text_scratch)
        return ax::Status::error(ax::StatusCode::invalid_argument, "sentence longer than this firmware takes");
    // The tutorial's text_transform: <bos>, the sentence's ids, <eos>.
    size_t n = 0;
    src[0] = static_cast<int32_t>(c.bos_id);
    s = ax::encode_text(model.src_vocabulary(), sentence, length, text_scratch, sizeof text_scratch, src + 1,
                        kMaxIds - 2, &n);
    if (!s) return s;
    src[n + 1] = static_cast<int32_t>(c.eos_id);
    const size_t src_len = n + 2;
    s = session.init(model, ax::best_kernels(), arena, sizeof arena, TRANSLATOR_MODEL_MAX_SRC_LEN,
                     TRANSLATOR_MODEL_MAX_TGT_LEN);
    if (!s) return s;
    const size_t max_len = src_len + 4 < TRANSLATOR_MODEL_MAX_TGT_LEN ? src_len + 4 : TRANSLATOR_MODEL_MAX_TGT_LEN;
    size_t out_len = 0;
    s = session.translate(src, src_len, c.bos_id, c.eos_id, max_len, out, &out_len);
    if (!s) return s;
    std::fprintf(stderr, "auspex: %lu source ids, %lu generated, arena %lu bytes, text scratch %lu bytes\n",
                 static_cast<unsigned long>(src_len), static_cast<unsigned long>(out_len),
                 static_cast<unsigned long>(sizeof arena),
                 static_cast<unsigned long>(ax::encode_scratch_bytes(model.src_vocabulary(), length)));
    return ax::decode_ids(model.tgt_vocabulary(), out, out_len, line, sizeof line - 1, line_length);
}

int main() {
    size_t length = 0;
    const ax::Status s = translate(TRANSLATE_SENTENCE, &length);
    if (!s) {
        std::fprintf(stderr, "translate failed: %s\n", s.message());
        return 1;
    }
    line[length] = '\0';
    std::printf("%s\n", line);
    return 0;
}
