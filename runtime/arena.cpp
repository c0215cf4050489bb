#include "runtime/arena.h"

#include "runtime/bytes.h"

namespace ax {

void* Arena::alloc_bytes(size_t count, size_t size) {
    uint64_t bytes = 0;
    uint64_t start = (used_ + kAlignment - 1) / kAlignment * kAlignment;
    uint64_t end = 0;
    if (mul_overflows(count, size, &bytes) || add_overflows(start, bytes, &end) || end > SIZE_MAX) {
        exhausted_ = true;
        return nullptr;
    }
    used_ = static_cast<size_t>(end);
    if (counting()) return nullptr;
    if (end > capacity_) {
        exhausted_ = true;
        return nullptr;
    }
    return base_ + start;
}

}  // namespace ax
