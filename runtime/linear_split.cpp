#include "runtime/linear_split.h"

#include "runtime/activation.h"
#include "runtime/fixed_order_f32.h"

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
    size_t tasks;
    const format::Activation* then;
};

// Task t's columns [c0, c1) of every row through the activation.
void activate_columns(const SplitJob& j, float* y, size_t width) {
    if (j.then == nullptr) return;
    for (size_t r = 0; r < j.rows; ++r) activate(*j.k, *j.then, y + r * j.layer->out, width);
}

// Columns [c0, c1) of y = x W^T + b (c0 a multiple of kColumnUnit): one kernel call, as for the whole product.
void run_columns(const Kernels& k, const Linear& layer, const float* x, const int8_t* xq, const float* xscale,
                 size_t rows, float* y, size_t y_stride, size_t c0, size_t c1) {
    const Linear l = layer.slice(c0, c1 - c0);
    y += c0;
    switch (l.dtype) {
        case format::DType::f32:
            if (l.fixed_order)
                linear_f32_fixed_order(x, rows, l.in, static_cast<const float*>(l.weight), l.bias, l.out, y, y_stride);
            else
                k.linear_f32(x, rows, l.in, static_cast<const float*>(l.weight), l.bias, l.out, y, y_stride);
            break;
        case format::DType::f16:
            k.linear_f16(x, rows, l.in, static_cast<const uint16_t*>(l.weight), l.bias, l.out, y, y_stride);
            break;
        case format::DType::i8:
            k.linear_i8(xq, xscale, rows, l.in, static_cast<const int8_t*>(l.weight), l.scales, l.bias, l.out, y,
                        y_stride);
            break;
        case format::DType::i4:
            k.linear_i4(xq, xscale, rows, l.in, static_cast<const uint8_t*>(l.weight), l.group_scales, l.bias, l.out, y,
                        y_stride);
            break;
        case format::DType::i32:  // integer plans only: the binder refuses i32 matrices
            break;
    }
}

// Task t's columns [*c0, *c1) of a product of `out` columns split into `tasks` ranges of whole units.
void task_columns(size_t out, size_t tasks, size_t t, size_t* c0, size_t* c1) {
    const size_t units = (out + LinearSplit::kColumnUnit - 1) / LinearSplit::kColumnUnit;
    *c0 = t * units / tasks * LinearSplit::kColumnUnit;
    const size_t end = (t + 1) * units / tasks * LinearSplit::kColumnUnit;
    *c1 = end < out ? end : out;
}

void run_task(void* arg, int index) {
    const SplitJob& j = *static_cast<const SplitJob*>(arg);
    size_t c0 = 0, c1 = 0;
    task_columns(j.layer->out, j.tasks, static_cast<size_t>(index), &c0, &c1);
    if (c0 >= c1) return;
    run_columns(*j.k, *j.layer, j.x, j.xq, j.xscale, j.rows, j.y, j.layer->out, c0, c1);
    activate_columns(j, j.y + c0, c1 - c0);
}

struct SplitAllJob {
    const Kernels* k;
    const SplitProduct* products;
    size_t count;
    const float* x;
    const int8_t* xq;
    const float* xscale;
    size_t rows;
    size_t tasks;
};

void run_all_task(void* arg, int index) {
    const SplitAllJob& j = *static_cast<const SplitAllJob*>(arg);
    for (size_t p = 0; p < j.count; ++p) {
        const SplitProduct& sp = j.products[p];
        size_t c0 = 0, c1 = 0;
        task_columns(sp.layer.out, j.tasks, static_cast<size_t>(index), &c0, &c1);
        if (c0 < c1) run_columns(*j.k, sp.layer, j.x, j.xq, j.xscale, j.rows, sp.y, sp.y_stride, c0, c1);
    }
}

// How many tasks a split of this much work should have (at most the workers and `units`), below 2 for none.
uint64_t split_tasks(const LinearSplit& split, uint64_t macs, uint64_t weight_bytes, size_t units) {
    const uint64_t min_task =
        split.parallel.min_task_macs > 0 ? split.parallel.min_task_macs : LinearSplit::kMinTaskMacs;
    uint64_t tasks = macs / min_task;
    if (split.parallel.min_task_macs == 0) {
        const uint64_t weight_tasks = weight_bytes / LinearSplit::kMinTaskWeightBytes;
        if (weight_tasks > tasks) tasks = weight_tasks;
    }
    if (tasks > split.parallel.workers) tasks = split.parallel.workers;
    if (tasks > units) tasks = units;
    return tasks;
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
    const uint64_t tasks = split_tasks(split, uint64_t{rows} * layer.in * layer.out,
                                       format::dtype_data_bytes(layer.dtype, uint64_t{layer.in} * layer.out), units);
    if (tasks < 2) return false;
    SplitJob job{&k, &layer, x, xq, xscale, rows, y, static_cast<size_t>(tasks), then};
    parallel_run(split.parallel, job.tasks, run_task, &job);
    return true;
}

bool linear_split_forward_all(const Kernels& k, const SplitProduct* products, size_t count, const float* x,
                              const int8_t* xq, const float* xscale, size_t rows, const LinearSplit& split) {
    if (!split.parallel.threaded() || rows == 0 || count == 0) return false;
    uint64_t macs = 0, weight_bytes = 0;
    size_t units = 0;  // of the widest product: a narrower one leaves the last tasks without columns of it
    for (size_t p = 0; p < count; ++p) {
        const Linear& l = products[p].layer;
        macs += uint64_t{rows} * l.in * l.out;
        weight_bytes += format::dtype_data_bytes(l.dtype, uint64_t{l.in} * l.out);
        const size_t u = (l.out + LinearSplit::kColumnUnit - 1) / LinearSplit::kColumnUnit;
        if (u > units) units = u;
    }
    const uint64_t tasks = split_tasks(split, macs, weight_bytes, units);
    if (tasks < 2) return false;
    SplitAllJob job{&k, products, count, x, xq, xscale, rows, static_cast<size_t>(tasks)};
    parallel_run(split.parallel, job.tasks, run_all_task, &job);
    return true;
}

}  // namespace ax
