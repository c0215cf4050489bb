// What a file given where an .axm goes actually is, for the first line a user reads when it does not open:
// a PyTorch checkpoint (which `auspex convert` turns into a model), or a model of another format version
// (and which side, the file or auspex, to bring up to date), or an ONNX graph.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace ax::tools {

// The message for `bytes` read from `path` when they are a checkpoint or a model of another format version;
// "" when they are neither (the runtime's own check then names what is wrong).
std::string model_file_mistake(const std::vector<uint8_t>& bytes, const std::string& path);

}  // namespace ax::tools
