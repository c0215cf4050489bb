// A matrix product's output columns split over a session's workers (runtime/parallel.h). Task t computes
// a contiguous range of output columns for every row: each output value is computed by one task, by the
// same kernel call a single thread makes for it (the kernels choose their path from rows and in, never
// from out, and the ranges start at multiples of kColumnUnit, which keeps every port's column grouping),
// so the bits do not depend on the number of workers. A range of one row is written in place; with more
// rows a task computes kColumns columns at a time into its own scratch in the arena and copies them out.
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
    static constexpr size_t kColumns = 256;    // columns per kernel call of a task with more than one row
    // Below this many multiply-adds a task costs more to hand to another thread than it saves (the default of
    // ParallelFor::min_task_macs): 3-10 microseconds of a float product on a desktop core, several times what
    // handing a task to a polling worker on a free core costs. int8 products run about four times as many
    // per second.
    static constexpr uint64_t kMinTaskMacs = uint64_t{1} << 18;
    static constexpr uint64_t kMinTaskMacsI8 = uint64_t{1} << 18;

    ParallelFor parallel;
    float* scratch = nullptr;  // parallel.workers blocks of scratch_rows * kColumns floats
    size_t scratch_rows = 0;

    // Per-worker scratch for products of up to max_rows rows, live in [first, last]: nothing when the plan
    // is for one worker.
    void allocate(MemoryPlan& plan, const char* name, size_t max_rows, Phase first, Phase last);
};

// y = x W^T + b for a float32 or half layer (x) or an int8 one (xq, xscale), split over the workers. False,
// having done nothing, when the product is too small to split or the split has no hook: the caller then
// makes the single call.
bool linear_split_forward(const Kernels& k, const Linear& layer, const float* x, const int8_t* xq, const float* xscale,
                          size_t rows, float* y, const LinearSplit& split);

}  // namespace ax
