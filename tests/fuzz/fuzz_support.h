// Shared by the libFuzzer targets in this folder (each tests/fuzz/fuzz_*.cpp is one target).
//
// Rules every target follows: bad input is reported by the readers as ax::tools::ToolError (tools) or a
// non-ok ax::Status (runtime), and only those are tolerated. Anything else escaping (std::bad_alloc,
// std::out_of_range, ...) reaches libFuzzer as an uncaught exception, i.e. a crash, on purpose.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#include "models/forecaster/forecaster.h"
#include "runtime/model_file.h"

namespace ax::fuzz {

// The fuzzer's bytes copied into a 64-byte aligned block of exactly `size` bytes, so that AddressSanitizer
// flags a read even one byte past the input (its redzone starts right after the block).
class AlignedCopy {
public:
    AlignedCopy(const uint8_t* data, size_t size)
        : data_(static_cast<uint8_t*>(::operator new (size ? size : 1, std::align_val_t{64}))), size_(size) {
        if (size) std::memcpy(data_, data, size);
    }
    ~AlignedCopy() { ::operator delete (data_, std::align_val_t{64}); }
    AlignedCopy(const AlignedCopy&) = delete;
    AlignedCopy& operator=(const AlignedCopy&) = delete;

    const uint8_t* data() const { return data_; }
    uint8_t* data() { return data_; }
    size_t size() const { return size_; }

private:
    uint8_t* data_;
    size_t size_;
};

// Keeps reads the optimizer would otherwise drop.
inline void consume(uint64_t v) {
    static volatile uint64_t sink;
    sink = sink + v;
}

// Touches the first and last byte of every region an opened model hands out (tensor data, int8 scales,
// config records), so that a view pointing outside the buffer is an AddressSanitizer report.
inline void touch_model(const ModelFile& f) {
    for (uint32_t i = 0; i < f.tensor_count(); ++i) {
        const TensorView v = f.tensor(i);
        const uint8_t* p = static_cast<const uint8_t*>(v.data);
        if (v.data_bytes == 0 || p == nullptr) std::abort();  // open() promises non-empty, placed tensors
        consume(p[0] + p[v.data_bytes - 1]);
        if (v.dtype == format::DType::i8) {
            const uint8_t* s = reinterpret_cast<const uint8_t*>(v.scales);
            consume(s[0] + s[uint64_t{v.dims[0]} * 4 - 1]);
        }
        TensorView found;
        if (!f.find(v.role, v.layer, &found)) std::abort();  // a tensor the table lists must be findable
    }
    for (uint32_t i = 0; i < f.config_count(); ++i) {
        uint32_t key = 0, value = 0;
        f.config_record(i, &key, &value);
        consume(key + value);
    }
}

}  // namespace ax::fuzz
