// FNV-1a 64 over a byte range. Each step (xor a byte, multiply by an odd prime) is a bijection of the
// state, so any change confined to one byte always changes the result; cheap enough for a microcontroller.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

constexpr uint64_t kFnvOffsetBasis = 0xcbf29ce484222325ull;
uint64_t fnv1a64(const uint8_t* data, size_t size, uint64_t state = kFnvOffsetBasis);

}  // namespace ax
