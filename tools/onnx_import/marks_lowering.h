// Time features fed as a graph input of their own (x_mark: the Time-Series-Library's signature and the code written
// after it), through a Linear added to the values' embedded rows. auspex reads them as the last columns of that
// side's rows (format.h, time_marks): beside a token convolution the importer folds them as for a checkpoint;
// beside an input Linear the two Linears become one over [values, marks], their biases added.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "tools/onnx/onnx_model.h"
#include "tools/onnx_import/blocks.h"
#include "tools/onnx_import/graph_view.h"

namespace ax::onnx_import {

// A forecaster's fed inputs split into values and their time features: of four, the second and the last (the
// Time-Series-Library's x_enc, x_mark_enc, x_dec, x_mark_dec); of two, the second when the two inputs' rows first
// meet in an Add of a Linear of each (forward(x, x_mark): value_embedding(x) + time_embedding(x_mark)); else every
// input is values. marks[i] (when there) belongs to values[i]. Reads the graph as exported or folded (the proof's
// dims are chosen by it before folding); ToolError when the second input's rows reach that Add through more than
// one Linear.
struct FedInputs {
    std::vector<const onnx::ValueInfo*> values, marks;
};
FedInputs split_time_features(const onnx::Graph& graph, const std::vector<const onnx::ValueInfo*>& fed);

struct TimeMarks {
    Linear linear;      // the time features' Linear [d_model, marks]
    std::string input;  // the graph input it reads
    std::string sum;    // the Add of the rows and the Linear's output
};

// The Linear of a graph input added to `rows` (rows' one reader an Add whose other operand is that Linear's output);
// marks the Add and the Linear. Nothing (and nothing marked) when rows' reader is no Add of something computed from
// a graph input alone by a MatMul or Gemm; ToolError when it is, but not by one Linear. `beside` names the block
// that computed `rows` for that message.
std::optional<TimeMarks> time_marks_added(GraphView& g, const std::string& rows, const std::string& beside);

// The values' input Linear and the time features' Linear as one Linear over [values, marks] (their biases added;
// none when neither has one). The marks were added after the embedding was multiplied by `scale`: their weights are
// divided by it, so that the runtime's (Linear) x scale computes the graph's sum.
Linear join_time_marks(const Linear& values, const Linear& marks, double scale);

}  // namespace ax::onnx_import
