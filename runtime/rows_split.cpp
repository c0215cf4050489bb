#include "runtime/rows_split.h"

namespace ax {

namespace {

struct RangeJob {
    RangeTask fn;
    void* arg;
    size_t n, unit, units, tasks;
};

void range_task(void* arg, int index) {
    const RangeJob& j = *static_cast<const RangeJob*>(arg);
    const size_t t = static_cast<size_t>(index);
    const size_t first = t * j.units / j.tasks * j.unit;
    const size_t end = (t + 1) * j.units / j.tasks * j.unit;
    const size_t last = end < j.n ? end : j.n;
    if (first < last) j.fn(j.arg, first, last - first);
}

struct QuantizeJob {
    const Kernels* k;
    const float* x;
    size_t d;
    int8_t* q;
    float* scales;
};

void quantize_range(void* arg, size_t first, size_t count) {
    const QuantizeJob& j = *static_cast<const QuantizeJob*>(arg);
    j.k->quantize_rows_i8(j.x + first * j.d, count, j.d, j.q + first * j.d, j.scales + first);
}

struct AddJob {
    const Kernels* k;
    float* x;
    const float* y;
};

void add_range(void* arg, size_t first, size_t count) {
    const AddJob& j = *static_cast<const AddJob*>(arg);
    j.k->add_f32(j.x + first, j.y + first, count);
}

struct SinusoidalJob {
    const Kernels* k;
    float* x;
    size_t d, first_position;
};

void sinusoidal_range(void* arg, size_t first, size_t count) {
    const SinusoidalJob& j = *static_cast<const SinusoidalJob*>(arg);
    j.k->add_sinusoidal_f32(j.x + first * j.d, count, j.d, j.first_position + first);
}

// A sine or cosine costs about as much as this many values of the other row-wise steps (counted so that a
// d_model 64 encoder's 96 rows stay on one thread: split, they made a forecast 5% slower on two threads).
constexpr size_t kSinusoidalCost = 4;

}  // namespace

void parallel_ranges(const ParallelFor* p, size_t n, size_t unit, size_t values_per_item, RangeTask fn, void* arg) {
    if (n == 0) return;
    const size_t units = (n + unit - 1) / unit;
    const uint64_t min_values = p != nullptr && p->min_task_macs > 0 ? p->min_task_macs : kMinRangeValues;
    uint64_t tasks = p != nullptr && p->threaded() ? uint64_t{n} * values_per_item / min_values : 1;
    if (p != nullptr && tasks > p->workers) tasks = p->workers;
    if (tasks > units) tasks = units;
    if (tasks < 2) {
        fn(arg, 0, n);
        return;
    }
    RangeJob job{fn, arg, n, unit, units, static_cast<size_t>(tasks)};
    parallel_run(*p, job.tasks, range_task, &job);
}

void quantize_rows_split(const Kernels& k, const float* x, size_t rows, size_t d, int8_t* q, float* scales,
                         const ParallelFor* p) {
    QuantizeJob job{&k, x, d, q, scales};
    // Two passes over each row (its largest magnitude, then the values): a value counts twice. The rows
    // usually come from a step split the same way (a LayerNorm, the positions, an encoder layer's rows), each
    // task's rows then in its own core's cache: at d_model 256 the 96 rows of an encoder took 10-14 us on one
    // thread after a split step, most of it reading the other core's rows, and 4 us split.
    parallel_ranges(p, rows, 1, 2 * d, quantize_range, &job);
}

void add_split(const Kernels& k, float* x, const float* y, size_t n, const ParallelFor* p) {
    AddJob job{&k, x, y};
    parallel_ranges(p, n, kElementUnit, 1, add_range, &job);
}

void add_sinusoidal_split(const Kernels& k, float* x, size_t rows, size_t d, size_t first_position,
                          const ParallelFor* p) {
    SinusoidalJob job{&k, x, d, first_position};
    parallel_ranges(p, rows, 1, d * kSinusoidalCost, sinusoidal_range, &job);
}

}  // namespace ax
