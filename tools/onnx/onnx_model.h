// An ONNX model as read from its file (tools/onnx/onnx_reader.cpp): the opsets it imports and its graph: nodes
// with their attributes, initializers, inputs and outputs with their shapes (dynamic dimensions by name), and
// the value_info shapes the exporter recorded.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tools/onnx/onnx_tensor.h"

namespace ax::onnx {

struct Graph;

// AttributeProto.AttributeType numbers.
enum class AttributeType : int32_t {
    undefined = 0,
    float32 = 1,
    int64 = 2,
    string = 3,
    tensor = 4,
    graph = 5,
    floats = 6,
    ints = 7,
    strings = 8,
    tensors = 9,
    graphs = 10,
    sparse_tensor = 11,
    sparse_tensors = 12,
    type_proto = 13,
    type_protos = 14,
};

const char* attribute_type_name(AttributeType t);

struct Attribute {
    std::string name;
    AttributeType type = AttributeType::undefined;
    float f = 0;
    int64_t i = 0;
    std::string s;
    std::shared_ptr<Tensor> t;
    std::shared_ptr<Graph> g;
    std::vector<float> floats;
    std::vector<int64_t> ints;
    std::vector<std::string> strings;
    std::vector<Tensor> tensors;
    std::vector<std::shared_ptr<Graph>> graphs;
};

struct Node {
    std::string op_type;
    std::string name;
    std::string domain;
    std::vector<std::string> inputs;  // "" for an optional input left out
    std::vector<std::string> outputs;
    std::vector<Attribute> attributes;

    const Attribute* attribute(const std::string& attribute_name) const;
    // "MatMul node /encoder/layers.0/self_attn/MatMul (inputs a, b)": how errors name a node.
    std::string describe() const;
};

// One dimension of a declared shape: a number, or a name for a dynamic axis ("batch"), or neither (unknown).
struct Dim {
    int64_t value = -1;  // >= 0 when known
    std::string param;
};

struct ValueInfo {
    std::string name;
    DataType type = DataType::undefined;
    bool has_shape = false;
    std::vector<Dim> dims;
};

struct Graph {
    std::string name;
    std::vector<Node> nodes;
    std::vector<Tensor> initializers;
    std::vector<ValueInfo> inputs;  // may list initializers too (IR version < 4 models)
    std::vector<ValueInfo> outputs;
    std::vector<ValueInfo> value_info;
};

struct OpsetImport {
    std::string domain;  // "" (or "ai.onnx") is the default operator set
    int64_t version = 0;
};

struct Model {
    int64_t ir_version = 0;
    std::string producer_name;
    std::string producer_version;
    std::vector<OpsetImport> opsets;
    Graph graph;

    // The version of the default operator set ("" / "ai.onnx"); 0 when the model imports none.
    int64_t default_opset() const;
    // The graph inputs that are not initializers: what a caller feeds.
    std::vector<const ValueInfo*> fed_inputs() const;
};

// "[batch, seq_src, 3]".
std::string dims_text(const std::vector<Dim>& dims);

}  // namespace ax::onnx
