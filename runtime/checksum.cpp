#include "runtime/checksum.h"

namespace ax {

uint64_t fnv1a64(const uint8_t* data, size_t size, uint64_t state) {
    constexpr uint64_t kPrime = 0x100000001b3ull;
    for (size_t i = 0; i < size; ++i) {
        state ^= data[i];
        state *= kPrime;
    }
    return state;
}

}  // namespace ax
