#include "tools/onnx/onnx_fold.h"

#include <cmath>
#include <set>

#include "tools/common/tool_error.h"

namespace ax::onnx {

namespace {

// Ops whose output shape depends on the values of their inputs after the first (ConstantOfShape's and Range's: of
// every input): their outputs have a shape that holds for other input values only when those inputs are constants.
bool shape_from_values(const std::string& op) {
    static const std::set<std::string> kOps = {"Reshape",   "Expand",          "Tile",       "Slice",     "Split",
                                               "Squeeze",   "Unsqueeze",       "ReduceMean", "ReduceSum", "ReduceMax",
                                               "ReduceMin", "ConstantOfShape", "Range"};
    return kOps.count(op) != 0;
}

struct Known {
    Tensor value;  // the real value when constant, else values computed from probe inputs
    bool constant = false;
    bool shape_sure = false;  // the shape holds for any input values of the given shapes
};

}  // namespace

Tensor probe_tensor(const ValueInfo& v, const std::vector<int64_t>& shape) {
    Tensor t;
    t.name = v.name;
    t.type = is_float_type(v.type) || v.type == DataType::undefined ? DataType::float32 : v.type;
    t.shape = shape;
    const size_t n = element_count(shape, "input " + v.name);
    if (t.is_float()) {
        t.f.resize(n);
        for (size_t k = 0; k < n; ++k) t.f[k] = static_cast<float>(std::sin(0.37 * static_cast<double>(k) + 0.1));
    } else {
        t.i.assign(n, 0);
    }
    return t;
}

Shapes input_shapes(const Model& m, const std::map<std::string, int64_t>& dims, int64_t dynamic_default) {
    Shapes shapes;
    std::set<std::string> used;
    for (const ValueInfo* v : m.fed_inputs()) {
        if (!v->has_shape)
            throw tools::ToolError("input " + v->name +
                                   " declares no shape: export with example inputs of the real "
                                   "rank");
        std::vector<int64_t> s;
        for (size_t k = 0; k < v->dims.size(); ++k) {
            const Dim& d = v->dims[k];
            if (d.value >= 0) {
                s.push_back(d.value);
            } else if (!d.param.empty() && dims.count(d.param)) {
                s.push_back(dims.at(d.param));
                used.insert(d.param);
            } else {
                s.push_back(k == 0 ? 1 : dynamic_default);
            }
        }
        shapes[v->name] = s;
    }
    for (const auto& [name, size] : dims)
        if (!used.count(name)) throw tools::ToolError("no input has a dynamic dimension named " + name);
    return shapes;
}

FoldedGraph fold_graph(const Model& m, const Shapes& in_shapes) {
    const int64_t opset = m.default_opset();
    std::map<std::string, Known> known;
    for (const Tensor& t : m.graph.initializers) known[t.name] = {t, true, true};
    Values probes;
    for (const ValueInfo* v : m.fed_inputs()) {
        const auto it = in_shapes.find(v->name);
        if (it == in_shapes.end()) throw tools::ToolError("no shape given for input " + v->name);
        probes[v->name] = probe_tensor(*v, it->second);
    }
    check_fed_inputs(m, probes);
    for (auto& [name, t] : probes) known[name] = {t, false, true};

    FoldedGraph out;
    std::map<std::string, std::string> failed;  // node output -> why it could not be evaluated
    std::vector<bool> folded(m.graph.nodes.size(), false);
    for (size_t ni = 0; ni < m.graph.nodes.size(); ++ni) {
        const Node& n = m.graph.nodes[ni];
        Inputs inputs;
        bool all_known = true, all_constant = true, shapes_sure = true, rest_constant = true;
        for (size_t k = 0; k < n.inputs.size(); ++k) {
            if (n.inputs[k].empty()) {
                inputs.push_back(nullptr);
                continue;
            }
            const auto it = known.find(n.inputs[k]);
            if (it == known.end()) {
                all_known = false;
                break;
            }
            inputs.push_back(&it->second.value);
            all_constant = all_constant && it->second.constant;
            shapes_sure = shapes_sure && it->second.shape_sure;
            if (k > 0 || n.op_type == "ConstantOfShape" || n.op_type == "Range")
                rest_constant = rest_constant && it->second.constant;
        }
        if (!all_known) continue;  // downstream of a node that could not be evaluated
        std::vector<Tensor> outs;
        try {
            outs = evaluate_node(n, inputs, opset);
        } catch (const tools::ToolError& e) {
            for (const std::string& o : n.outputs) failed[o] = e.what();
            continue;
        }
        const bool sure = shapes_sure && (!shape_from_values(n.op_type) || rest_constant);
        const bool from_shape = (n.op_type == "Shape" || n.op_type == "Size") && shapes_sure;
        const bool constant = all_constant || from_shape;
        folded[ni] = constant;
        for (Tensor& t : outs) {
            if (t.name.empty()) continue;
            const std::string name = t.name;  // an assignment evaluates its right side (the move) first
            if (sure || constant) out.shapes[name] = t.shape;
            known[name] = {std::move(t), constant, sure || constant};
        }
    }

    // The nodes the graph's outputs need, walking back from them over values that are not constant.
    std::map<std::string, size_t> producer;
    for (size_t ni = 0; ni < m.graph.nodes.size(); ++ni)
        for (const std::string& o : m.graph.nodes[ni].outputs) producer[o] = ni;
    std::vector<bool> live(m.graph.nodes.size(), false);
    std::vector<std::string> todo;
    std::set<std::string> constants_used;
    for (const ValueInfo& v : m.graph.outputs) todo.push_back(v.name);
    std::set<std::string> seen;
    while (!todo.empty()) {
        const std::string name = todo.back();
        todo.pop_back();
        if (name.empty() || !seen.insert(name).second) continue;
        const auto k = known.find(name);
        if (k != known.end() && k->second.constant) {
            constants_used.insert(name);
            continue;
        }
        const auto p = producer.find(name);
        if (p == producer.end()) continue;  // a fed input
        live[p->second] = true;
        for (const std::string& i : m.graph.nodes[p->second].inputs) todo.push_back(i);
    }

    out.model.ir_version = m.ir_version;
    out.model.producer_name = m.producer_name;
    out.model.producer_version = m.producer_version;
    out.model.opsets = m.opsets;
    out.model.graph.name = m.graph.name;
    out.model.graph.outputs = m.graph.outputs;
    for (const ValueInfo* v : m.fed_inputs()) {
        ValueInfo fixed = *v;
        const std::vector<int64_t>& s = in_shapes.at(v->name);
        for (size_t k = 0; k < fixed.dims.size() && k < s.size(); ++k) fixed.dims[k].value = s[k];
        out.model.graph.inputs.push_back(fixed);
    }
    for (const std::string& name : constants_used) {
        Tensor t = known.at(name).value;
        t.name = name;
        out.model.graph.initializers.push_back(std::move(t));
    }
    for (size_t ni = 0; ni < m.graph.nodes.size(); ++ni) {
        const Node& n = m.graph.nodes[ni];
        if (!live[ni]) {
            ++out.folded_nodes;
            continue;
        }
        out.model.graph.nodes.push_back(n);
        ++out.op_counts[n.op_type];
    }
    for (size_t ni = 0; ni < out.model.graph.nodes.size(); ++ni) {
        const Node& n = out.model.graph.nodes[ni];
        std::string why;
        for (const std::string& o : n.outputs)
            if (failed.count(o)) why = failed.at(o);
        if (!is_evaluable(n) && why.empty()) why = "the host reference evaluator has no " + n.op_type;
        if (!why.empty()) out.not_evaluable.emplace_back(ni, why);
    }
    return out;
}

}  // namespace ax::onnx
