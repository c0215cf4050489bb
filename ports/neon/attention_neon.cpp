// NEON attention: one query's scores against a head's keys and the weighted sum of its values, float32 and
// over an int8 key/value cache (runtime/kernels.h).
//
// Small heads (4..32 values; the benchmark's 16) take paths whose only work per key is its arithmetic: a head
// of q or of out stays in registers for the whole call, each key row is one or two loads, and four keys share
// every other instruction (one pairwise reduction and one store per four scores; one load of four weights
// per four value rows, each used by lane).
#if defined(__ARM_NEON)
#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ports/generic/generic.h"
#include "ports/neon/neon.h"
#include "ports/neon/neon_util.h"

// Every helper is inlined into the four kernels, so that make insn (which counts by symbol) sees all of a
// kernel's instructions under its own name.
#define AUSPEX_ATTN_INLINE inline __attribute__((always_inline))

namespace ax::neon {

namespace {

// Heads up to this many values take the small-head paths: as many registers as q (or out) needs and the
// four keys' accumulators and loads still fit (32 registers on AArch64, 16 on ARMv7).
#if defined(__aarch64__)
constexpr size_t kSmallHeadBlocks = 8;
#else
constexpr size_t kSmallHeadBlocks = 4;
#endif

// The NB four-float blocks of one row, in as few loads as the instruction set has.
template <size_t NB>
AUSPEX_ATTN_INLINE void load_row(const float* p, float32x4_t (&v)[NB]) {
    size_t b = 0;
#if defined(__aarch64__)
    AUSPEX_NEON_UNROLL
    for (; b + 4 <= NB; b += 4) {
        const float32x4x4_t x = vld1q_f32_x4(p + 4 * b);
        v[b] = x.val[0];
        v[b + 1] = x.val[1];
        v[b + 2] = x.val[2];
        v[b + 3] = x.val[3];
    }
    AUSPEX_NEON_UNROLL
    for (; b + 2 <= NB; b += 2) {
        const float32x4x2_t x = vld1q_f32_x2(p + 4 * b);
        v[b] = x.val[0];
        v[b + 1] = x.val[1];
    }
#endif
    AUSPEX_NEON_UNROLL
    for (; b < NB; ++b) v[b] = vld1q_f32(p + 4 * b);
}

// a * lane L of p (an IEEE multiply of the same two values as p[L] * a).
template <int L>
AUSPEX_ATTN_INLINE float32x4_t mul_lane(float32x4_t a, float32x4_t p) {
#if defined(__aarch64__)
    return vmulq_laneq_f32(a, p, L);
#else
    return vmulq_lane_f32(a, L < 2 ? vget_low_f32(p) : vget_high_f32(p), L & 1);
#endif
}

// The four partial sums of q . k for one key row.
template <size_t NB>
AUSPEX_ATTN_INLINE float32x4_t dot_row(const float32x4_t (&qv)[NB], const float* k) {
    float32x4_t kv[NB];
    load_row<NB>(k, kv);
    float32x4_t s = vmulq_f32(qv[0], kv[0]);
    AUSPEX_NEON_UNROLL
    for (size_t b = 1; b < NB; ++b) s = detail::mla(s, qv[b], kv[b]);
    return s;
}

template <size_t NB>
AUSPEX_ATTN_INLINE void scores_small(const float* q, const float* k, size_t stride, size_t n_keys, float scale,
                                     float* scores) {
    float32x4_t qv[NB];
    load_row<NB>(q, qv);
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4, k += 4 * stride) {
        const float32x4_t s0 = dot_row<NB>(qv, k), s1 = dot_row<NB>(qv, k + stride);
        const float32x4_t s2 = dot_row<NB>(qv, k + 2 * stride), s3 = dot_row<NB>(qv, k + 3 * stride);
        vst1q_f32(scores + j, vmulq_n_f32(detail::hsum4(s0, s1, s2, s3), scale));
    }
    for (; j < n_keys; ++j, k += stride) scores[j] = detail::hsum(dot_row<NB>(qv, k)) * scale;
}

// A row's 4 * NB values as floats: float rows loaded, int8 rows widened (int8 rows: attention over an int8 cache).
template <size_t NB>
AUSPEX_ATTN_INLINE void row_floats(const float* row, float32x4_t (&f)[NB]) {
    load_row<NB>(row, f);
}
template <size_t NB>
AUSPEX_ATTN_INLINE void row_floats(const int8_t* row, float32x4_t (&f)[NB]);

// y += lane L of a times the row, a multiply then an add per value, as generic's loops do.
template <int L, size_t NB, class T>
AUSPEX_ATTN_INLINE void add_row(float32x4_t (&y)[NB], float32x4_t a, const T* row) {
    float32x4_t r[NB];
    row_floats<NB>(row, r);
    AUSPEX_NEON_UNROLL
    for (size_t b = 0; b < NB; ++b) y[b] = vaddq_f32(y[b], mul_lane<L>(r[b], a));
}

// 4 * NB columns of out across n_keys rows of v with weights a[j]: out += a[j] * v[j] per column, key after
// key. For float rows a is p; for an int8 cache it is p[j] * vscale[j] and v[j] is float(the byte).
template <size_t NB, class T>
AUSPEX_ATTN_INLINE void values_columns(const float* a, const T* v, size_t stride, size_t n_keys, float* out) {
    float32x4_t y[NB];
    load_row<NB>(out, y);
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4, v += 4 * stride) {
        const float32x4_t a4 = vld1q_f32(a + j);
        add_row<0, NB>(y, a4, v);
        add_row<1, NB>(y, a4, v + stride);
        add_row<2, NB>(y, a4, v + 2 * stride);
        add_row<3, NB>(y, a4, v + 3 * stride);
    }
    for (; j < n_keys; ++j, v += stride) add_row<0, NB>(y, vdupq_n_f32(a[j]), v);
    AUSPEX_NEON_UNROLL
    for (size_t b = 0; b < NB; ++b) vst1q_f32(out + 4 * b, y[b]);
}

