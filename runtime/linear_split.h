// A matrix product's output columns split over a session's workers (runtime/parallel.h). Task t computes
// a contiguous range of output columns for every row, written in place (the kernels take y's row stride):
// each output value is computed by one task, by the same kernel call a single thread makes for it (the
// kernels choose their path from rows and in, never from out, and the ranges start at multiples of
// kColumnUnit, which keeps every port's column grouping), so the bits do not depend on the number of workers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/kernels.h"
#include "runtime/linear.h"
#include "runtime/memory_plan.h"
#include "runtime/parallel.h"

namespace ax {

struct LinearSplit {
    static constexpr size_t kColumnUnit = 16;  // ranges start at multiples of this many columns
    // Below this many multiply-adds a task costs more to hand to another thread than it saves (the default of
    // ParallelFor::min_task_macs): 0.5-3 microseconds of a product on a desktop core (int8 runs about four
    // times as many per second as float32), against about one for a hand-off to a polling worker on a free
    // core. A smaller figure made the smallest forecaster (d_model 64) slower on two threads than on one.
    static constexpr uint64_t kMinTaskMacs = uint64_t{1} << 18;
    // A product of few rows (a decoder step) streams its weights from L3 or memory and does little else: a
    // task's share of them, this many bytes or more, is also worth a hand-off (about 5 microseconds of
    // reading at the rates one core gets from L3).
    static constexpr uint64_t kMinTaskWeightBytes = uint64_t{1} << 17;

    ParallelFor parallel;

    // The session's workers (plan.workers()); the hook is set by the session.
    void allocate(const MemoryPlan& plan);
};

// y = x W^T + b for a float32 or half layer (x) or an int8 one (xq, xscale), split over the workers, then
// through the activation `then` when given (each task its own columns, while they are in its cache; an
// activation's value depends on that value alone: runtime/activation.h). False, having done nothing, when the
// product is too small to split or the split has no hook: the caller then makes the single call.
bool linear_split_forward(const Kernels& k, const Linear& layer, const float* x, const int8_t* xq, const float* xscale,
                          size_t rows, float* y, const LinearSplit& split, const format::Activation* then = nullptr);

// One product of several on the same input rows: y [rows, layer.out], row stride y_stride.
struct SplitProduct {
    Linear layer;
    float* y = nullptr;
    size_t y_stride = 0;
};

// Several products of the same input rows (same `in`, the same dtype) in one hand-off: task t computes its
// range of columns of each, as linear_split_forward would for each alone (the same bits), so that products
// too small to pay for a hand-off each (the cross-attention keys and values of every decoder layer) share one.
// False, having done nothing, when they are too small to split together or the split has no hook.
bool linear_split_forward_all(const Kernels& k, const SplitProduct* products, size_t count, const float* x,
                              const int8_t* xq, const float* xscale, size_t rows, const LinearSplit& split);

}  // namespace ax
