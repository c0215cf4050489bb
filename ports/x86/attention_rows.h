// Attention for a block of query rows of one head (Kernels::attention_rows_f32), written once for the x86
// float vector widths and instantiated per instruction set (AVX2 on YMM, AVX-512 on ZMM). Internal linkage:
// each instantiating file compiles it with its own flags.
//
// Row by row, a query's scores need one horizontal sum per key, and its weighted values one add chain per
// output vector: both cost more than the multiply-adds for heads of 16-64 values. With the whole block at
// hand:
// - the head's keys are transposed once (kt[i][j] = k[j][i], keys zero-padded to whole vectors), so a
//   query's scores are sums of broadcast q[i] times vectors of keys: no horizontal sums; two query rows
//   share every load of kt;
// - the weighted values of up to 8 rows share each load of a value row, and 8-32 independent accumulators
//   hide the multiply-add latency.
// Scores are (sum over i in turn of q[i] * k[j][i], fused) * scale; softmax is the port's own; the values
// sum over keys in turn, fused. The results differ from the row-by-row kernels only in rounding.
//
// Limits (outside them the function returns false and the caller goes row by row): at least kMinRows rows
// (transposing pays back over several rows), heads of at most kMaxHead values, at most kMaxKeys keys and
// kMaxTransposed values of transposed keys: 32 KB of kt and 16 KB of scores on the stack at most.
#pragma once
#include <immintrin.h>

#include <cstddef>

#include "ports/x86/avx2_util.h"

namespace ax::avx2 {
namespace {

namespace attention_rows_detail {

constexpr size_t kMinRows = 4;
constexpr size_t kMaxHead = 64;
constexpr size_t kMaxKeys = 512;
constexpr size_t kMaxTransposed = 8192;
constexpr size_t kBlockRows = 8;  // rows whose scores are held at once
constexpr size_t kKeyPad = 16;    // keys padded to a multiple of the widest vector

inline size_t min_of(size_t a, size_t b) { return a < b ? a : b; }

// kt[i * kp + j] = k[j * stride + i] for i < n, j < n_keys; zero for n_keys <= j < kp. 8x8 blocks go
// through registers (AVX2 shuffles, available to every instantiating file); the edges one value at a time.
inline void transpose_keys(const float* k, size_t stride, size_t n_keys, size_t n, size_t kp, float* kt) {
    size_t j = 0;
    for (; j + 8 <= n_keys; j += 8) {
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            __m256 b[8];
            AX_AVX2_UNROLL
            for (size_t t = 0; t < 8; ++t) b[t] = _mm256_loadu_ps(k + (j + t) * stride + i);
            detail::transpose8(b);
            AX_AVX2_UNROLL
            for (size_t t = 0; t < 8; ++t) _mm256_store_ps(kt + (i + t) * kp + j, b[t]);
        }
        for (; i < n; ++i)
            for (size_t t = 0; t < 8; ++t) kt[i * kp + j + t] = k[(j + t) * stride + i];
    }
    for (size_t i = 0; i < n; ++i) {
        for (size_t jj = j; jj < n_keys; ++jj) kt[i * kp + jj] = k[jj * stride + i];
        for (size_t jj = n_keys; jj < kp; ++jj) kt[i * kp + jj] = 0.0f;
    }
}

// Scores of R query rows against keys [j0, j0 + U * kLanes) of kt, times scale, into s[r * kp + j].
template <class T, size_t R, size_t U>
inline void scores_tile(const float* const (&q)[R], const float* kt, size_t kp, size_t n, size_t j0, float scale,
                        float* s) {
    using V = typename T::V;
    V acc[R][U];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t u = 0; u < U; ++u) acc[r][u] = T::zero();
    const float* col = kt + j0;
    for (size_t i = 0; i < n; ++i, col += kp) {
        V kv[U];
        AX_AVX2_UNROLL
        for (size_t u = 0; u < U; ++u) kv[u] = T::load(col + u * T::kLanes);
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) {
            const V qi = T::bcast(q[r][i]);
            AX_AVX2_UNROLL
            for (size_t u = 0; u < U; ++u) acc[r][u] = T::fmadd(qi, kv[u], acc[r][u]);
        }
    }
    const V sv = T::bcast(scale);
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t u = 0; u < U; ++u) T::store(s + r * kp + j0 + u * T::kLanes, T::mul(acc[r][u], sv));
}

