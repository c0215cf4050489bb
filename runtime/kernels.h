// The kernel interface: every hot loop of the runtime goes through one of these function pointers, so a
// port (ports/<isa>/) can replace any of them. ports/generic/ is the reference that defines the results.
//
// The kernels are written down once, here: each one's function type with its contract (namespace
// ax::kernel), and AX_KERNELS, the list of their names in the table's order. Everything else is derived
// from the two: the table's members, the ports' declarations (a port declares `kernel::softmax_f32
// softmax_f32;`, never the signature again), the bench's per-kernel timing, the tests' and the
// instruction-count report's list of kernels.
//
// A port's table is filled by name only: ports/generic/generic.h builds the reference table member by member
// and every other port copies it and replaces the entries of its own list (AX_<PORT>_KERNELS in its
// header), each with the port's function of the same name, so no table depends on the order of the members
// and none can put a kernel in another's place. The user-provided constructor keeps it that way: it makes
// Kernels a non-aggregate, so positional brace-initialization does not compile.
//
// Conventions: weight matrices are PyTorch's [out, in] row-major layout; x holds `rows` contiguous rows of
// `in` values; y gets `rows` rows of `out` values; a null bias means zero. All kernels are pure and
// reentrant and never allocate.
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ax::kernel {

// y = x W^T + b with float32, IEEE half and int8 weights; row r of y starts at y + r * ldy (ldy >= out: a
// product of some output columns writes them in place in a wider matrix). The int8 form takes x already
// quantized per row (xq, xscale) and weight scales per output row; it accumulates exact int32 dot products and
// rescales each once: y = float(acc) * (xscale[r] * wscale[o]) + b[o], in that order, no FMA, so every port
// gives bit-identical results.
using linear_f32 = void(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y,
                        size_t ldy);
using linear_f16 = void(const float* x, size_t rows, size_t in, const uint16_t* w, const float* bias, size_t out,
                        float* y, size_t ldy);
using linear_i8 = void(const int8_t* xq, const float* xscale, size_t rows, size_t in, const int8_t* w,
                       const float* wscale, const float* bias, size_t out, float* y, size_t ldy);
// 4-bit weights (format::DType::i4): w holds `out` rows of in / 2 bytes, two signed nibbles per byte (column
// 2j low, 2j + 1 high, -8..7), wscale one IEEE half per group of 32 columns ([out, in / 32]); in is a multiple
// of 32; x as for linear_i8. Each group's dot product is an exact int32; the groups are then summed in float
// in one order, each operation rounded on its own (no FMA), so that every port gives the same bits:
//   s = 0.0f; for g = 0, 1, ...: s = s + float(acc_g) * float(wscale[o][g]);  y = s * xscale[r] + b[o].
using linear_i4 = void(const int8_t* xq, const float* xscale, size_t rows, size_t in, const uint8_t* w,
                       const uint16_t* wscale, const float* bias, size_t out, float* y, size_t ldy);
// Symmetric per-row quantization: scale = max|x| / 127, q = round_half_even(x * (127 / max|x|)), an all-zero
// row gets scale 0 and q = 0. Exactly these float operations, for bit-identical ports.
using quantize_rows_i8 = void(const float* x, size_t rows, size_t n, int8_t* q, float* scales);

// One query and one head against n_keys keys (or values) of n values each, stride apart: the loops of
// attention in one call, so small heads do not pay a call per key.
// scores[j] = (sum over i of q[i] * k[j * stride + i]) * scale, the sum in any order (ports differ);
using attention_scores_f32 = void(const float* q, const float* k, size_t stride, size_t n_keys, size_t n, float scale,
                                  float* scores);
// out[c] = out[c] + p[j] * v[j * stride + c] for j = 0, 1, ... in turn, a multiply then an add, never fused:
// every port gives generic's bits (ARMv7 NEON's flushed denormals aside).
using attention_values_f32 = void(const float* p, const float* v, size_t stride, size_t n_keys, size_t n, float* out);
// Optional (the one entry a table may leave null): `rows` query rows of one head at once. Row r (q + r *
// q_stride, n values) attends over keys [0, visible): all n_keys, or with `causal` the first
// min(first_position + r + 1, n_keys); out row r (out + r * out_stride, n values) = softmax(scale * q k^T) v
// over those keys. The sums of the three kernels around this one, possibly in another order and fused:
// agrees with them to rounding. Returns false, having written nothing, for a shape the port leaves to them
// (nullptr: every shape); that answer depends on n, n_keys and rows < 8 only. A row's bits depend on its own
// query, its visible keys and values, n_keys and n, never on the other rows: calls of 8 rows or more on any
// ranges of rows, with the same n_keys, give the bits of one call over all rows (runtime/attention.cpp's
// split, and the decoder's rows split over workers in runtime/transformer_layer.cpp).
using attention_rows_f32 = bool(const float* q, size_t q_stride, size_t rows, const float* k, const float* v,
                                size_t kv_stride, size_t n_keys, size_t first_position, bool causal, size_t n,
                                float scale, float* out, size_t out_stride);
// In place, numerically stable (max subtracted first).
using softmax_f32 = void(float* x, size_t n);
// y = (x - mean) / sqrt(var + eps) * gamma + beta, biased variance as in torch.nn.LayerNorm.
using layer_norm_f32 = void(const float* x, size_t n, const float* gamma, const float* beta, float eps, float* y);
// In place: exact GELU 0.5 x (1 + erf(x / sqrt 2)) as torch's default, and ReLU.
// In place; each value from that value alone, by the same operations wherever it sits in x (vector body or
// tail), so calls on any pieces of x give the bits of one call (runtime/activation.h).
using gelu_f32 = void(float* x, size_t n);
using relu_f32 = void(float* x, size_t n);
// y += x
using add_f32 = void(float* y, const float* x, size_t n);
// x[r, :] += the sinusoidal positional encoding of position first_position + r, for `rows` rows of width d:
// runtime/positional_encoding.h's float operations, so every port gives the same bits.
using add_sinusoidal_f32 = void(float* x, size_t rows, size_t d, size_t first_position);

// Attention over an int8 key/value cache: rows of n int8 values, stride apart, each with its own float scale
// (the per-row rule of quantize_rows_i8). Defined by exact float operations in a fixed order, no FMA, so
// every port gives the same bits:
// scores[j] = ((sum over i = 0, 1, ... in turn of q[i] * float(k[j][i])) * kscale[j]) * scale;
using attention_scores_i8 = void(const float* q, const int8_t* k, const float* kscale, size_t stride, size_t n_keys,
                                 size_t n, float scale, float* scores);
// for j = 0, 1, ... in turn: a = p[j] * vscale[j]; out[c] = out[c] + a * float(v[j][c]) for each c.
using attention_values_i8 = void(const float* p, const int8_t* v, const float* vscale, size_t stride, size_t n_keys,
                                 size_t n, float* out);

}  // namespace ax::kernel

