// The one rule for a well-formed UTF-8 sequence, shared by the text records' checks and the tokenizers.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

// Length of the UTF-8 sequence at the lead byte s[0] with its continuation bytes in s[1..left) (shortest
// form, no surrogates, at most U+10FFFF), or 0 when it is not well-formed.
inline size_t utf8_sequence_length(const uint8_t* s, size_t left) {
    const uint8_t c = s[0];
    const size_t n = c < 0x80                   ? 1
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

}  // namespace ax
