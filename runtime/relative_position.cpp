#include "runtime/relative_position.h"

#include <cmath>

namespace ax {

size_t t5_relative_bucket(int64_t relative, bool bidirectional, size_t num_buckets, size_t max_distance) {
    size_t bucket = 0;
    uint64_t n = 0;
    if (bidirectional) {
        num_buckets /= 2;
        if (relative > 0) bucket += num_buckets;
        n = static_cast<uint64_t>(relative < 0 ? -relative : relative);
    } else {
        n = relative < 0 ? static_cast<uint64_t>(-relative) : 0;
    }
    const size_t max_exact = num_buckets / 2;
    if (n < max_exact) return bucket + static_cast<size_t>(n);
    // Logarithmic above max_exact. In double precision (the result is an integer: a last-bit difference matters
    // only where the exact value is a whole number, such as distance 16 of the default 32 buckets, which the
    // nudge keeps on the exact side, where PyTorch's float32 lands too: tests/test_chronos_bolt_pieces.cpp
    // compares every distance up to 600).
    const double v = std::log(static_cast<double>(n) / static_cast<double>(max_exact)) /
                     std::log(static_cast<double>(max_distance) / static_cast<double>(max_exact)) *
                     static_cast<double>(num_buckets - max_exact);
    size_t large = max_exact + static_cast<size_t>(std::floor(v + 1e-9));
    if (large > num_buckets - 1) large = num_buckets - 1;
    return bucket + large;
}

RelativeBiasSpan relative_bias_span(size_t first_query, size_t n_q, size_t n_k) {
    RelativeBiasSpan s;
    s.origin = first_query + n_q - 1;
    s.span = s.origin + n_k;
    return s;
}

void relative_bias_by_distance(const float* table, size_t nhead, size_t num_buckets, size_t max_distance,
                               bool bidirectional, size_t first_query, size_t n_q, size_t n_k, float* bias) {
    const RelativeBiasSpan s = relative_bias_span(first_query, n_q, n_k);
    for (size_t i = 0; i < s.span; ++i) {
        const int64_t relative = static_cast<int64_t>(i) - static_cast<int64_t>(s.origin);
        const size_t b = t5_relative_bucket(relative, bidirectional, num_buckets, max_distance);
        for (size_t h = 0; h < nhead; ++h) bias[h * s.span + i] = table[b * nhead + h];
    }
}

}  // namespace ax