// The kernel list, in the table's order: X(name) for each type above. A name here without a type above does
// not compile.
#define AX_KERNELS(X)       \
    X(linear_f32)           \
    X(linear_f16)           \
    X(linear_i8)            \
    X(linear_i4)            \
    X(quantize_rows_i8)     \
    X(attention_scores_f32) \
    X(attention_values_f32) \
    X(attention_rows_f32)   \
    X(softmax_f32)          \
    X(layer_norm_f32)       \
    X(gelu_f32)             \
    X(relu_f32)             \
    X(add_f32)              \
    X(add_sinusoidal_f32)   \
    X(attention_scores_i8)  \
    X(attention_values_i8)

// In a port's header: declares the port's own function `name` with the kernel's type (AX_KERNELS' X).
#define AX_DECLARE_KERNEL(name) kernel::name name;

namespace ax {

struct Kernels {
    constexpr Kernels() {}

    const char* name = nullptr;
#define AX_KERNEL_ENTRY(id) kernel::id* id = nullptr;
    AX_KERNELS(AX_KERNEL_ENTRY)
#undef AX_KERNEL_ENTRY
};

// The kernels' names, in the list's order.
inline constexpr const char* kKernelNames[] = {
#define AX_KERNEL_NAME(name) #name,
    AX_KERNELS(AX_KERNEL_NAME)
#undef AX_KERNEL_NAME
};

// How many entries of a table are null. Only attention_rows_f32 may be; a table built from generic's has every
// other one set.
constexpr size_t null_entries(const Kernels& k) {
    size_t n = 0;
#define AX_COUNT_NULL(id) n += k.id == nullptr ? 1 : 0;
    AX_KERNELS(AX_COUNT_NULL)
#undef AX_COUNT_NULL
    return n;
}

// The name of a table entry, e.g. kernel_name<&Kernels::softmax_f32>() == "softmax_f32": a label that cannot
// drift from the entry it names.
template <auto entry>
constexpr const char* kernel_name() {
#define AX_KERNEL_NAME_OF(name)                                                \
    if constexpr (std::is_same_v<decltype(entry), decltype(&Kernels::name)>) { \
        if (entry == &Kernels::name) return #name;                             \
    }
    AX_KERNELS(AX_KERNEL_NAME_OF)
#undef AX_KERNEL_NAME_OF
    return nullptr;
}

}  // namespace ax
