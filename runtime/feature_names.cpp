#include "runtime/feature_names.h"

#include <cstdint>

#include "runtime/format.h"

namespace ax {

namespace {

Status bad(const char* text) { return Status::error(StatusCode::bad_model, "feature names: ").add(text); }

bool in_text_range(uint32_t key) {
    return key >= format::kFeatureNamesKey && key - format::kFeatureNamesKey < format::kMaxTextRecords;
}

// The 4 text bytes of record `index`, or false when the key is absent.
bool chunk(const ModelFile& f, uint32_t index, uint8_t bytes[4]) {
    uint32_t value = 0;
    if (!f.config(static_cast<format::ConfigKey>(format::kFeatureNamesKey + index), &value)) return false;
    for (int b = 0; b < 4; ++b) bytes[b] = static_cast<uint8_t>(value >> (8 * b));
    return true;
}

// Length of the UTF-8 sequence at the lead byte `c` with continuation bytes in s (shortest form, no
// surrogates, at most U+10FFFF), or 0.
size_t utf8_length(const uint8_t* s, size_t left) {
    const uint8_t c = s[0];
    size_t n = c < 0x80                   ? 1
               : (c >= 0xC2 && c <= 0xDF) ? 2
               : (c >= 0xE0 && c <= 0xEF) ? 3
               : (c >= 0xF0 && c <= 0xF4) ? 4
                                          : 0;
    if (n == 0 || n > left) return 0;
    for (size_t k = 1; k < n; ++k)
        if ((s[k] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && s[1] < 0xA0) return 0;  // overlong
    if (c == 0xED && s[1] > 0x9F) return 0;  // surrogate
    if (c == 0xF0 && s[1] < 0x90) return 0;  // overlong
    if (c == 0xF4 && s[1] > 0x8F) return 0;  // beyond U+10FFFF
    return n;
}

}  // namespace

size_t feature_names_text(const ModelFile& f, char* out, size_t capacity) {
    size_t length = 0;
    uint8_t bytes[4];
    for (uint32_t i = 0; i < format::kMaxTextRecords && chunk(f, i, bytes); ++i) {
        for (int b = 0; b < 4 && bytes[b] != 0; ++b) {
            if (out != nullptr && length < capacity) out[length] = static_cast<char>(bytes[b]);
            ++length;
        }
    }
    return length;
}

Status check_feature_names(const ModelFile& f) {
    uint32_t records = 0, last_index = 0;
    for (uint32_t i = 0; i < f.config_count(); ++i) {
        uint32_t key = 0, value = 0;
        f.config_record(i, &key, &value);
        if (!in_text_range(key)) continue;
        ++records;
        if (key - format::kFeatureNamesKey + 1 > last_index) last_index = key - format::kFeatureNamesKey + 1;
    }
    if (records == 0) return Status::ok();
    if (records != last_index) return bad("text records are not consecutive from key 4096");
    // The text: 4 bytes per record, ending in at most 3 zero bytes of padding.
    uint8_t text[4 * format::kMaxTextRecords];
    for (uint32_t i = 0; i < records; ++i) chunk(f, i, text + 4 * i);
    size_t length = 4 * records;
    while (length > 0 && text[length - 1] == 0) --length;
    if (4 * records - length > 3) return bad("more zero padding than the last record needs");
    size_t names = 1;
    bool empty_name = length == 0 || text[0] == '\n' || text[length - 1] == '\n';
    for (size_t i = 0; i < length;) {
        const uint8_t c = text[i];
        if (c == '\n') {
            ++names;
            empty_name = empty_name || (i + 1 < length && text[i + 1] == '\n');
            ++i;
            continue;
        }
        if (c < 0x20 || c == 0x7F) return bad("a control character or zero byte inside the text");
        const size_t n = utf8_length(text + i, length - i);
        if (n == 0) return bad("the text is not well-formed UTF-8");
        i += n;
    }
    if (empty_name) return bad("an empty name");
    uint32_t n_features = 0;
    if (!f.config(format::ConfigKey::n_features, &n_features))
        return bad("stored by a model family without input features");
    if (names != n_features) return bad("").add(names).add(" names for ").add(n_features).add(" features");
    return Status::ok();
}

}  // namespace ax
