// Checkpoint readers: turn a PyTorch `torch.save(state_dict)` archive or a safetensors file into named
// float32 tensors. Written from the formats' specifications; no Python involved.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ax::tools {

struct HostTensor {
    std::vector<int64_t> shape;  // PyTorch order, outermost first; empty for a scalar
    std::vector<float> data;     // contiguous row-major copy, already widened to float32
    std::string source_dtype;    // "float32", "float64", "float16", "bfloat16", ...
    int64_t numel() const {
        int64_t n = 1;
        for (int64_t d : shape) n *= d;
        return n;
    }
};

// Ordered by name so that everything downstream is deterministic.
using TensorMap = std::map<std::string, HostTensor>;

// Which state_dict to take from a torch.save dict holding several, e.g. {"model": ..., "ema": ...,
// "optimizer": ...} (`auspex convert --state-dict-key`).
struct StateDictChoice {
    std::string key;                  // in: take the one under this key; empty: "state_dict",
                                      // "model_state_dict" or "model", else the only one
    std::string taken;                // out: the key taken, when the dict held several
    std::vector<std::string> others;  // out: the other keys holding tensors
};

// Reads a PyTorch zip checkpoint (the format of torch.save since 1.6) holding a state_dict.
TensorMap read_torch_checkpoint(const std::string& path);
TensorMap read_torch_checkpoint_bytes(const uint8_t* data, size_t size, StateDictChoice* choice = nullptr);

// Reads a safetensors file.
TensorMap read_safetensors(const std::string& path);
TensorMap read_safetensors_bytes(const uint8_t* data, size_t size);

// Picks the reader from the file's leading bytes (zip magic or safetensors header), not its extension.
// `choice` applies to torch.save files; a safetensors file with choice->key set is refused.
TensorMap read_checkpoint(const std::string& path, StateDictChoice* choice = nullptr);

// Whole-file read used by all host tools; throws ToolError naming the path on failure.
std::vector<uint8_t> read_file_bytes(const std::string& path);

// Element encodings both readers widen to float32, shared so that they round identically. Both formats
// store elements little-endian. Defined in torch_checkpoint.cpp.
enum class StoredType { F32, F64, F16, BF16, I64, I32, I16, I8, U8, Bool };
size_t stored_type_size(StoredType type);
const char* stored_type_name(StoredType type);  // as HostTensor::source_dtype reports it: "float16", "int64", ...
// Widens the element at `bytes`. Floats round to nearest; an integer without an exact float32 form
// (beyond 2^24 unless it has enough trailing zero bits) throws a ToolError naming `tensor`.
float widen_element(StoredType type, const uint8_t* bytes, const std::string& tensor);

}  // namespace ax::tools
