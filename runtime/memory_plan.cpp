#include "runtime/memory_plan.h"

#include "runtime/bytes.h"

namespace ax {

namespace {

bool lifetimes_overlap(const MemoryPlan::Buffer& a, const MemoryPlan::Buffer& b) {
    return !(a.last < b.first || b.last < a.first);
}

size_t align_up(size_t n) { return (n + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment; }

}  // namespace

MemoryPlan::MemoryPlan(const MemoryPlan& solved, void* base, size_t capacity)
    : workers_(solved.workers_), planned_(&solved), base_(static_cast<uint8_t*>(base)) {
    failed_ = !solved.solved_ || solved.failed_ || base == nullptr || capacity < solved.total_;
}

void* MemoryPlan::request(const char* name, uint64_t count, size_t size, Phase first, Phase last) {
    uint64_t bytes = 0;
    if (last < first || mul_overflows(count, size, &bytes) || bytes > SIZE_MAX / 2 || count_ == kMaxBuffers) {
        failed_ = true;
        return nullptr;
    }
    const size_t i = count_++;
    buffers_[i] = Buffer{name, static_cast<size_t>(bytes), 0, first, last};
    if (planned_ == nullptr || failed_) return nullptr;
    // Placing: the i-th request must be the i-th planned one, or the layout would not be the one counted.
    const Buffer& p = planned_->buffers_[i];
    if (i >= planned_->count_ || p.bytes != buffers_[i].bytes || p.first != first || p.last != last) {
        failed_ = true;
        return nullptr;
    }
    return base_ + p.offset;
}

bool MemoryPlan::solve() {
    solved_ = true;
    total_ = 0;
    if (failed_ || planned_ != nullptr) return false;
    // Largest first, ties in request order: deterministic, and the big activations (which decide the peak)
    // get the low offsets, the small ones fill the gaps between them.
    size_t order[kMaxBuffers];
    for (size_t i = 0; i < count_; ++i) order[i] = i;
    for (size_t i = 1; i < count_; ++i)
        for (size_t j = i; j > 0 && buffers_[order[j]].bytes > buffers_[order[j - 1]].bytes; --j) {
            const size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (size_t n = 0; n < count_; ++n) {
        Buffer& b = buffers_[order[n]];
        const size_t need = align_up(b.bytes);
        // The lowest offset at which b overlaps no placed buffer whose lifetime meets b's: try 0 and the
        // end of every such buffer, keep the smallest that fits.
        size_t best = SIZE_MAX;
        for (size_t c = 0; c <= n; ++c) {
            size_t at = 0;
            if (c < n) {
                const Buffer& o = buffers_[order[c]];
                if (!lifetimes_overlap(o, b)) continue;
                at = align_up(o.offset + o.bytes);
            }
            if (at >= best) continue;
            bool free = true;
            for (size_t m = 0; m < n && free; ++m) {
                const Buffer& o = buffers_[order[m]];
                if (lifetimes_overlap(o, b) && at < o.offset + align_up(o.bytes) && o.offset < at + need) free = false;
            }
            if (free) best = at;
        }
        b.offset = best;
        uint64_t end = 0;
        if (add_overflows(best, b.bytes, &end) || end > SIZE_MAX / 2) {
            failed_ = true;
            return false;
        }
        if (end > total_) total_ = static_cast<size_t>(end);
    }
    return true;
}

}  // namespace ax
