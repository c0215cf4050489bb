// Reads an ONNX file (a ModelProto) into tools/onnx/onnx_model.h's structures, with the protobuf reader of
// tools/onnx/protobuf_reader.h. Tensors stored in external data files are read from the model's folder; a
// location that leaves it (absolute, or through "..", or a link pointing out) is refused.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "tools/onnx/onnx_model.h"

namespace ax::onnx {

// The model in the file at `path`, external data read from beside it.
Model read_onnx_file(const std::string& path);

// The model in `bytes`; `folder` is where its external data files are ("" refuses external data). `source`
// names the bytes in errors.
Model read_onnx_bytes(const uint8_t* bytes, size_t size, const std::string& folder, const std::string& source);

// True when the bytes start as every exporter starts a ModelProto (its ir_version, then producer, graph or
// opset fields), for telling an ONNX file given where an .axm model or a checkpoint is expected.
bool looks_like_onnx(const uint8_t* bytes, size_t size);

}  // namespace ax::onnx
