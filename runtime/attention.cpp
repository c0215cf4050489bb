#include "runtime/attention.h"

#include <cmath>

namespace ax {

namespace {

// Below this many multiply-adds (scores and weighted values) a task does not pay for its hand-off. Small
// heads run far below the products' rate (a transpose, a softmax and a few vectors per row): 8 heads of 24
// causal rows, 2^18 multiply-adds, took 12-15 microseconds on one AVX-512 core, 1.3x faster on two.
constexpr uint64_t kMinTaskMacs = uint64_t{1} << 16;
// Tasks per call at most (a flag each on the stack, which a microcontroller's budget counts).
constexpr size_t kMaxRowsTasks = 16;

// attention_rows_f32 over work items (head, group of rows), split into contiguous ranges of items.
struct RowsJob {
    const Kernels* k;
    const AttentionInput* in;
    size_t head_dim, stride, chunks, items, tasks;  // chunks per head; items = nhead * chunks
    float scale;
    float* out;
    bool refused[kMaxRowsTasks];  // per task: the port left the shape to the other kernels
};

void rows_task(void* arg, int index) {
    RowsJob& j = *static_cast<RowsJob*>(arg);
    const size_t t = static_cast<size_t>(index);
    const AttentionInput& in = *j.in;
    const size_t groups = (in.n_q + kAttentionRowGroup - 1) / kAttentionRowGroup;
    j.refused[t] = false;
    for (size_t item = t * j.items / j.tasks; item < (t + 1) * j.items / j.tasks; ++item) {
        const size_t h = item / j.chunks, c = item % j.chunks;
        const size_t r0 = c * groups / j.chunks * kAttentionRowGroup;
        const size_t end = (c + 1) * groups / j.chunks * kAttentionRowGroup;
        const size_t r1 = end < in.n_q ? end : in.n_q;
        if (!j.k->attention_rows_f32(in.q + r0 * in.q_stride + h * j.head_dim, in.q_stride, r1 - r0,
                                     in.k + h * j.head_dim, in.v + h * j.head_dim, in.kv_stride, in.n_kv,
                                     in.first_position + r0, in.causal, j.head_dim, j.scale,
                                     j.out + r0 * j.stride + h * j.head_dim, j.stride)) {
            j.refused[t] = true;  // the shape is the same for every item: all refuse, none has written
            return;
        }
    }
}

// The attention_rows_f32 calls of attend split over the workers; false when not worth it or refused.
bool attend_rows_split(const Kernels& k, const AttentionInput& in, size_t nhead, size_t head_dim, float scale,
                       float* out, size_t stride, const ParallelFor& parallel) {
    if (!parallel.threaded()) return false;
    // Groups of whole row groups, at least one full group each: a chunk that starts at a multiple of
    // kAttentionRowGroup rows and holds 8 rows or more is one the port takes whenever it takes the whole.
    const size_t full_groups = in.n_q / kAttentionRowGroup;
    const uint64_t macs = uint64_t{nhead} * in.n_q * in.n_kv * head_dim * 2;
    const uint64_t min_task = parallel.min_task_macs > 0 ? parallel.min_task_macs : kMinTaskMacs;
    uint64_t tasks = macs / min_task;
    if (tasks > parallel.workers) tasks = parallel.workers;
    if (tasks > kMaxRowsTasks) tasks = kMaxRowsTasks;
    const size_t chunks = full_groups == 0 ? 1 : (full_groups < tasks ? full_groups : static_cast<size_t>(tasks));
    const size_t items = nhead * chunks;
    if (tasks > items) tasks = items;
    if (tasks < 2) return false;
    RowsJob job{&k, &in, head_dim, stride, chunks, items, static_cast<size_t>(tasks), scale, out, {}};
    parallel_run(parallel, job.tasks, rows_task, &job);
    for (size_t t = 0; t < job.tasks; ++t)
        if (job.refused[t]) return false;
    return true;
}

}  // namespace

void attend(const Kernels& k, const AttentionInput& in, size_t nhead, size_t head_dim, float* scores, float* out,
            size_t out_stride, const ParallelFor* parallel) {
    const size_t d = nhead * in.value_dim;
    const size_t stride = out_stride != 0 ? out_stride : d;
    const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
    // Unpadded float keys, values as wide as the keys: a port may take all query rows of a head at once.
    if (k.attention_rows_f32 != nullptr && in.k_scale == nullptr && in.key_valid == nullptr && in.n_kv > 0 &&
        in.residual_scores == nullptr && in.value_dim == head_dim && in.v_stride == in.kv_stride) {
        if (parallel != nullptr && attend_rows_split(k, in, nhead, head_dim, scale, out, stride, *parallel)) return;
        bool done = true;
        for (size_t h = 0; h < nhead && done; ++h)
            done = k.attention_rows_f32(in.q + h * head_dim, in.q_stride, in.n_q, in.k + h * head_dim,
                                        in.v + h * head_dim, in.kv_stride, in.n_kv, in.first_position, in.causal,
                                        head_dim, scale, out + h * head_dim, stride);
        if (done) return;  // the shape is the same for every head: either all are done or none
    }
    for (size_t i = 0; i < in.n_q; ++i) {
        const size_t position = in.first_position + i;
        const size_t visible = in.causal && position + 1 < in.n_kv ? position + 1 : in.n_kv;
        float* out_row = out + i * stride;
        for (size_t c = 0; c < d; ++c) out_row[c] = 0.0f;
        size_t valid = visible;
        if (in.key_valid != nullptr) {
            valid = 0;
            for (size_t j = 0; j < visible; ++j) valid += in.key_valid[j] ? 1 : 0;
            if (valid == 0) continue;  // no key to attend to: the row keeps its zero output
        }
        for (size_t h = 0; h < nhead; ++h) {
            const float* q = in.q + i * in.q_stride + h * head_dim;
            if (in.k_scale != nullptr)
                k.attention_scores_i8(q, in.k_i8 + h * head_dim, in.k_scale, in.kv_stride, visible, head_dim, scale,
                                      scores);
            else
                k.attention_scores_f32(q, in.k + h * head_dim, in.kv_stride, visible, head_dim, scale, scores);
            if (in.residual_scores != nullptr) {
                float* carried = in.residual_scores + (h * in.n_q + i) * in.n_kv;
                for (size_t j = 0; j < visible; ++j) carried[j] = scores[j] = scores[j] + carried[j];
            }
            if (valid == visible) {
                k.softmax_f32(scores, visible);
            } else {
                // Padded keys are left out of the softmax, as a -inf mask does: the valid keys' scores are
                // packed at the front, normalized, then spread back with zero weight on the padded keys.
                size_t n = 0;
                for (size_t j = 0; j < visible; ++j)
                    if (in.key_valid[j]) scores[n++] = scores[j];
                k.softmax_f32(scores, n);
                for (size_t j = visible; j-- > 0;) scores[j] = in.key_valid[j] ? scores[--n] : 0.0f;
            }
            const size_t vd = in.value_dim;
            if (in.v_scale != nullptr)
                k.attention_values_i8(scores, in.v_i8 + h * vd, in.v_scale, in.v_stride, visible, vd, out_row + h * vd);
            else
                k.attention_values_f32(scores, in.v + h * vd, in.v_stride, visible, vd, out_row + h * vd);
        }
    }
}

}  // namespace ax
