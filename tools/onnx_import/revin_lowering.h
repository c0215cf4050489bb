// RevIN in a folded ONNX graph, as the Time-Series-Library's and PatchTST's layers/RevIN.py export: each column of
// the window centred by its mean (or its last value, subtract_last) and divided by sqrt(var(unbiased=False) + eps),
// optionally times an affine weight plus a bias; undone on the forecast in the reverse order with the same
// statistics. Lowered onto the normalizer block's RevIN (revin, revin_eps, subtract_last, the affine tensors).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tools/checkpoint/checkpoint.h"
#include "tools/onnx_import/graph_view.h"

namespace ax::onnx_import {

struct Revin {
    bool affine = false, subtract_last = false;
    float eps = 1e-5f;
    tools::HostTensor weight, bias;  // affine: [columns]
    std::string normalized;          // the window in the model's units (what the input block reads)
    std::string offset, stdev;       // the per-column statistics the forecast is restored with
    std::string node;                // the Sqrt of the variance, for messages
};

// RevIN's normalizing half reading `x`, the window [batch, rows, columns] (time_axis 1) or laid out sequence first
// [rows, batch, columns] (time_axis 0), or nothing (marks nothing then). ToolError naming the first ReduceMean when
// the same statistics are taken over another axis than time_axis.
std::optional<Revin> revin_from(GraphView& g, const std::string& x, int64_t time_axis);

// Its undoing half reading the forecast `y`; the value after it. ToolError when the forecast is not restored with
// the window's statistics as RevIN restores it.
std::string revin_restore(GraphView& g, const Revin& r, const std::string& y);

}  // namespace ax::onnx_import
