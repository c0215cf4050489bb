#include "runtime/linear_split.h"

#include <cstring>

namespace ax {

namespace {

struct SplitJob {
    const Kernels* k;
    const Linear* layer;
    const float* x;
    const int8_t* xq;
    const float* xscale;
    size_t rows;
    float* y;
    const LinearSplit* split;
    size_t units;  // ceil(out / kColumnUnit)
    size_t tasks;
};

// y[rows, l.out] (l.out wide rows) for the columns of slice l.
void product(const SplitJob& j, const Linear& l, float* y) {
    switch (l.dtype) {
        case format::DType::f32:
            j.k->linear_f32(j.x, j.rows, l.in, static_cast<const float*>(l.weight), l.bias, l.out, y);
            return;
        case format::DType::f16:
            j.k->linear_f16(j.x, j.rows, l.in, static_cast<const uint16_t*>(l.weight), l.bias, l.out, y);
            return;
        case format::DType::i8:
            j.k->linear_i8(j.xq, j.xscale, j.rows, l.in, static_cast<const int8_t*>(l.weight), l.scales, l.bias, l.out,
                           y);
            return;
        case format::DType::i32:  // integer plans only: the binder refuses i32 matrices
            return;
    }
}

void run_task(void* arg, int index) {
    const SplitJob& j = *static_cast<const SplitJob*>(arg);
    const size_t t = static_cast<size_t>(index);
    const size_t out = j.layer->out;
    const size_t c0 = t * j.units / j.tasks * LinearSplit::kColumnUnit;
    const size_t end = (t + 1) * j.units / j.tasks * LinearSplit::kColumnUnit;
    const size_t c1 = end < out ? end : out;
    if (c0 >= c1) return;
    if (j.rows == 1) {
        product(j, j.layer->slice(c0, c1 - c0), j.y + c0);
        return;
    }
    float* s = j.split->scratch + t * j.split->scratch_rows * LinearSplit::kColumns;
    for (size_t c = c0; c < c1; c += LinearSplit::kColumns) {
        const size_t n = c1 - c < LinearSplit::kColumns ? c1 - c : LinearSplit::kColumns;
        product(j, j.layer->slice(c, n), s);
        for (size_t r = 0; r < j.rows; ++r) std::memcpy(j.y + r * out + c, s + r * n, n * sizeof(float));
    }
}

}  // namespace

void LinearSplit::allocate(MemoryPlan& plan, const char* name, size_t max_rows, Phase first, Phase last) {
    parallel = ParallelFor{};
    parallel.workers = plan.workers();
    scratch_rows = plan.workers() > 1 ? max_rows : 0;
    scratch = plan.workers() > 1 ? plan.alloc<float>(name, uint64_t{plan.workers()} * max_rows * kColumns, first, last)
                                 : nullptr;
}

bool linear_split_forward(const Kernels& k, const Linear& layer, const float* x, const int8_t* xq, const float* xscale,
                          size_t rows, float* y, const LinearSplit& split) {
    if (!split.parallel.threaded() || rows == 0) return false;
    if (rows > 1 && (split.scratch == nullptr || rows > split.scratch_rows)) return false;
    const size_t units = (layer.out + LinearSplit::kColumnUnit - 1) / LinearSplit::kColumnUnit;
    const uint64_t macs = uint64_t{rows} * layer.in * layer.out;
    const uint64_t min_task = split.parallel.min_task_macs > 0   ? split.parallel.min_task_macs
                              : layer.dtype == format::DType::i8 ? LinearSplit::kMinTaskMacsI8
                                                                 : LinearSplit::kMinTaskMacs;
    uint64_t tasks = macs / min_task;
    if (tasks > split.parallel.workers) tasks = split.parallel.workers;
    if (tasks > units) tasks = units;
    if (tasks < 2) return false;
    SplitJob job{&k, &layer, x, xq, xscale, rows, y, &split, units, static_cast<size_t>(tasks)};
    parallel_run(split.parallel, job.tasks, run_task, &job);
    return true;
}

}  // namespace ax
