// Row-wise work (LayerNorm, activation quantization, residual adds, activations) split over a session's
// workers (runtime/parallel.h) in contiguous ranges of rows or elements. Every row or element is computed by
// the same kernel as on one thread: LayerNorm and quantization depend on their own row only, and element
// ranges start at multiples of kElementUnit, so a kernel's vector body and tail cover the same elements. The
// same bits for every number of workers.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/format.h"
#include "runtime/kernels.h"
#include "runtime/parallel.h"

namespace ax {

// Below this many values a range is not worth a hand-off: these kernels touch each value a few times, about a
// microsecond per 4096 on a desktop core, against a hand-off of about one.
constexpr uint64_t kMinRangeValues = uint64_t{1} << 14;
constexpr size_t kElementUnit = 64;

// fn(arg, first, count) over [0, n) in ranges of whole units (the last may be short), one per task, when the
// ranges hold at least kMinRangeValues values each (values_per_item each item; p->min_task_macs instead when
// set); else once, on this thread.
using RangeTask = void (*)(void* arg, size_t first, size_t count);
void parallel_ranges(const ParallelFor* p, size_t n, size_t unit, size_t values_per_item, RangeTask fn, void* arg);

// quantize_rows_i8 over rows x[0, rows) of width d.
void quantize_rows_split(const Kernels& k, const float* x, size_t rows, size_t d, int8_t* q, float* scales,
                         const ParallelFor* p);

// x[i] += y[i] for i < n.
void add_split(const Kernels& k, float* x, const float* y, size_t n, const ParallelFor* p);

// add_sinusoidal_f32 over rows x[0, rows) of width d, positions from first_position: each row's encoding
// depends on its position only. A value costs a sine or a cosine, several times a LayerNorm's share.
void add_sinusoidal_split(const Kernels& k, float* x, size_t rows, size_t d, size_t first_position,
                          const ParallelFor* p);

}  // namespace ax
