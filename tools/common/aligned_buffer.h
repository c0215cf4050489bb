// Heap memory on a 64-byte boundary for models and arenas on the host (the runtime needs 16).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <vector>

namespace ax::tools {

class AlignedBuffer {
public:
    AlignedBuffer() = default;
    explicit AlignedBuffer(size_t size) : data_(allocate(size)), size_(size) {
        if (size) std::memset(data_.get(), 0, size);
    }
    explicit AlignedBuffer(const std::vector<uint8_t>& bytes) : AlignedBuffer(bytes.size()) {
        if (!bytes.empty()) std::memcpy(data_.get(), bytes.data(), bytes.size());
    }
    uint8_t* data() { return data_.get(); }
    const uint8_t* data() const { return data_.get(); }
    size_t size() const { return size_; }

private:
    struct Free {
        void operator()(uint8_t* p) const { ::operator delete (p, std::align_val_t{64}); }
    };
    static uint8_t* allocate(size_t size) {
        return static_cast<uint8_t*>(::operator new (size ? size : 1, std::align_val_t{64}));
    }
    std::unique_ptr<uint8_t, Free> data_;
    size_t size_ = 0;
};

}  // namespace ax::tools