// Any other head size: four keys at a time, q loaded per block.
AUSPEX_ATTN_INLINE void scores_any(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                                   float* scores) {
    const size_t n4 = n & ~size_t{3};
    size_t j = 0;
    for (; j + 4 <= n_keys; j += 4) {
        const float* k0 = k + j * stride;
        const float* k1 = k0 + stride;
        const float* k2 = k1 + stride;
        const float* k3 = k2 + stride;
        float32x4_t s0 = vdupq_n_f32(0.0f), s1 = s0, s2 = s0, s3 = s0;
        size_t i0 = 0;
#if defined(__aarch64__)
        // 16 values of q and of each key per step, each in one four-register load.
        for (; i0 + 16 <= n4; i0 += 16) {
            const float32x4x4_t qv = vld1q_f32_x4(q + i0);
            const float32x4x4_t a = vld1q_f32_x4(k0 + i0), b = vld1q_f32_x4(k1 + i0);
            const float32x4x4_t c = vld1q_f32_x4(k2 + i0), d = vld1q_f32_x4(k3 + i0);
            for (int h = 0; h < 4; ++h) {
                s0 = detail::mla(s0, qv.val[h], a.val[h]);
                s1 = detail::mla(s1, qv.val[h], b.val[h]);
                s2 = detail::mla(s2, qv.val[h], c.val[h]);
                s3 = detail::mla(s3, qv.val[h], d.val[h]);
            }
        }
#endif
        for (size_t i = i0; i < n4; i += 4) {
            const float32x4_t qv = vld1q_f32(q + i);
            s0 = detail::mla(s0, qv, vld1q_f32(k0 + i));
            s1 = detail::mla(s1, qv, vld1q_f32(k1 + i));
            s2 = detail::mla(s2, qv, vld1q_f32(k2 + i));
            s3 = detail::mla(s3, qv, vld1q_f32(k3 + i));
        }
        float32x4_t sums = detail::hsum4(s0, s1, s2, s3);
        if (n4 < n) {
            float tail[4] = {0.0f, 0.0f, 0.0f, 0.0f};
            for (size_t i = n4; i < n; ++i) {
                tail[0] += q[i] * k0[i];
                tail[1] += q[i] * k1[i];
                tail[2] += q[i] * k2[i];
                tail[3] += q[i] * k3[i];
            }
            sums = vaddq_f32(sums, vld1q_f32(tail));
        }
        vst1q_f32(scores + j, vmulq_n_f32(sums, scale));
    }
    for (; j < n_keys; ++j) scores[j] = dot_f32(q, k + j * stride, n) * scale;
}

