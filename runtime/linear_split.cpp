#include "runtime/linear_split.h"

#include "runtime/activation.h"

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
    size_t units;  // ceil(out / kColumnUnit)
    size_t tasks;
    const format::Activation* then;
};

// Task t's columns [c0, c1) of every row through the activation.
void activate_columns(const SplitJob& j, float* y, size_t width) {
    if (j.then == nullptr) return;
    for (size_t r = 0; r < j.rows; ++r) activate(*j.k, *j.then, y + r * j.layer->out, width);
}

void run_task(void* arg, int index) {
    const SplitJob& j = *static_cast<const SplitJob*>(arg);
    const size_t t = static_cast<size_t>(index);
    const size_t out = j.layer->out;
    const size_t c0 = t * j.units / j.tasks * LinearSplit::kColumnUnit;
    const size_t end = (t + 1) * j.units / j.tasks * LinearSplit::kColumnUnit;
    const size_t c1 = end < out ? end : out;
    if (c0 >= c1) return;
    const Linear l = j.layer->slice(c0, c1 - c0);
    float* y = j.y + c0;
    switch (l.dtype) {
        case format::DType::f32:
            j.k->linear_f32(j.x, j.rows, l.in, static_cast<const float*>(l.weight), l.bias, l.out, y, out);
            break;
        case format::DType::f16:
            j.k->linear_f16(j.x, j.rows, l.in, static_cast<const uint16_t*>(l.weight), l.bias, l.out, y, out);
            break;
        case format::DType::i8:
            j.k->linear_i8(j.xq, j.xscale, j.rows, l.in, static_cast<const int8_t*>(l.weight), l.scales, l.bias, l.out,
                           y, out);
            break;
        case format::DType::i32:  // integer plans only: the binder refuses i32 matrices
            return;
    }
    activate_columns(j, y, l.out);
}

}  // namespace

void LinearSplit::allocate(const MemoryPlan& plan) {
    parallel = ParallelFor{};
    parallel.workers = plan.workers();
}

bool linear_split_forward(const Kernels& k, const Linear& layer, const float* x, const int8_t* xq, const float* xscale,
                          size_t rows, float* y, const LinearSplit& split, const format::Activation* then) {
    if (!split.parallel.threaded() || rows == 0) return false;
    const size_t units = (layer.out + LinearSplit::kColumnUnit - 1) / LinearSplit::kColumnUnit;
    const uint64_t macs = uint64_t{rows} * layer.in * layer.out;
    const uint64_t min_task =
        split.parallel.min_task_macs > 0 ? split.parallel.min_task_macs : LinearSplit::kMinTaskMacs;
    uint64_t tasks = macs / min_task;
    if (split.parallel.min_task_macs == 0) {
        const uint64_t weight_tasks =
            uint64_t{layer.in} * layer.out * format::dtype_bytes(layer.dtype) / LinearSplit::kMinTaskWeightBytes;
        if (weight_tasks > tasks) tasks = weight_tasks;
    }
    if (tasks > split.parallel.workers) tasks = split.parallel.workers;
    if (tasks > units) tasks = units;
    if (tasks < 2) return false;
    SplitJob job{&k, &layer, x, xq, xscale, rows, y, units, static_cast<size_t>(tasks), then};
    parallel_run(split.parallel, job.tasks, run_task, &job);
    return true;
}

}  // namespace ax
