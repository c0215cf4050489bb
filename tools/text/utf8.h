// UTF-8 checks and encoding shared by the JSON reader and the SVG writer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace ax::tools {

// Length of the well-formed UTF-8 sequence starting at s[i], or 0 when it is not one (stray continuation
// byte, overlong form, surrogate, beyond U+10FFFF, truncated).
size_t utf8_sequence_length(const std::string& s, size_t i);

// Appends code point cp (at most U+10FFFF, not a surrogate) as UTF-8.
void append_utf8(std::string& out, uint32_t cp);

}  // namespace ax::tools