// Any other head size: blocks of out stay in registers across the keys.
AUSPEX_ATTN_INLINE void values_any(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        float32x4_t y0 = vld1q_f32(out + i), y1 = vld1q_f32(out + i + 4);
        float32x4_t y2 = vld1q_f32(out + i + 8), y3 = vld1q_f32(out + i + 12);
        const float* x = v + i;
        for (size_t j = 0; j < n_keys; ++j, x += stride) {
            const float32x4_t a = vdupq_n_f32(p[j]);
            y0 = vaddq_f32(y0, vmulq_f32(a, vld1q_f32(x)));
            y1 = vaddq_f32(y1, vmulq_f32(a, vld1q_f32(x + 4)));
            y2 = vaddq_f32(y2, vmulq_f32(a, vld1q_f32(x + 8)));
            y3 = vaddq_f32(y3, vmulq_f32(a, vld1q_f32(x + 12)));
        }
        vst1q_f32(out + i, y0);
        vst1q_f32(out + i + 4, y1);
        vst1q_f32(out + i + 8, y2);
        vst1q_f32(out + i + 12, y3);
    }
    for (; i + 4 <= n; i += 4) {
        float32x4_t y0 = vld1q_f32(out + i);
        for (size_t j = 0; j < n_keys; ++j)
            y0 = vaddq_f32(y0, vmulq_f32(vdupq_n_f32(p[j]), vld1q_f32(v + j * stride + i)));
        vst1q_f32(out + i, y0);
    }
    for (; i < n; ++i) {
        float y = out[i];
        for (size_t j = 0; j < n_keys; ++j) y += p[j] * v[j * stride + i];
        out[i] = y;
    }
}

// n / 4 when a head of n values takes the small-head paths, else 0.
AUSPEX_ATTN_INLINE size_t small_head_blocks(size_t n) { return n % 4 == 0 && n / 4 <= kSmallHeadBlocks ? n / 4 : 0; }

// The int8 cache kernels must give generic's bits: every score is its own running sum, q[i] * float(k[i])
// added for i in turn, so the lanes hold four keys (a transposed load) and never four positions of one key;
// every output column is its own running sum over the keys in turn. AArch64's vector arithmetic is the
// scalar's IEEE arithmetic. ARMv7 NEON flushes denormal inputs and results to zero and returns the default
// NaN, so there the vector loops run only on inputs where neither can show (exact_inputs) and the final
// scaling is scalar VFP code: if every addend of a sum is zero or a multiple of 2^-126, so is every partial
// sum, which is then zero or normal. A value x is such a multiple when x is 0, infinite, or |x| >= 2^-103
// (its ulp is then >= 2^-126); q[i] with |q[i]| >= 2^-100 makes q[i] * float(k) a multiple of 2^-123.
#if defined(__aarch64__)
constexpr bool kFlushes = false;
#else
constexpr bool kFlushes = true;
#endif

// Every x[i] (stride apart) is NaN-free and 0, infinite or at least 2^(min_exponent - 127) in magnitude,
// judged on its bits (a NEON compare would flush).
AUSPEX_ATTN_INLINE bool exact_inputs(const float* x, size_t n, uint32_t min_exponent) {
    for (size_t i = 0; i < n; ++i) {
        uint32_t bits;
        std::memcpy(&bits, x + i, sizeof bits);
        bits &= 0x7fffffffu;
        if (bits > 0x7f800000u || (bits != 0 && bits < (min_exponent << 23))) return false;
    }
    return true;
}
constexpr uint32_t kQueryMinExponent = 127 - 100;   // |q| >= 2^-100: products multiples of 2^-123
constexpr uint32_t kAddendMinExponent = 127 - 103;  // |x| >= 2^-103: x a multiple of 2^-126

// The transposed bytes of four key rows at 8 positions: g.val[0] holds positions 0..3, g.val[1] 4..7, each
// position as its four keys' bytes in key order.
AUSPEX_ATTN_INLINE int16x8x2_t transpose4(int8x16_t k01, int8x16_t k23) {
    return vzipq_s16(vreinterpretq_s16_s8(k01), vreinterpretq_s16_s8(k23));
}

