#include "tools/onnx/onnx_model.h"

#include <set>

namespace ax::onnx {

const char* attribute_type_name(AttributeType t) {
    static const char* const kNames[] = {
        "undefined", "float",   "int",    "string",        "tensor",         "graph",      "floats",     "ints",
        "strings",   "tensors", "graphs", "sparse_tensor", "sparse_tensors", "type_proto", "type_protos"};
    const int32_t k = static_cast<int32_t>(t);
    return k >= 0 && k <= 14 ? kNames[k] : "unknown";
}

const Attribute* Node::attribute(const std::string& attribute_name) const {
    for (const Attribute& a : attributes)
        if (a.name == attribute_name) return &a;
    return nullptr;
}

std::string Node::describe() const {
    std::string s = op_type + " node " + (name.empty() ? "(unnamed)" : name) + " (inputs ";
    for (size_t k = 0; k < inputs.size(); ++k) s += (k ? ", " : "") + (inputs[k].empty() ? "(none)" : inputs[k]);
    if (inputs.empty()) s += "none";
    return s + ")";
}

int64_t Model::default_opset() const {
    for (const OpsetImport& o : opsets)
        if (o.domain.empty() || o.domain == "ai.onnx") return o.version;
    return 0;
}

std::vector<const ValueInfo*> Model::fed_inputs() const {
    std::set<std::string> initialized;
    for (const Tensor& t : graph.initializers) initialized.insert(t.name);
    std::vector<const ValueInfo*> fed;
    for (const ValueInfo& v : graph.inputs)
        if (!initialized.count(v.name)) fed.push_back(&v);
    return fed;
}

std::string dims_text(const std::vector<Dim>& dims) {
    std::string s = "[";
    for (size_t k = 0; k < dims.size(); ++k) {
        s += k ? ", " : "";
        s += dims[k].value >= 0 ? std::to_string(dims[k].value) : dims[k].param.empty() ? "?" : dims[k].param;
    }
    return s + "]";
}

}  // namespace ax::onnx
