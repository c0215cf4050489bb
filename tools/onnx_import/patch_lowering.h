// Patches in a folded ONNX graph (PatchTST's patching): each column of the window [batch, rows, columns] (or laid out
// sequence first, [rows, batch, columns]) cut into patches of patch_len steps every stride steps, optionally after
// repeating the last step stride times ("end" padding), as [batch, columns, patches, patch_len] before the patch
// Linear. Exporters write the cut many ways
// (Slices, Unsqueezes and a Concat for unfold; a Concat of an Expand of the last step for the padding), so the
// recogniser does not match nodes: it takes the data-moving nodes between the window and the patch Linear, runs
// them on the host with every input value distinct, and reads off which step of which column each patch value
// is; that must be the runtime's patching for one (stride, padding) pair. Lowered onto the input block's patches.
#pragma once
#include <optional>
#include <string>

#include "tools/onnx/onnx_fold.h"
#include "tools/onnx_import/graph_view.h"

namespace ax::onnx_import {

struct Patches {
    int64_t patch_len = 0, stride = 0, count = 0, columns = 0, window = 0;
    bool pad_end = false;
    std::string value;  // [batch, columns, patches, patch_len], what the patch Linear reads
};

// The patching of `x` [batch, rows, columns] (time_axis 1) or [rows, batch, columns] (time_axis 0, sequence first),
// or nothing (marks nothing then). ToolError when data-moving nodes reach a Linear of rank-4 rows but not as the
// runtime's patching does.
std::optional<Patches> patches_from(GraphView& g, const onnx::FoldedGraph& folded, const std::string& x,
                                    int64_t time_axis);

}  // namespace ax::onnx_import