// The int16 halves of w as floats.
AUSPEX_ATTN_INLINE float32x4_t low_to_float(int16x8_t w) { return vcvtq_f32_s32(vmovl_s16(vget_low_s16(w))); }
AUSPEX_ATTN_INLINE float32x4_t high_to_float(int16x8_t w) { return vcvtq_f32_s32(vmovl_s16(vget_high_s16(w))); }

// sum + q[i] * float(key byte of position i) for the four keys, four positions i in turn.
AUSPEX_ATTN_INLINE float32x4_t add_positions4(float32x4_t sum, float32x4_t q4, int8x16_t g) {
    const int16x8_t w0 = vmovl_s8(vget_low_s8(g)), w1 = vmovl_s8(vget_high_s8(g));
    sum = vaddq_f32(sum, mul_lane<0>(low_to_float(w0), q4));
    sum = vaddq_f32(sum, mul_lane<1>(high_to_float(w0), q4));
    sum = vaddq_f32(sum, mul_lane<2>(low_to_float(w1), q4));
    return vaddq_f32(sum, mul_lane<3>(high_to_float(w1), q4));
}

AUSPEX_ATTN_INLINE float32x4_t add_positions8(float32x4_t sum, const float* q, int16x8x2_t g) {
    sum = add_positions4(sum, vld1q_f32(q), vreinterpretq_s8_s16(g.val[0]));
    return add_positions4(sum, vld1q_f32(q + 4), vreinterpretq_s8_s16(g.val[1]));
}

// The four running sums of keys k0..k3 (stride apart) over all n positions.
AUSPEX_ATTN_INLINE float32x4_t key_sums4(const float* q, const int8_t* k0, size_t stride, size_t n) {
    const int8_t* k1 = k0 + stride;
    const int8_t* k2 = k1 + stride;
    const int8_t* k3 = k2 + stride;
    float32x4_t sum = vdupq_n_f32(0.0f);
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const int8x16x2_t z01 = vzipq_s8(vld1q_s8(k0 + i), vld1q_s8(k1 + i));
        const int8x16x2_t z23 = vzipq_s8(vld1q_s8(k2 + i), vld1q_s8(k3 + i));
        sum = add_positions8(sum, q + i, transpose4(z01.val[0], z23.val[0]));
        sum = add_positions8(sum, q + i + 8, transpose4(z01.val[1], z23.val[1]));
    }
    if (i + 8 <= n) {
        const int8x16x2_t z =
            vzipq_s8(vcombine_s8(vld1_s8(k0 + i), vld1_s8(k2 + i)), vcombine_s8(vld1_s8(k1 + i), vld1_s8(k3 + i)));
        sum = add_positions8(sum, q + i, transpose4(z.val[0], z.val[1]));
        i += 8;
    }
    if (i < n) {
        // The last 1-7 positions continue each key's sum in scalar code, in the same order.
        float s[4];
        vst1q_f32(s, sum);
        for (; i < n; ++i) {
            s[0] = s[0] + q[i] * static_cast<float>(k0[i]);
            s[1] = s[1] + q[i] * static_cast<float>(k1[i]);
            s[2] = s[2] + q[i] * static_cast<float>(k2[i]);
            s[3] = s[3] + q[i] * static_cast<float>(k3[i]);
        }
        sum = vld1q_f32(s);
    }
    return sum;
}

// An int8 row's bytes as floats (rows of 8 or 16 bytes).
template <size_t NB>
AUSPEX_ATTN_INLINE void row_floats(const int8_t* row, float32x4_t (&f)[NB]) {
    static_assert(NB == 2 || NB == 4, "rows of 8 or 16 bytes");
    int16x8_t w[NB / 2];
    if constexpr (NB == 4) {
        const int8x16_t r = vld1q_s8(row);
        w[0] = vmovl_s8(vget_low_s8(r));
        w[1] = vmovl_s8(vget_high_s8(r));
    } else {
        w[0] = vmovl_s8(vld1_s8(row));
    }
    AUSPEX_NEON_UNROLL
    for (size_t h = 0; h < NB / 2; ++h) {
        f[2 * h] = low_to_float(w[h]);
        f[2 * h + 1] = high_to_float(w[h]);
    }
}

// Keys whose weights are computed at a time (a stack array).
constexpr size_t kKeyChunk = 64;

}  // namespace

