// The batched int8 product (rows >= kPackedMinRows) of the x86 ports, written once and instantiated per
// instruction set: AVX2 (vpmaddwd), AVX-VNNI (VEX vpdpbusd on YMM), AVX512-VNNI on YMM (EVEX, 32
// registers) and on ZMM. Each instantiating file is compiled with its own flags and this header has
// internal linkage, so no instruction of one set can stand in for another's.
//
// Weights cannot be pre-packed (they are read in place from the model file), so each call packs a panel of
// kCols weight rows (all `in` inputs) into a stack buffer, in the order the register tile consumes it:
// panel[g][c] is one 32-bit word holding the inputs of group g (4 int8 for vpdpbusd, 2 int16 for
// vpmaddwd) of column c. A tile of R rows x kCols outputs then accumulates, per group, one broadcast word of
// x times kVecs panel vectors, R * kVecs multiply-adds and no horizontal sums. The panel is packed once per
// block of up to kRowBlock rows and stays in L1/L2 while the block's row tiles pass over it.
//
// Exactness (bit-identical to generic):
// - vpdpbusd multiplies unsigned bytes by signed bytes, adding 4 products into an int32 lane with no
//   intermediate saturation. The panel holds w + 128 (w XOR 0x80, in [0, 255] for every int8 w) as the
//   unsigned side and x stays signed, so sum (w + 128) x = sum w x + 128 sum x: the kernel subtracts
//   128 * rowsum(x), computed once per row block. Exact for any int8 x and W, -128 included.
// - vpmaddwd multiplies int16 pairs and adds the two products into int32: with int8 values widened, exact
//   (no saturation: |sum| <= 2 * 128 * 128 = 2^15 fits int32). x is widened into a stack buffer per tile.
// - the rescale is generic::rescale_i8's operations lane for lane: float(acc) * (xscale * wscale) + bias.
// Padding (columns past `out`, inputs past `in`) is zero on the panel's side, so it adds nothing; no load
// reaches past x or W (the last partial group of x is assembled byte by byte).
#pragma once
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ports/x86/avx2_util.h"

namespace ax::avx2 {
namespace {

#if defined(__GNUC__) && !defined(__clang__)
#define AX_I8_GROUP_UNROLL _Pragma("GCC unroll 2")
#else
#define AX_I8_GROUP_UNROLL
#endif

constexpr size_t kPackedMinRows = 4;   // fewer rows: the dot-product tiles (no packing to pay back)
constexpr size_t kPackedMaxIn = 2048;  // panel bytes = 4 * kCols * ceil(in / group), at most 64 KB
constexpr size_t kRowBlock = 128;      // rows per packed panel at most (row sums of x on the stack)

inline uint32_t load_word(const void* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// panel[g * kCols + c] for c < kCols: the words of columns [0, ncols) of W (rows at w, stride in), group g,
// each byte (VNNI: w ^ 0x80) or each int16 pair (madd), zero past ncols and past the end of the input.
// `vnni`: bytes offset to unsigned; otherwise int8 widened to int16 pairs.
template <size_t kCols, bool vnni>
inline void pack_panel(const int8_t* w, size_t in, size_t ncols, uint32_t* panel) {
    constexpr size_t kGroup = vnni ? 4 : 2;  // inputs per word
    const size_t groups = (in + kGroup - 1) / kGroup;
    const __m256i flip = _mm256_set1_epi8(static_cast<char>(0x80));
    for (size_t cb = 0; cb < kCols; cb += 8) {
        const size_t nc = ncols > cb ? (ncols - cb < 8 ? ncols - cb : 8) : 0;
        const int8_t* wc = w + cb * in;
        uint32_t* pc = panel + cb;
        size_t g = 0;
        if (nc == 8) {
            // 8 columns x 8 groups at a time: 8 vectors of 8 words, transposed as floats (bit moves only).
            constexpr size_t kBytes = 8 * kGroup;  // inputs per 8 groups
            for (; (g + 8) * kGroup <= in; g += 8) {
                __m256 blk[8];
                AX_AVX2_UNROLL
                for (size_t t = 0; t < 8; ++t) {
                    const int8_t* src = wc + t * in + g * kGroup;
                    __m256i v;
                    if constexpr (vnni)
                        v = _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src)), flip);
                    else
                        v = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src)));
                    blk[t] = _mm256_castsi256_ps(v);
                }
                detail::transpose8(blk);
                AX_AVX2_UNROLL
                for (size_t t = 0; t < 8; ++t) _mm256_storeu_ps(reinterpret_cast<float*>(pc + (g + t) * kCols), blk[t]);
            }
            static_assert(kBytes == 32 || kBytes == 16, "a row chunk is one vector load");
        }
        // The rest one word at a time (tails, partial column blocks, padding).
        for (; g < groups; ++g) {
            for (size_t t = 0; t < 8; ++t) {
                uint32_t word = 0;
                if (t < nc) {
                    const int8_t* src = wc + t * in + g * kGroup;
                    const size_t n = in - g * kGroup < kGroup ? in - g * kGroup : kGroup;
                    if constexpr (vnni) {
                        uint8_t b[4] = {0, 0, 0, 0};
                        for (size_t i = 0; i < n; ++i) b[i] = static_cast<uint8_t>(src[i] ^ 0x80);
                        std::memcpy(&word, b, 4);
                    } else {
                        int16_t h[2] = {0, 0};
                        for (size_t i = 0; i < n; ++i) h[i] = src[i];
                        std::memcpy(&word, h, 4);
                    }
                }
                pc[g * kCols + t] = word;
            }
        }
    }
}

