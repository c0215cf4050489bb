// Fuzzes the safetensors reader (tools/checkpoint/safetensors_reader.cpp: header length, its JSON, offsets, dtypes,
// element widening), then the converter's path on whatever tensors come out (fuzz_import.h). Bad input must
// end in a ToolError, nothing else.
#include <cstddef>
#include <cstdint>

#include "fuzz_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ax;
    fuzz::AlignedCopy buffer(data, size);
    tools::TensorMap tensors;
    try {
        tensors = tools::read_safetensors_bytes(buffer.data(), buffer.size());
    } catch (const tools::ToolError&) {
        return 0;
    }
    fuzz::check_tensors(tensors);
    fuzz::convert_tensors(tensors, size ? data[size - 1] : 0);
    return 0;
}