// Scores of R rows for keys [0, keys) (keys a multiple of kLanes, at most kp).
template <class T, size_t R>
inline void scores_rows(const float* const (&q)[R], const float* kt, size_t kp, size_t n, size_t keys, float scale,
                        float* s) {
    constexpr size_t U = T::kScoreVecs;
    size_t j = 0;
    for (; j + U * T::kLanes <= keys; j += U * T::kLanes) scores_tile<T, R, U>(q, kt, kp, n, j, scale, s);
    for (; j < keys; j += T::kLanes) scores_tile<T, R, 1>(q, kt, kp, n, j, scale, s);
}

// out rows [0, R) (stride out_stride), values [c0, c0 + NV * kLanes) clipped to n, from weights p (R rows,
// stride kp) over the keys row r sees, [0, visible[r]). Keys past a row's own count are left out, not added
// with weight zero (0 * v is NaN for an infinite v, and the keys past a row depend on the rows beside it): a
// row's bits do not depend on the other rows of the call.
template <class T, size_t R, size_t NV>
inline void values_tile(const float* p, size_t kp, const float* v, size_t stride, const size_t* visible, size_t n,
                        size_t c0, float* out, size_t out_stride) {
    using V = typename T::V;
    using M = typename T::Mask;
    M m[NV];
    AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) {
        const size_t c = c0 + t * T::kLanes;
        m[t] = T::first_lanes(c < n ? n - c : 0);
    }
    V acc[R][NV];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) acc[r][t] = T::zero();
    size_t all = visible[0], most = visible[0];  // keys every row sees; keys some row sees
    for (size_t r = 1; r < R; ++r) {
        all = min_of(all, visible[r]);
        most = visible[r] > most ? visible[r] : most;
    }
    const float* x = v + c0;
    size_t j = 0;
    for (; j < all; ++j, x += stride) {
        V vv[NV];
        AX_AVX2_UNROLL
        for (size_t t = 0; t < NV; ++t) vv[t] = T::load_masked(x + t * T::kLanes, m[t]);
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) {
            const V a = T::bcast(p[r * kp + j]);
            AX_AVX2_UNROLL
            for (size_t t = 0; t < NV; ++t) acc[r][t] = T::fmadd(a, vv[t], acc[r][t]);
        }
    }
    for (; j < most; ++j, x += stride) {
        V vv[NV];
        AX_AVX2_UNROLL
        for (size_t t = 0; t < NV; ++t) vv[t] = T::load_masked(x + t * T::kLanes, m[t]);
        for (size_t r = 0; r < R; ++r) {
            if (j >= visible[r]) continue;
            const V a = T::bcast(p[r * kp + j]);
            AX_AVX2_UNROLL
            for (size_t t = 0; t < NV; ++t) acc[r][t] = T::fmadd(a, vv[t], acc[r][t]);
        }
    }
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t t = 0; t < NV; ++t) T::store_masked(out + r * out_stride + c0 + t * T::kLanes, m[t], acc[r][t]);
}

// Up to R rows (rows <= R) at a time, NV vectors of outputs per row.
template <class T, size_t R, size_t NV>
inline void values_rows(const float* p, size_t kp, size_t rows, const float* v, size_t stride, const size_t* visible,
                        size_t n, size_t c0, float* out, size_t out_stride) {
    if constexpr (R > 0) {
        size_t r = 0;
        for (; r + R <= rows; r += R)
            values_tile<T, R, NV>(p + r * kp, kp, v, stride, visible + r, n, c0, out + r * out_stride, out_stride);
        if (r < rows)
            values_rows<T, R - 1, NV>(p + r * kp, kp, rows - r, v, stride, visible + r, n, c0, out + r * out_stride,
                                      out_stride);
    }
}