// Sum of each of `rows` rows of x (int8, n values), exact in int32.
inline void row_sums(const int8_t* x, size_t rows, size_t n, int32_t* sums) {
    const __m256i ones8 = _mm256_set1_epi8(1), ones16 = _mm256_set1_epi16(1);
    for (size_t r = 0; r < rows; ++r) {
        const int8_t* xr = x + r * n;
        __m256i acc = _mm256_setzero_si256();
        size_t i = 0;
        // maddubs(1, x): pairs of int8 summed into int16 (|sum| <= 256, no saturation), then into int32.
        for (; i + 32 <= n; i += 32) {
            const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(xr + i));
            acc = _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(ones8, v), ones16));
        }
        int32_t s = detail::hsum_i32(acc);
        for (; i < n; ++i) s += xr[i];
        sums[r] = s;
    }
}

// finish() for 8 int32 lanes (AVX2): see tile().
inline void finish8(__m256i acc, int32_t offset, float xscale, const float* wscale, const float* bias, size_t valid,
                    float* y) {
    const __m256 a = _mm256_cvtepi32_ps(_mm256_sub_epi32(acc, _mm256_set1_epi32(offset)));
    const __m256 xs = _mm256_set1_ps(xscale);
    if (valid == 8) {
        const __m256 product = _mm256_mul_ps(a, _mm256_mul_ps(xs, _mm256_loadu_ps(wscale)));
        const __m256 b = bias ? _mm256_loadu_ps(bias) : _mm256_setzero_ps();
        _mm256_storeu_ps(y, _mm256_add_ps(product, b));
    } else {
        const __m256i m = detail::tail_mask(valid);
        const __m256 product = _mm256_mul_ps(a, _mm256_mul_ps(xs, _mm256_maskload_ps(wscale, m)));
        const __m256 b = bias ? _mm256_maskload_ps(bias, m) : _mm256_setzero_ps();
        _mm256_maskstore_ps(y, m, _mm256_add_ps(product, b));
    }
}

template <class T, size_t R>
__attribute__((noinline)) void finish_rows(const int32_t* sums, const int32_t (&offset)[R], const float* xscale,
                                           const float* wscale, const float* bias, size_t ncols, float* y, size_t ldy) {
    for (size_t r = 0; r < R; ++r)
        for (size_t j = 0; j < T::kVecs; ++j) {
            const size_t c = j * T::kLanes;
            if (c >= ncols) break;
            const size_t valid = ncols - c < T::kLanes ? ncols - c : T::kLanes;
            T::finish(T::loadi(sums + r * T::kCols + c), offset[r], xscale[r], wscale + c, bias ? bias + c : nullptr,
                      valid, y + r * ldy + c);
        }
}

