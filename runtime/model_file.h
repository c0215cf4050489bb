// Opens a .axm model held in memory (flash, a mapped file, a buffer) and validates every field and offset
// before anything uses it. Tensor data is referenced in place, never copied.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/config_records.h"
#include "runtime/format.h"
#include "runtime/status.h"

namespace ax {

struct TensorView {
    format::Role role{};
    uint16_t layer = format::kNoLayer;
    format::DType dtype = format::DType::f32;
    uint32_t rank = 0;
    uint32_t dims[format::kMaxRank] = {};
    uint64_t numel = 0;
    const void* data = nullptr;
    uint64_t data_bytes = 0;
    const float* scales = nullptr;           // int8: one per row (dims[0]); otherwise nullptr
    const uint16_t* group_scales = nullptr;  // int4: IEEE half, [dims[0], dims[1] / 32]; otherwise nullptr
    uint64_t data_offset = 0;                // file offset, for inspect
    float input_absmax = 0.0f;               // calibrated max |input| of a weight matrix; 0 when not calibrated
};

enum class Checksum { verify, skip };

// A model file read in place: its config records (the ConfigRecords it is) and its tensors.
class ModelFile : public ConfigRecords {
public:
    // `data` must stay valid while the model is used and be 16-byte aligned. `size` may exceed the file
    // (a flash partition); the header's file_size says where the model ends. Checksum::skip is for firmware
    // whose flash image was verified another way; every structural check still runs.
    static Status open(const uint8_t* data, size_t size, Checksum checksum, ModelFile* out);

    format::Family family() const { return family_; }
    uint64_t file_size() const { return file_size_; }
    uint32_t tensor_count() const { return tensor_count_; }
    TensorView tensor(uint32_t index) const;
    // False when the model has no tensor with this role and layer.
    bool find(format::Role role, uint16_t layer, TensorView* out) const;

private:
    const uint8_t* data_ = nullptr;
    uint64_t file_size_ = 0;
    format::Family family_{};
    const uint8_t* tensors_ = nullptr;
    uint32_t tensor_count_ = 0;
};

}  // namespace ax
