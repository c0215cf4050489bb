// Texts a model stores in config records (docs/FORMAT.md, "Text records"): the feature names, the model's
// name, the converter's version. One text sits in consecutive keys from its base key, 4 bytes per record,
// the last record zero-padded. This file holds the rules every such text obeys; each text adds its own.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

struct TextRules {
    const char* what;  // the text's name, first in every message ("model name: ...")
    size_t max_bytes;  // at most 4 * format::kMaxTextRecords
    bool lines;        // '\n' separates lines (feature names); otherwise the text is one line
};

// What a valid text looks like.
struct TextShape {
    size_t bytes = 0;         // 0: the model stores no such text
    size_t lines = 0;         // '\n'-separated lines (1 for a one-line text), 0 when absent
    bool empty_line = false;  // some line is empty
};

// Checks `length` bytes of text: well-formed UTF-8 (shortest forms, no surrogates, at most U+10FFFF) without
// zero bytes or control characters (C0, DEL, C1; '\n' allowed only between lines), at most rules.max_bytes.
// The converter checks what the user gives with the same rules the runtime applies to a file.
Status check_text(const char* text, size_t length, const TextRules& rules, TextShape* shape);

// Checks the text stored from `base_key`: absent (every key base..base+kMaxTextRecords-1 absent) is fine;
// present, the keys are consecutive from base_key, the padding is at most 3 zero bytes and the bytes obey
// check_text's rules.
Status check_text_records(const ModelFile& f, uint32_t base_key, const TextRules& rules, TextShape* shape);

// Bytes of the text stored from `base_key` (0 when absent); copies min(length, capacity) of them to `out`
// when it is not null (no terminating zero). Call on a model whose records passed check_text_records.
size_t read_text_records(const ModelFile& f, uint32_t base_key, char* out, size_t capacity);

}  // namespace ax