// The register tile: R rows of x against `groups` groups of the panel, T::kVecs vectors of T::kLanes int32
// per row, rescaled from the registers into y rows (stride ldy), columns [0, ncols).
// T supplies: V, kLanes, kVecs, kCols, kRows, kGroup (inputs per word), kVnni, zero(), load(const uint32_t*),
// bcast(uint32_t), madd(acc, broadcast word of x, panel vector), store/loadi (aligned int32), and
// finish(acc, offset, xscale, wscale, bias or null, valid lanes, y): y = float(acc - offset) * (xscale *
// wscale) + bias (+ 0.0f without bias), lane for lane generic::rescale_i8, the first `valid` lanes stored.
// xrow[r] + 4 g holds the word of row r, group g: x itself (VNNI) or a widened copy (madd).
template <class T, size_t R>
inline void tile(const int8_t* const (&xrow)[R], size_t groups, const uint32_t* panel, const int32_t (&offset)[R],
                 const float* xscale, const float* wscale, const float* bias, size_t ncols, float* y, size_t ldy) {
    using V = typename T::V;
    V acc[R][T::kVecs];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t j = 0; j < T::kVecs; ++j) acc[r][j] = T::zero();
    const int8_t* xr[R];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) xr[r] = xrow[r];
    const uint32_t* const end = panel + groups * T::kCols;
    AX_I8_GROUP_UNROLL
    for (const uint32_t* p = panel; p != end; p += T::kCols) {
        V wv[T::kVecs];
        AX_AVX2_UNROLL
        for (size_t j = 0; j < T::kVecs; ++j) wv[j] = T::load(p + j * T::kLanes);
        AX_AVX2_UNROLL
        for (size_t r = 0; r < R; ++r) {
            const V xb = T::bcast(load_word(xr[r]));
            xr[r] += 4;
            AX_AVX2_UNROLL
            for (size_t j = 0; j < T::kVecs; ++j) acc[r][j] = T::madd(acc[r][j], xb, wv[j]);
        }
    }
    // The sums leave the registers through memory and are rescaled in a function of its own: rescaling
    // right from the registers makes GCC spill accumulators inside the loop above.
    alignas(64) int32_t sums[R * T::kCols];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) AX_AVX2_UNROLL
    for (size_t j = 0; j < T::kVecs; ++j) T::store(sums + r * T::kCols + j * T::kLanes, acc[r][j]);
    finish_rows<T, R>(sums, offset, xscale, wscale, bias, ncols, y, ldy);
}

// Rows [r0, r0 + R) of the block against one panel. Row r's words start at src + r * stride (bytes): x
// itself (VNNI) or the block's widened copy (madd, zero-padded to whole words). VNNI reads whole words of
// x past `in` (the panel's zeros cancel them), which is within x except on its very last row: that one
// (block row `last`) is read from `last_copy`, zero-padded.
template <class T, size_t R>
inline void tile_rows(const int8_t* src, size_t stride, size_t in, size_t r0, const float* xscale,
                      const uint32_t* panel, const int32_t* sums, size_t last, const int8_t* last_copy,
                      const float* wscale, const float* bias, size_t ncols, size_t ldy, float* y) {
    constexpr size_t G = T::kGroup;
    const int8_t* xrow[R];
    int32_t offset[R];
    AX_AVX2_UNROLL
    for (size_t r = 0; r < R; ++r) {
        xrow[r] = r0 + r == last ? last_copy : src + (r0 + r) * stride;  // read through memcpy: any alignment
        offset[r] = T::kVnni ? 128 * sums[r0 + r] : 0;  // |128 sum| <= 2^14 in: no overflow for in <= 2^16
    }
    tile<T, R>(xrow, (in + G - 1) / G, panel, offset, xscale + r0, wscale, bias, ncols, y + r0 * ldy, ldy);
}

