// T5's bucketed relative position bias: the distance from a query to a key (key position - query position)
// falls into one of num_buckets buckets, exact for small distances and logarithmic up to max_distance, and
// each head adds its learned value of that bucket to the attention score. The encoder's buckets are
// bidirectional (half for keys before the query, half after); the decoder's causal ones see only keys at or
// before the query. The first layer of a stack holds the table, and every layer of the stack adds the same bias.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

// The bucket of relative position `relative` (key - query), as Hugging Face's T5 computes it.
size_t t5_relative_bucket(int64_t relative, bool bidirectional, size_t num_buckets, size_t max_distance);

// A stack's relative bias for queries at positions [first_query, first_query + n_q) against keys [0, n_k), by
// distance rather than by pair: bias[h * span + (key - query) + origin] with span = first_query + n_q + n_k - 1
// and origin = first_query + n_q - 1 (relative_bias_span gives both). table: [num_buckets, nhead] as stored.
struct RelativeBiasSpan {
    size_t span = 0;
    size_t origin = 0;
};
RelativeBiasSpan relative_bias_span(size_t first_query, size_t n_q, size_t n_k);
void relative_bias_by_distance(const float* table, size_t nhead, size_t num_buckets, size_t max_distance,
                               bool bidirectional, size_t first_query, size_t n_q, size_t n_k, float* bias);

}  // namespace ax