void attention_scores_f32(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                          float* scores) {
    switch (small_head_blocks(n)) {
        case 1:
            return scores_small<1>(q, k, stride, n_keys, scale, scores);
        case 2:
            return scores_small<2>(q, k, stride, n_keys, scale, scores);
        case 3:
            return scores_small<3>(q, k, stride, n_keys, scale, scores);
        case 4:
            return scores_small<4>(q, k, stride, n_keys, scale, scores);
#if defined(__aarch64__)
        case 5:
            return scores_small<5>(q, k, stride, n_keys, scale, scores);
        case 6:
            return scores_small<6>(q, k, stride, n_keys, scale, scores);
        case 7:
            return scores_small<7>(q, k, stride, n_keys, scale, scores);
        case 8:
            return scores_small<8>(q, k, stride, n_keys, scale, scores);
#endif
        default:
            return scores_any(q, k, stride, n_keys, n, scale, scores);
    }
}

void attention_values_f32(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out) {
    // Each element still gets out += p[j] * v[j] (multiply, then add) for j in order, as axpy_f32 calls would.
    switch (small_head_blocks(n)) {
        case 1:
            return values_columns<1>(p, v, stride, n_keys, out);
        case 2:
            return values_columns<2>(p, v, stride, n_keys, out);
        case 3:
            return values_columns<3>(p, v, stride, n_keys, out);
        case 4:
            return values_columns<4>(p, v, stride, n_keys, out);
#if defined(__aarch64__)
        case 5:
            return values_columns<5>(p, v, stride, n_keys, out);
        case 6:
            return values_columns<6>(p, v, stride, n_keys, out);
        case 7:
            return values_columns<7>(p, v, stride, n_keys, out);
        case 8:
            return values_columns<8>(p, v, stride, n_keys, out);
#endif
        default:
            return values_any(p, v, stride, n_keys, n, out);
    }
}

void attention_scores_i8(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys, size_t n,
                         float scale, float* scores) {
    size_t j = 0;
    if (!kFlushes || exact_inputs(q, n, kQueryMinExponent)) {
        for (; j + 4 <= n_keys; j += 4) {
            const float32x4_t sum = key_sums4(q, k + j * stride, stride, n);
            if (!kFlushes) {
                vst1q_f32(scores + j, vmulq_n_f32(vmulq_f32(sum, vld1q_f32(kscale + j)), scale));
            } else {
                // The scales may be denormal, or make denormal scores: scalar VFP.
                float s[4];
                vst1q_f32(s, sum);
                for (size_t r = 0; r < 4; ++r) scores[j + r] = (s[r] * kscale[j + r]) * scale;
            }
        }
    }
    if (j < n_keys)
        generic::attention_scores_i8(q, k + j * stride, kscale + j, stride, n_keys - j, n, scale, scores + j);
}

void attention_values_i8(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys, size_t n,
                         float* out) {
    size_t j = 0;
    if (!kFlushes || exact_inputs(out, n, kAddendMinExponent)) {
        float a[kKeyChunk];
        for (; j < n_keys; j += kKeyChunk) {
            const size_t keys = n_keys - j < kKeyChunk ? n_keys - j : kKeyChunk;
            size_t t = 0;
            if (!kFlushes)
                for (; t + 4 <= keys; t += 4)
                    vst1q_f32(a + t, vmulq_f32(vld1q_f32(p + j + t), vld1q_f32(vscale + j + t)));
            for (; t < keys; ++t) a[t] = p[j + t] * vscale[j + t];
            if (kFlushes && !exact_inputs(a, keys, kAddendMinExponent)) break;  // these keys on: generic
            const int8_t* vj = v + j * stride;
            size_t c = 0;
            for (; c + 16 <= n; c += 16) values_columns<4>(a, vj + c, stride, keys, out + c);
            if (c + 8 <= n) {
                values_columns<2>(a, vj + c, stride, keys, out + c);
                c += 8;
            }
            // The last 1-7 columns: generic's loop over these keys, the same operations per column.
            if (c < n) generic::attention_values_i8(p + j, vj + c, vscale + j, stride, keys, n - c, out + c);
        }
    }
    if (j < n_keys) generic::attention_values_i8(p + j, v + j * stride, vscale + j, stride, n_keys - j, n, out);
}

}  // namespace ax::neon

#endif  // __ARM_NEON
