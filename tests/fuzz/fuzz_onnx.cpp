// Fuzzes the ONNX reader (tools/onnx/protobuf_reader.cpp and onnx_reader.cpp: varints, lengths, nesting, tensors,
// attributes, shapes), then folding, the host reference evaluator and the lowering onto a family's blocks
// (tools/onnx_import/) on whatever graph comes out, for the declared input shapes with dynamic dimensions small. Bad
// input must end in a ToolError, nothing else; external data is refused here (bytes have no folder).
#include <cstddef>
#include <cstdint>

#include "fuzz_support.h"
#include "tools/common/tool_error.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_reader.h"
#include "tools/onnx_import/lower_graph.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ax;
    fuzz::AlignedCopy buffer(data, size);
    onnx::Model m;
    try {
        m = onnx::read_onnx_bytes(buffer.data(), buffer.size(), "", "fuzz.onnx");
    } catch (const tools::ToolError&) {
        return 0;
    }
    // Every node the reader returns is named in errors; touch the strings so a bad one is a report.
    for (const onnx::Node& n : m.graph.nodes) fuzz::consume(n.describe().size());
    if (m.graph.nodes.size() > 2000) return 0;  // folding is linear in nodes; keep each input fast
    try {
        const onnx::FoldedGraph f = onnx::fold_graph(m, onnx::input_shapes(m, {}, 2));
        fuzz::consume(f.folded_nodes + f.model.graph.nodes.size());
        // The lowering onto the forecaster's blocks reads whatever graph folding left.
        const onnx_import::LoweredGraph low = onnx_import::lower_graph(m, f);
        fuzz::consume(low.tensors.size());
    } catch (const tools::ToolError&) {
    }
    return 0;
}
