// A bump allocator over memory the caller owns. Planning and allocation are one code path: an Arena
// without memory only counts, so the size it reports is exactly what the same allocations will use.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

class Arena {
public:
    static constexpr size_t kAlignment = 64;  // every block starts a cache line after the arena's base

    // Counting arena: allocations return nullptr and only advance `used()`.
    Arena() = default;
    // Allocating arena over [base, base + capacity). base must be 16-byte aligned.
    Arena(void* base, size_t capacity) : base_(static_cast<uint8_t*>(base)), capacity_(capacity) {}

    template <typename T>
    T* alloc(size_t count) {
        return static_cast<T*>(alloc_bytes(count, sizeof(T)));
    }

    // Records that hold pointers (per-layer weight views, KV cache heads) take T::kArenaRecordBytes each on
    // every target, not sizeof(T), which is smaller where pointers are 32-bit: so the size a 64-bit host
    // computes for a model is exactly the size a 32-bit board needs.
    template <typename T>
    T* alloc_records(size_t count) {
        static_assert(sizeof(T) <= T::kArenaRecordBytes, "raise kArenaRecordBytes");
        static_assert(T::kArenaRecordBytes % alignof(T) == 0, "records must stay aligned");
        return static_cast<T*>(alloc_bytes(count, T::kArenaRecordBytes));
    }

    bool counting() const { return base_ == nullptr; }
    size_t used() const { return used_; }
    // True once an allocation did not fit (or its size overflowed); later allocations keep counting.
    bool exhausted() const { return exhausted_; }

private:
    void* alloc_bytes(size_t count, size_t size);

    uint8_t* base_ = nullptr;
    size_t capacity_ = 0;
    size_t used_ = 0;
    bool exhausted_ = false;
};

}  // namespace ax