template <class T, size_t R>
inline void tile_rows_rest(size_t rest, const int8_t* src, size_t stride, size_t in, size_t r0, const float* xscale,
                           const uint32_t* panel, const int32_t* sums, size_t last, const int8_t* last_copy,
                           const float* wscale, const float* bias, size_t ncols, size_t ldy, float* y) {
    if constexpr (R > 0) {
        if (rest == R)
            tile_rows<T, R>(src, stride, in, r0, xscale, panel, sums, last, last_copy, wscale, bias, ncols, ldy, y);
        else
            tile_rows_rest<T, R - 1>(rest, src, stride, in, r0, xscale, panel, sums, last, last_copy, wscale, bias,
                                     ncols, ldy, y);
    }
}
// Whether the packed path takes this shape (else the caller's dot-product tiles).
// in >= 4: a word read past the end of a row (at most 3 bytes) then stays inside the next row, so only
// x's last row needs its padded copy (see tile_rows).
inline bool use_packed_i8(size_t rows, size_t in) { return rows >= kPackedMinRows && in >= 4 && in <= kPackedMaxIn; }

// x rows widened to int16, each zero-padded to `stride` values (a multiple of 16).
inline void widen_rows(const int8_t* x, size_t rows, size_t in, size_t stride, int16_t* out) {
    for (size_t r = 0; r < rows; ++r) {
        const int8_t* xr = x + r * in;
        int16_t* o = out + r * stride;
        size_t i = 0;
        for (; i + 16 <= in; i += 16)
            _mm256_store_si256(reinterpret_cast<__m256i*>(o + i),
                               _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xr + i))));
        for (; i < in; ++i) o[i] = xr[i];
        for (; i < stride; ++i) o[i] = 0;
    }
}

constexpr size_t kWideValues = 24576;  // the madd path's widened block of x: 48 KB of stack

template <class T>
inline void linear_i8_packed(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                             const float* wscale, const float* bias, size_t out, float* y, size_t ldy) {
    constexpr size_t G = T::kGroup;
    alignas(64) uint32_t panel[(kPackedMaxIn / G + 1) * T::kCols];
    alignas(64) int32_t sums[kRowBlock];
    alignas(64) int16_t wide[T::kVnni ? 16 : kWideValues];
    // The last row of x, zero-padded to whole words (VNNI reads whole words; see tile_rows).
    alignas(64) int8_t last_copy[T::kVnni ? kPackedMaxIn + 4 : 4] = {};
    if constexpr (T::kVnni) std::memcpy(last_copy, xq + (rows - 1) * in, in);
    const size_t wide_stride = (in + 15) / 16 * 16;
    size_t block = kRowBlock;
    if constexpr (!T::kVnni) {
        block = kWideValues / wide_stride;
        if (block > kRowBlock) block = kRowBlock;
    }
    for (size_t rb = 0; rb < rows; rb += block) {
        const size_t nrows = rows - rb < block ? rows - rb : block;
        const int8_t* xb = xq + rb * in;
        const int8_t* src = xb;
        size_t stride = in;
        if constexpr (T::kVnni) {
            row_sums(xb, nrows, in, sums);
        } else {
            widen_rows(xb, nrows, in, wide_stride, wide);
            src = reinterpret_cast<const int8_t*>(wide);
            stride = wide_stride * sizeof(int16_t);
        }
        for (size_t o = 0; o < out; o += T::kCols) {
            const size_t ncols = out - o < T::kCols ? out - o : T::kCols;
            pack_panel<T::kCols, T::kVnni>(w + o * in, in, ncols, panel);
            const float* bo = bias ? bias + o : nullptr;
            float* yo = y + rb * ldy + o;
            size_t r = 0;
            const size_t last = T::kVnni && rb + nrows == rows ? nrows - 1 : nrows;  // nrows: none
            for (; r + T::kRows <= nrows; r += T::kRows)
                tile_rows<T, T::kRows>(src, stride, in, r, xscale + rb, panel, sums, last, last_copy, wscale + o, bo,
                                       ncols, ldy, yo);
            if (r < nrows)
                tile_rows_rest<T, T::kRows - 1>(nrows - r, src, stride, in, r, xscale + rb, panel, sums, last,
                                                last_copy, wscale + o, bo, ncols, ldy, yo);
        }
    }
}

}  // namespace
}  // namespace ax::avx2
