// The C API's text functions (api/auspex.h): a ModelFile and one Vocabulary built in the handle's bytes,
// the tokenizer (runtime/tokenizer.h) over them. No heap, no exceptions.
#include <cstdint>
#include <new>

#include "api/auspex.h"
#include "runtime/model_file.h"
#include "runtime/tokenizer.h"
#include "runtime/vocabulary.h"

namespace {

using ax::Status;
using ax::StatusCode;
using ax::format::ConfigKey;
using ax::format::Family;
using ax::format::Role;

constexpr uint32_t kMagic = 0x41585458u;  // "AXTX"

struct Handle {
    uint32_t magic;
    Status last;
    ax::ModelFile file;
    ax::Vocabulary vocab;
};

static_assert(sizeof(Handle) <= sizeof(auspex_text), "AUSPEX_TEXT_BYTES is too small for this build");
static_assert(alignof(Handle) <= alignof(auspex_text), "auspex_text is under-aligned");

Handle* handle(const auspex_text* t) {
    if (t == nullptr) return nullptr;
    Handle* h = std::launder(reinterpret_cast<Handle*>(const_cast<unsigned char*>(t->opaque.bytes)));
    return h->magic == kMagic && h->vocab.present() ? h : nullptr;
}

int done(Handle* h, const Status& s) {
    h->last = s;
    return static_cast<int>(s.code());
}

// The embedding rows the vocabulary must match: the config's vocabulary size of that side.
Status side_size(const ax::ModelFile& f, int side, Role* role, uint32_t* size) {
    const bool target = side == AUSPEX_TARGET_VOCABULARY;
    if (side != AUSPEX_SOURCE_VOCABULARY && !target)
        return Status::error(StatusCode::invalid_argument,
                             "side is AUSPEX_SOURCE_VOCABULARY or AUSPEX_TARGET_VOCABULARY");
    ConfigKey key;
    if (f.family() == Family::seq2seq) {
        key = target ? ConfigKey::tgt_vocab : ConfigKey::src_vocab;
    } else if (f.family() == Family::classifier && !target) {
        key = ConfigKey::src_vocab;
    } else {
        return Status::error(StatusCode::invalid_argument, "the model has no vocabulary of that side");
    }
    *role = target ? Role::tgt_vocabulary : Role::src_vocabulary;
    if (!f.config(key, size)) return Status::error(StatusCode::bad_model, "the model states no vocabulary size");
    return Status::ok();
}

}  // namespace

extern "C" {

int auspex_text_open(auspex_text* t, const void* model, size_t size, int side) {
    if (t == nullptr) return AUSPEX_INVALID_ARGUMENT;
    Handle* h = new (t->opaque.bytes) Handle{};
    h->magic = 0;
    if (model == nullptr) return done(h, Status::error(StatusCode::invalid_argument, "model is null"));
    Status s = ax::ModelFile::open(static_cast<const uint8_t*>(model), size, ax::Checksum::verify, &h->file);
    if (!s.is_ok()) return done(h, s);
    Role role{};
    uint32_t rows = 0;
    s = side_size(h->file, side, &role, &rows);
    if (!s.is_ok()) return done(h, s);
    s = ax::Vocabulary::open(h->file, role, rows, &h->vocab);
    if (!s.is_ok()) return done(h, s);
    if (!h->vocab.present())
        return done(
            h, Status::error(StatusCode::invalid_argument, "the model stores no vocabulary (convert it with --vocab)"));
    h->magic = kMagic;
    return done(h, Status::ok());
}

size_t auspex_text_scratch_bytes(const auspex_text* t, size_t max_text_bytes) {
    const Handle* h = handle(t);
    return h == nullptr ? 0 : ax::encode_scratch_bytes(h->vocab, max_text_bytes);
}

size_t auspex_text_max_ids(const auspex_text* t, size_t max_text_bytes) {
    const Handle* h = handle(t);
    return h == nullptr ? 0 : ax::encode_max_ids(h->vocab, max_text_bytes);
}

int auspex_text_encode(auspex_text* t, const char* text, size_t length, void* scratch, size_t scratch_bytes,
                       int32_t* ids, size_t capacity, size_t* count) {
    Handle* h = handle(t);
    if (h == nullptr) return AUSPEX_INVALID_ARGUMENT;
    if (count == nullptr || (ids == nullptr && capacity != 0))
        return done(h, Status::error(StatusCode::invalid_argument, "ids or count is null"));
    return done(h, ax::encode_text(h->vocab, text, length, scratch, scratch_bytes, ids, capacity, count));
}

int auspex_text_decode(auspex_text* t, const int32_t* ids, size_t count, char* out, size_t capacity, size_t* length) {
    Handle* h = handle(t);
    if (h == nullptr) return AUSPEX_INVALID_ARGUMENT;
    if (length == nullptr || (ids == nullptr && count != 0) || (out == nullptr && capacity != 0))
        return done(h, Status::error(StatusCode::invalid_argument, "ids, out or length is null"));
    return done(h, ax::decode_ids(h->vocab, ids, count, out, capacity, length));
}

const char* auspex_text_message(const auspex_text* t) {
    if (t == nullptr) return "auspex_text is null";
    const Handle* h = std::launder(reinterpret_cast<const Handle*>(t->opaque.bytes));
    if (h->magic != kMagic && h->last.is_ok()) return "auspex_text was never opened (call auspex_text_open first)";
    return h->last.message();
}

}  // extern "C"
