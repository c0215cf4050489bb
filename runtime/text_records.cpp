#include "runtime/text_records.h"

#include "runtime/format.h"
#include "runtime/utf8_sequence.h"

namespace ax {

namespace {

Status bad(const TextRules& rules, const char* text) {
    return Status::error(StatusCode::bad_model, rules.what).add(": ").add(text);
}

bool in_range(uint32_t key, uint32_t base_key) { return key >= base_key && key - base_key < format::kMaxTextRecords; }

// A text held contiguously (what the user typed).
struct BufferBytes {
    const uint8_t* text;
    uint8_t operator[](size_t i) const { return text[i]; }
};

// A text read in place from its records, one record looked up per 4 bytes (the checks read in order), so
// checking needs no buffer.
class RecordBytes {
public:
    RecordBytes(const ModelFile& f, uint32_t base_key) : f_(f), base_(base_key) {}
    uint8_t operator[](size_t i) const {
        const uint32_t index = static_cast<uint32_t>(i / 4);
        if (index != index_) {
            index_ = index;
            value_ = 0;
            f_.config(static_cast<format::ConfigKey>(base_ + index), &value_);
        }
        return static_cast<uint8_t>(value_ >> (8 * (i % 4)));
    }

private:
    const ModelFile& f_;
    uint32_t base_;
    mutable uint32_t index_ = 0xFFFFFFFFu;
    mutable uint32_t value_ = 0;
};

template <typename Bytes>
Status check_bytes(const Bytes& text, size_t length, const TextRules& rules, TextShape* shape) {
    if (length > rules.max_bytes)
        return bad(rules, "").add(length).add(" bytes, longer than the ").add(rules.max_bytes).add(" allowed");
    TextShape s;
    s.bytes = length;
    s.lines = length > 0 ? 1 : 0;
    s.empty_line = length == 0 || text[0] == '\n' || text[length - 1] == '\n';
    for (size_t i = 0; i < length;) {
        const uint8_t c = text[i];
        if (c == '\n' && rules.lines) {
            ++s.lines;
            s.empty_line = s.empty_line || (i + 1 < length && text[i + 1] == '\n');
            ++i;
            continue;
        }
        if (c == '\n') return bad(rules, "a line break inside the text");
        if (c < 0x20 || c == 0x7F) return bad(rules, "a control character or zero byte inside the text");
        uint8_t sequence[4] = {};
        const size_t left = length - i < 4 ? length - i : 4;
        for (size_t k = 0; k < left; ++k) sequence[k] = text[i + k];
        const size_t n = utf8_sequence_length(sequence, left);
        if (n == 0) return bad(rules, "the text is not well-formed UTF-8");
        if (c == 0xC2 && sequence[1] < 0xA0) return bad(rules, "a control character (U+0080..U+009F) inside the text");
        i += n;
    }
    if (shape != nullptr) *shape = s;
    return Status::ok();
}

}  // namespace

Status check_text(const char* text, size_t length, const TextRules& rules, TextShape* shape) {
    return check_bytes(BufferBytes{reinterpret_cast<const uint8_t*>(text)}, length, rules, shape);
}

Status check_text_records(const ModelFile& f, uint32_t base_key, const TextRules& rules, TextShape* shape) {
    uint32_t records = 0, last_index = 0;
    for (uint32_t i = 0; i < f.config_count(); ++i) {
        uint32_t key = 0, value = 0;
        f.config_record(i, &key, &value);
        if (!in_range(key, base_key)) continue;
        ++records;
        if (key - base_key + 1 > last_index) last_index = key - base_key + 1;
    }
    if (shape != nullptr) *shape = TextShape{};
    if (records == 0) return Status::ok();
    if (records != last_index) return bad(rules, "text records are not consecutive from key ").add(base_key);
    // 4 bytes per record, ending in at most 3 zero bytes of padding.
    const RecordBytes text(f, base_key);
    size_t length = 4 * size_t{records};
    while (length > 0 && text[length - 1] == 0) --length;
    if (4 * size_t{records} - length > 3) return bad(rules, "more zero padding than the last record needs");
    return check_bytes(text, length, rules, shape);
}

size_t read_text_records(const ModelFile& f, uint32_t base_key, char* out, size_t capacity) {
    size_t length = 0;
    for (uint32_t i = 0; i < format::kMaxTextRecords; ++i) {
        uint32_t value = 0;
        if (!f.config(static_cast<format::ConfigKey>(base_key + i), &value)) break;
        for (int b = 0; b < 4; ++b) {
            const char c = static_cast<char>(value >> (8 * b));
            if (c == '\0') break;
            if (out != nullptr && length < capacity) out[length] = c;
            ++length;
        }
    }
    return length;
}

}  // namespace ax
