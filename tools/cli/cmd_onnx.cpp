// inspect and run for an ONNX graph (MODEL.onnx in place of an .axm): what the file holds, what remains after
// constant and shape folding, and the graph's outputs from the host reference evaluator (tools/onnx/). Not the
// device path; `auspex convert MODEL.onnx` makes the .axm (tools/onnx_import/), and inspect says whether it would.
#include <algorithm>
#include <cstdio>
#include <map>

#include "tools/cli/commands.h"
#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_eval.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_reader.h"
#include "tools/onnx_import/lower_graph.h"

namespace ax::cli {

namespace {

bool ends_with_onnx(const std::string& s) {
    if (s.size() < 5) return false;
    std::string tail = s.substr(s.size() - 5);
    std::transform(tail.begin(), tail.end(), tail.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return tail == ".onnx";
}

// "NAME=VALUE" split at the first '='; UsageError naming the option otherwise.
std::pair<std::string, std::string> name_value(const std::string& text, const char* option) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
        throw UsageError{std::string("--") + option + " takes NAME=VALUE, not \"" + text + "\""};
    return {text.substr(0, eq), text.substr(eq + 1)};
}

// Takes every `--option X` / `--option=X` out of argv (they may repeat), leaving the rest for Args.
std::vector<std::string> take_repeated(Argv* argv, const std::string& option) {
    std::vector<std::string> values;
    Argv rest;
    for (size_t i = 0; i < argv->size(); ++i) {
        const std::string& a = (*argv)[i];
        if (a == "--" + option) {
            if (i + 1 >= argv->size()) throw UsageError{"option --" + option + " needs a value"};
            values.push_back((*argv)[++i]);
        } else if (a.compare(0, option.size() + 3, "--" + option + "=") == 0) {
            values.push_back(a.substr(option.size() + 3));
        } else {
            rest.push_back(a);
        }
    }
    *argv = rest;
    return values;
}

std::string type_and_dims(const onnx::ValueInfo& v) {
    return std::string(onnx::data_type_name(v.type)) + " " + (v.has_shape ? onnx::dims_text(v.dims) : "(no shape)");
}

// The CSV's values shaped as the input's declaration: the columns are the last dimension, the rows every other
// one; of the dynamic dimensions, the last is found from the row count and the others are 1.
onnx::Tensor input_from_csv(const onnx::ValueInfo& v, const std::string& path) {
    const tools::Table t = tools::read_csv(path);
    if (!v.has_shape || v.dims.empty())
        throw tools::ToolError("input " + v.name + " declares no shape of rank 1 or more; a CSV cannot feed it");
    std::vector<int64_t> shape;
    int open = -1;
    for (size_t k = 0; k < v.dims.size(); ++k) {
        shape.push_back(v.dims[k].value >= 0 ? v.dims[k].value : 1);
        if (v.dims[k].value < 0) open = static_cast<int>(k);
    }
    const size_t last = v.dims.size() - 1;
    if (v.dims[last].value < 0) {  // the columns say the last dimension
        shape[last] = static_cast<int64_t>(t.cols);
        open = -1;
        for (size_t k = 0; k < last; ++k)
            if (v.dims[k].value < 0) open = static_cast<int>(k);
    }
    if (static_cast<size_t>(shape[last]) != t.cols)
        throw tools::ToolError(path + " has " + std::to_string(t.cols) + " columns; input " + v.name + " of shape " +
                               onnx::dims_text(v.dims) + " needs " + std::to_string(shape[last]) +
                               " (one column per value of its last dimension)");
    size_t fixed = 1;
    for (size_t k = 0; k < last; ++k)
        if (static_cast<int>(k) != open) fixed *= static_cast<size_t>(shape[k]);
    if (open >= 0) {
        if (fixed == 0 || t.rows % fixed != 0)
            throw tools::ToolError(path + " has " + std::to_string(t.rows) + " rows, not a multiple of " +
                                   std::to_string(fixed) + " for input " + v.name + " " + onnx::dims_text(v.dims));
        shape[static_cast<size_t>(open)] = static_cast<int64_t>(t.rows / fixed);
    } else if (fixed != t.rows) {
        throw tools::ToolError(path + " has " + std::to_string(t.rows) + " rows; input " + v.name + " of shape " +
                               onnx::dims_text(v.dims) + " needs " + std::to_string(fixed));
    }
    onnx::Tensor in;
    in.name = v.name;
    in.shape = shape;
    if (onnx::is_integer_type(v.type)) {
        in.type = v.type;
        for (float x : t.values) {
            if (x != static_cast<float>(static_cast<int64_t>(x)))
                throw tools::ToolError(path + ": input " + v.name + " is " + onnx::data_type_name(v.type) + ", " +
                                       std::to_string(x) + " is not a whole number");
            in.i.push_back(static_cast<int64_t>(x));
        }
    } else {
        in.type = onnx::DataType::float32;
        in.f = t.values;
    }
    return in;
}

}  // namespace

bool is_onnx_command(const Argv& argv) {
    for (size_t k = 0; k < argv.size(); ++k)
        if (ends_with_onnx(argv[k]) && (k == 0 || (argv[k - 1] != "-o" && argv[k - 1] != "--output"))) return true;
    return false;
}

int cmd_inspect_onnx(const Argv& argv_in) {
    Argv argv = argv_in;
    const std::vector<std::string> dim_options = take_repeated(&argv, "dim");
    const Args args(argv, {}, {});
    args.expect_positionals(1, "one model (.onnx)");
    std::map<std::string, int64_t> dims;
    for (const std::string& d : dim_options) {
        const auto [name, value] = name_value(d, "dim");
        char* end = nullptr;
        const long long n = std::strtoll(value.c_str(), &end, 10);
        if (*end != '\0' || n < 1 || n > (1 << 20))
            throw UsageError{"--dim " + d + ": the size must be a whole number from 1"};
        dims[name] = n;
    }
    const std::string path = args.positionals()[0];
    const onnx::Model m = onnx::read_onnx_file(path);
    const onnx::Shapes shapes = onnx::input_shapes(m, dims);
    const onnx::FoldedGraph folded = onnx::fold_graph(m, shapes);

    std::printf("model:    %s (ONNX, IR version %lld, from %s %s)\n", path.c_str(),
                static_cast<long long>(m.ir_version),
                m.producer_name.empty() ? "an unnamed producer" : m.producer_name.c_str(), m.producer_version.c_str());
    std::string opsets;
    for (const onnx::OpsetImport& o : m.opsets)
        opsets += (opsets.empty() ? "" : ", ") + (o.domain.empty() ? std::string("ai.onnx") : o.domain) + " " +
                  std::to_string(o.version);
    std::printf("opsets:   %s\n", opsets.c_str());
    for (const onnx::ValueInfo* v : m.fed_inputs())
        std::printf("input:    %s %s, folded for %s\n", v->name.c_str(), type_and_dims(*v).c_str(),
                    onnx::shape_text(shapes.at(v->name)).c_str());
    for (const onnx::ValueInfo& v : m.graph.outputs) {
        const auto s = folded.shapes.find(v.name);
        std::printf("output:   %s %s%s\n", v.name.c_str(), type_and_dims(v).c_str(),
                    s == folded.shapes.end() ? "" : (", " + onnx::shape_text(s->second) + " for these inputs").c_str());
    }
    size_t params = 0;
    for (const onnx::Tensor& t : m.graph.initializers) params += t.size();
    std::printf("weights:  %zu initializers, %zu values\n", m.graph.initializers.size(), params);
    std::printf("nodes:    %zu; after constant and shape folding %zu remain (%zu folded or unused)\n",
                m.graph.nodes.size(), folded.model.graph.nodes.size(), folded.folded_nodes);
    std::vector<std::pair<std::string, size_t>> counts(folded.op_counts.begin(), folded.op_counts.end());
    std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::string ops;
    for (const auto& [op, n] : counts) ops += (ops.empty() ? "" : ", ") + op + " " + std::to_string(n);
    std::printf("op types: %zu remain: %s\n", counts.size(), ops.empty() ? "none" : ops.c_str());
    if (folded.not_evaluable.empty()) {
        std::printf("evaluator: every remaining node is evaluable by the host reference (auspex run %s --input ...)\n",
                    path.c_str());
    } else {
        std::printf("evaluator: %zu remaining nodes are not evaluable by the host reference:\n",
                    folded.not_evaluable.size());
        for (const auto& [index, why] : folded.not_evaluable)
            std::printf("  %s: %s\n", folded.model.graph.nodes[index].describe().c_str(), why.c_str());
    }
    // Whether the graph lowers onto the forecaster's blocks, and if not, the first thing that stops it.
    try {
        const onnx_import::LoweredGraph low = onnx_import::lower_graph(m, folded);
        std::printf("convert:  lowers onto the %s's blocks (auspex convert %s -o model.axm)\n",
                    format::enum_name(low.family), path.c_str());
    } catch (const tools::ToolError& e) {
        std::printf("convert:  does not lower onto a family's blocks: %s\n", e.what());
    }
    return 0;
}

int cmd_run_onnx(const Argv& argv_in) {
    Argv argv = argv_in;
    const std::vector<std::string> input_options = take_repeated(&argv, "input");
    const Args args(argv, {"output", "output-name"}, {});
    args.expect_positionals(1, "one model (.onnx)");
    if (input_options.empty()) throw UsageError{"give the graph's inputs as --input NAME=FILE.csv"};
    const onnx::Model m = onnx::read_onnx_file(args.positionals()[0]);
    onnx::Values fed;
    for (const std::string& option : input_options) {
        const auto [name, file] = name_value(option, "input");
        const onnx::ValueInfo* decl = nullptr;
        for (const onnx::ValueInfo* v : m.fed_inputs())
            if (v->name == name) decl = v;
        if (!decl) {
            std::string names;
            for (const onnx::ValueInfo* v : m.fed_inputs()) names += (names.empty() ? "" : ", ") + v->name;
            throw tools::ToolError("the graph has no input " + name + " (its inputs: " + names + ")");
        }
        if (fed.count(name)) throw UsageError{"--input " + name + " is given twice"};
        if (args.has("output") && tools::same_file(args.get("output"), file))
            throw tools::ToolError("-o " + args.get("output") + " is the same file as --input " + name +
                                   ": writing it would destroy that input; name another output (nothing was written)");
        fed[name] = input_from_csv(*decl, file);
    }
    const onnx::Values outs = onnx::run_graph(m, fed);
    const std::string wanted = args.get("output-name", m.graph.outputs.empty() ? "" : m.graph.outputs[0].name);
    const auto it = outs.find(wanted);
    if (it == outs.end()) {
        std::string names;
        for (const onnx::ValueInfo& v : m.graph.outputs) names += (names.empty() ? "" : ", ") + v.name;
        throw tools::ToolError("the graph has no output " + wanted + " (its outputs: " + names + ")");
    }
    const onnx::Tensor& y = it->second;
    tools::Table table;
    table.cols = y.shape.empty() ? 1 : static_cast<size_t>(y.shape.back());
    table.rows = table.cols == 0 ? 0 : y.size() / table.cols;
    for (size_t k = 0; k < y.size(); ++k) table.values.push_back(static_cast<float>(y.real(k)));
    for (size_t c = 0; c < table.cols; ++c) table.header.push_back(wanted + "_" + std::to_string(c));
    if (!write_output(args, table)) return 0;
    std::fprintf(stderr, "auspex: %s %s written to %s (host reference evaluator)\n", wanted.c_str(),
                 onnx::shape_text(y.shape).c_str(), args.get("output").c_str());
    return 0;
}

}  // namespace ax::cli
