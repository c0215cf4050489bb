#include "tools/host/model_file_kind.h"

#include <cstring>

#include "runtime/format.h"
#include "tools/onnx/onnx_reader.h"

namespace ax::tools {

namespace {

bool starts_with(const std::vector<uint8_t>& bytes, const char* prefix, size_t n) {
    return bytes.size() >= n && std::memcmp(bytes.data(), prefix, n) == 0;
}

// torch.save writes a zip archive (since PyTorch 1.6) or, with _use_new_zipfile_serialization=False, a
// pickle stream (protocol 2..5 starts with 0x80 and the protocol number); safetensors starts with the
// little-endian length of its JSON header, then '{'.
const char* checkpoint_kind(const std::vector<uint8_t>& bytes) {
    if (starts_with(bytes, "PK\x03\x04", 4)) return "a PyTorch checkpoint (torch.save)";
    if (bytes.size() >= 2 && bytes[0] == 0x80 && bytes[1] >= 2 && bytes[1] <= 5)
        return "a PyTorch checkpoint (torch.save, legacy format)";
    if (bytes.size() >= 9 && bytes[8] == '{') {
        uint64_t header = 0;
        for (int i = 7; i >= 0; --i) header = header << 8 | bytes[static_cast<size_t>(i)];
        if (header > 1 && header <= bytes.size() - 8) return "a safetensors checkpoint";
    }
    return nullptr;
}

}  // namespace

std::string model_file_mistake(const std::vector<uint8_t>& bytes, const std::string& path) {
    if (const char* kind = checkpoint_kind(bytes))
        return path + " is " + kind + ", not an auspex model: run auspex convert first (auspex convert " + path +
               " --config CONFIG.json -o MODEL.axm) and give the .axm it writes";
    if (onnx::looks_like_onnx(bytes.data(), bytes.size()))
        return path + " is an ONNX graph, not an auspex model: convert it first (auspex convert " + path +
               " -o MODEL.axm) and give the .axm it writes; auspex inspect and auspex run read the graph on the "
               "host (docs/onnx.md)";
    if (bytes.size() < 12 || std::memcmp(bytes.data(), format::kMagic, sizeof format::kMagic) != 0) return "";
    uint32_t version = 0;
    for (int i = 11; i >= 8; --i) version = version << 8 | bytes[static_cast<size_t>(i)];
    if (version == format::kVersion) return "";
    const std::string v = std::to_string(version), here = std::to_string(format::kVersion);
    if (version > format::kVersion)
        return path + " is model format version " + v + ", newer than this auspex reads (version " + here +
               "): update auspex (the tools, and the runtime on the device) to a release that reads version " + v +
               ", or convert the checkpoint again with this auspex";
    return path + " is model format version " + v + ", older than this auspex reads (version " + here +
           "): convert the checkpoint again with this auspex (auspex convert), or use the auspex release that wrote it";
}

}  // namespace ax::tools