template <class T, size_t NV>
inline void values_block(const float* p, size_t kp, size_t rows, const float* v, size_t stride, const size_t* visible,
                         size_t n, size_t c0, float* out, size_t out_stride) {
    // As many rows as keep R x NV accumulators within the port's budget.
    constexpr size_t R = T::kValueAccumulators / NV < kBlockRows ? T::kValueAccumulators / NV : kBlockRows;
    static_assert(R >= 1, "one row at least");
    values_rows<T, R, NV>(p, kp, rows, v, stride, visible, n, c0, out, out_stride);
}

template <class T>
inline void values_all(const float* p, size_t kp, size_t rows, const float* v, size_t stride, const size_t* visible,
                       size_t n, float* out, size_t out_stride) {
    // Two vectors of outputs per pass (the second masked when n ends inside it), one for a last short piece.
    size_t c = 0;
    for (; c + T::kLanes < n; c += 2 * T::kLanes)
        values_block<T, 2>(p, kp, rows, v, stride, visible, n, c, out, out_stride);
    if (c < n) values_block<T, 1>(p, kp, rows, v, stride, visible, n, c, out, out_stride);
}

}  // namespace attention_rows_detail

// T supplies: V, Mask, kLanes, kScoreVecs (vectors of keys per scores pass, two rows), kValueAccumulators,
// zero(), load(aligned), bcast(float), fmadd(a, b, c) = a * b + c, mul, store(aligned), first_lanes(count),
// load_masked / store_masked (unaligned, lanes past the mask not touched).
template <class T>
bool attention_rows(const float* q, size_t q_stride, size_t rows, const float* k, const float* v, size_t kv_stride,
                    size_t n_keys, size_t first_position, bool causal, size_t n, float scale,
                    void (*softmax)(float*, size_t), float* out, size_t out_stride) {
    using namespace attention_rows_detail;
    const size_t kp = (n_keys + kKeyPad - 1) / kKeyPad * kKeyPad;
    if (rows < kMinRows || n == 0 || n > kMaxHead || n_keys == 0 || n_keys > kMaxKeys || kp * n > kMaxTransposed)
        return false;
    alignas(64) float kt[kMaxTransposed];
    alignas(64) float s[kBlockRows * kMaxKeys];
    transpose_keys(k, kv_stride, n_keys, n, kp, kt);
    for (size_t r0 = 0; r0 < rows; r0 += kBlockRows) {
        const size_t nb = min_of(kBlockRows, rows - r0);
        // Keys row r sees: all, or (causal) those up to its own position.
        size_t visible[kBlockRows];
        size_t most = 0;
        for (size_t r = 0; r < nb; ++r) {
            const size_t position = first_position + r0 + r;
            visible[r] = causal && position + 1 < n_keys ? position + 1 : n_keys;
            if (visible[r] > most) most = visible[r];
        }
        const size_t keys = (most + T::kLanes - 1) / T::kLanes * T::kLanes;
        size_t r = 0;
        for (; r + 2 <= nb; r += 2) {
            const float* qr[2] = {q + (r0 + r) * q_stride, q + (r0 + r + 1) * q_stride};
            scores_rows<T, 2>(qr, kt, kp, n, keys, scale, s + r * kp);
        }
        if (r < nb) {
            const float* qr[1] = {q + (r0 + r) * q_stride};
            scores_rows<T, 1>(qr, kt, kp, n, keys, scale, s + r * kp);
        }
        for (r = 0; r < nb; ++r) softmax(s + r * kp, visible[r]);
        values_all<T>(s, kp, nb, v, kv_stride, visible, n, out + r0 * out_stride, out_stride);
    }
    return true;
}

}  // namespace
}  // namespace ax::avx2
