// Fuzzes the PyTorch checkpoint reader: tools/checkpoint/zip_archive.cpp (ZIP/ZIP64 records),
// tools/checkpoint/pickle_reader.cpp (data.pkl), tools/checkpoint/torch_checkpoint.cpp (storages, strided views,
// element widening), then the converter's path on whatever tensors come out (fuzz_import.h). Bad input must end in a
// ToolError, nothing else.
#include <cstddef>
#include <cstdint>

#include "fuzz_import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ax;
    fuzz::AlignedCopy buffer(data, size);
    tools::TensorMap tensors;
    try {
        tensors = tools::read_torch_checkpoint_bytes(buffer.data(), buffer.size());
    } catch (const tools::ToolError&) {
        return 0;
    }
    fuzz::check_tensors(tensors);
    fuzz::convert_tensors(tensors, size ? data[size - 1] : 0);
    return 0;
}
