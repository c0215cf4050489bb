#include "tools/onnx/onnx_eval.h"

#include "tools/common/tool_error.h"

namespace ax::onnx {

namespace {

bool default_domain(const Node& n) { return n.domain.empty() || n.domain == "ai.onnx"; }

std::string evaluable_list() {
    std::string s;
    for (const std::string& op : evaluable_op_types()) s += (s.empty() ? "" : " ") + op;
    return s;
}

}  // namespace

bool is_evaluable(const Node& n) { return default_domain(n) && find_op(n.op_type) != nullptr; }

std::vector<Tensor> evaluate_node(const Node& n, const Inputs& inputs, int64_t opset) {
    const OpFunction run = default_domain(n) ? find_op(n.op_type) : nullptr;
    if (!run)
        throw tools::ToolError("cannot evaluate " + n.describe() + ": the host reference evaluator has no " +
                               (default_domain(n) ? "" : n.domain + ".") + n.op_type + " (it evaluates " +
                               evaluable_list() + ")");
    std::vector<Tensor> outs;
    try {
        outs = run(n, inputs, opset);
    } catch (const tools::ToolError& e) {
        throw tools::ToolError("cannot evaluate " + n.describe() + ": " + e.what());
    }
    if (outs.size() < n.outputs.size())
        throw tools::ToolError("cannot evaluate " + n.describe() + ": it has " + std::to_string(n.outputs.size()) +
                               " outputs, the evaluator computes " + std::to_string(outs.size()));
    for (size_t k = 0; k < n.outputs.size(); ++k) outs[k].name = n.outputs[k];
    outs.resize(n.outputs.size());
    return outs;
}

void check_fed_inputs(const Model& m, const Values& fed) {
    const std::vector<const ValueInfo*> declared = m.fed_inputs();
    std::string names;
    for (const ValueInfo* v : declared) names += (names.empty() ? "" : ", ") + v->name;
    for (const auto& [name, t] : fed) {
        const ValueInfo* decl = nullptr;
        for (const ValueInfo* v : declared)
            if (v->name == name) decl = v;
        if (!decl) throw tools::ToolError("the graph has no input " + name + " (its inputs: " + names + ")");
        if (!decl->has_shape) continue;
        bool ok = decl->dims.size() == t.shape.size();
        for (size_t k = 0; ok && k < t.shape.size(); ++k)
            ok = decl->dims[k].value < 0 || decl->dims[k].value == t.shape[k];
        if (!ok)
            throw tools::ToolError("input " + name + " has shape " + shape_text(t.shape) + ", the graph declares " +
                                   dims_text(decl->dims));
    }
    for (const ValueInfo* v : declared)
        if (!fed.count(v->name))
            throw tools::ToolError("input " + v->name + " is not given (the graph's inputs: " + names + ")");
}

Values run_graph(const Model& m, const Values& fed) {
    check_fed_inputs(m, fed);
    const int64_t opset = m.default_opset();
    Values values = fed;
    for (const Tensor& t : m.graph.initializers)
        if (!values.count(t.name)) values[t.name] = t;
    for (const Node& n : m.graph.nodes) {
        Inputs inputs;
        for (const std::string& name : n.inputs) {
            if (name.empty()) {
                inputs.push_back(nullptr);
                continue;
            }
            const auto it = values.find(name);
            if (it == values.end())
                throw tools::ToolError("cannot evaluate " + n.describe() + ": no node before it makes " + name +
                                       " (the graph is not in topological order or is incomplete)");
            inputs.push_back(&it->second);
        }
        std::vector<Tensor> outs = evaluate_node(n, inputs, opset);
        for (Tensor& t : outs)
            if (!t.name.empty()) values[t.name] = std::move(t);
    }
    Values out;
    for (const ValueInfo& v : m.graph.outputs) {
        const auto it = values.find(v.name);
        if (it == values.end()) throw tools::ToolError("no node makes the graph's output " + v.name);
        out[v.name] = it->second;
    }
    return out;
}

}  // namespace ax::onnx
