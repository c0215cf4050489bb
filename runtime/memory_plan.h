// A session's memory planned by lifetimes. Every buffer a session needs is requested with the phases during
// which it is live; buffers whose phases never overlap may share bytes. On a microcontroller the arena is
// most of the RAM, so the figure a model reports is the peak of what is live together, not a sum.
//
// Planning and placing are one code path, as with Arena: a family describes its buffers in one function,
// called once on a planning MemoryPlan (requests are recorded, no memory) and once on a placing MemoryPlan
// built from the solved plan over real memory (the same requests, in the same order, get their pointers).
// Offsets depend only on the requested byte counts, never on pointer width (records count
// T::kArenaRecordBytes each), so a 64-bit host and a 32-bit board plan the same layout to the byte.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

// The phases of one session call, in order. A buffer live in [first, last] is untouched outside it.
enum class Phase : uint8_t {
    encode = 0,   // inputs to the encoder output (embeddings, encoder layers, final norm)
    prepare = 1,  // encoder output -> every decoder layer's cross-attention keys and values
    decode = 2,   // decoder layers, generator, outputs
};

class MemoryPlan {
public:
    static constexpr size_t kAlignment = 64;  // every buffer starts a cache line after the arena's base
    static constexpr size_t kMaxBuffers = 48;

    // A planning plan: requests are recorded and return nullptr. `workers`: the most tasks a session's
    // parallel-for hook runs at once (runtime/parallel.h); per-worker scratch is planned for that many.
    MemoryPlan() = default;
    explicit MemoryPlan(size_t workers) : workers_(workers > 1 ? workers : 1) {}
    // A placing plan over [base, base + capacity): the requests of `solved` in the same order get base +
    // their offsets. base must be 16-byte aligned; capacity at least solved.total_bytes().
    MemoryPlan(const MemoryPlan& solved, void* base, size_t capacity);

    // `name` (a string literal) labels the buffer in `auspex inspect`. Counts are 64-bit so that a product
    // of a model's sizes (rows x d_model x layers) cannot wrap on a 32-bit target: form them as
    // uint64_t{a} * b; one that does not fit the target's memory fails the plan.
    template <typename T>
    T* alloc(const char* name, uint64_t count, Phase first, Phase last) {
        return static_cast<T*>(request(name, count, sizeof(T), first, last));
    }
    // Records holding pointers (live for the whole call) take T::kArenaRecordBytes each on every target (see
    // transformer_layer.h).
    template <typename T>
    T* alloc_records(const char* name, uint64_t count) {
        static_assert(sizeof(T) <= T::kArenaRecordBytes, "raise kArenaRecordBytes");
        static_assert(T::kArenaRecordBytes % alignof(T) == 0, "records must stay aligned");
        return static_cast<T*>(request(name, count, T::kArenaRecordBytes, Phase::encode, Phase::decode));
    }
    // Live for the whole call (session state kept between calls or written before encoding).
    template <typename T>
    T* alloc_session(const char* name, uint64_t count) {
        return alloc<T>(name, count, Phase::encode, Phase::decode);
    }

    // Planning only: assigns offsets (largest buffer first, each at the lowest offset free during its
    // lifetime). False when a size overflowed or there were more than kMaxBuffers requests.
    bool solve();
    // The exact arena the plan needs (0 when it failed).
    size_t total_bytes() const { return failed_ ? 0 : total_; }
    // True once a request overflowed, exceeded kMaxBuffers, or (placing) did not match the planned one.
    bool failed() const { return failed_; }
    size_t buffer_count() const { return count_; }
    size_t workers() const { return workers_; }

    struct Buffer {
        const char* name;
        size_t bytes;
        size_t offset;
        Phase first;
        Phase last;
    };
    const Buffer& buffer(size_t i) const { return buffers_[i]; }

private:
    void* request(const char* name, uint64_t count, size_t size, Phase first, Phase last);

    Buffer buffers_[kMaxBuffers] = {};
    size_t count_ = 0;
    size_t total_ = 0;
    bool failed_ = false;
    bool solved_ = false;
    size_t workers_ = 1;
    // Placing only: the planned buffers and the memory.
    const MemoryPlan* planned_ = nullptr;
    uint8_t* base_ = nullptr;
};

}  // namespace ax
