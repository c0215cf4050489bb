// The checks every kernel port must pass: each port in ax::test::available_ports() against the generic
// reference on deterministic random data. Shapes include rows 1, in/out 1, odd sizes, tails shorter than
// a vector, row counts that are no multiple of any blocking, inputs crossing the AVX2 port's 256-input
// panels, and pointers offset by one float from the allocation (so not vector-aligned). int8 products
// and quantization must be bit-identical; float kernels agree within 1e-5 (relative to sum |x_i w_i|
// for sums, else |a - b| <= 1e-5 * max(1, |b|)). Outputs carry canaries after their end, and the inputs
// are allocated to their exact size so AddressSanitizer sees any read past them.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ports/generic/generic.h"
#include "ports/ports.h"
#if defined(AUSPEX_HAVE_AVX2)
#include "ports/avx2/avx2.h"
#endif
#if defined(AUSPEX_HAVE_NEON)
#include "ports/neon/neon.h"
#endif
#include "runtime/half.h"
#include "runtime/positional_encoding.h"
#include "tests/test_support.h"

namespace {

using ax::Kernels;

// xorshift64*: the same numbers with every standard library (std:: distributions are not portable).
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 1) {}
    uint64_t next() {
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        return s * 0x2545F4914F6CDD1Dull;
    }
    // Uniform in [-scale, scale).
    float uniform(float scale = 1.0f) {
        const float u = static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);  // [0, 1), 24 bits
        return (2.0f * u - 1.0f) * scale;
    }
    int8_t i8() { return static_cast<int8_t>(static_cast<int>(next() >> 56) - 128); }  // -128..127
};

// A buffer whose data starts `offset` elements into its allocation; the allocation ends exactly at the
// end of the data (inputs: ASan sees over-reads) or `canary` elements later (outputs: checked after).
template <class T>
struct Buf {
    std::vector<T> storage;
    size_t offset = 0, n = 0, canary = 0;
    Buf(size_t n_, size_t offset_, size_t canary_ = 0)
        : storage(offset_ + n_ + canary_), offset(offset_), n(n_), canary(canary_) {}
    T* data() { return storage.data() + offset; }
    const T* data() const { return storage.data() + offset; }
    T& operator[](size_t i) { return data()[i]; }
    const T& operator[](size_t i) const { return data()[i]; }
    std::vector<T> values() const { return std::vector<T>(data(), data() + n); }
};

constexpr float kCanary = -12345.678f;

Buf<float> random_floats(Rng& rng, size_t n, size_t offset, float scale = 1.0f) {
    Buf<float> b(n, offset);
    for (size_t i = 0; i < n; ++i) b[i] = rng.uniform(scale);
    return b;
}

Buf<float> output(size_t n, size_t offset) {
    Buf<float> b(n, offset, 8);
    for (float& v : b.storage) v = kCanary;
    return b;
}

bool canaries_intact(const Buf<float>& b) {
    for (size_t i = 0; i < b.offset; ++i)
        if (b.storage[i] != kCanary) return false;
    for (size_t i = b.offset + b.n; i < b.storage.size(); ++i)
        if (b.storage[i] != kCanary) return false;
    return true;
}

uint32_t bits_of(float f) {
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// Elements spanned by `keys` rows of n values, stride apart (none for no key).
size_t rows_span(size_t keys, size_t stride, size_t n) { return keys == 0 ? 0 : (keys - 1) * stride + n; }

bool close(float got, float want, double scale = 0.0) {
    const double tol = 1e-5 * std::fmax(1.0, std::fmax(std::fabs(static_cast<double>(want)), scale));
    return std::fabs(static_cast<double>(got) - static_cast<double>(want)) <= tol;
}

// The ports under test besides generic itself (generic against itself would prove nothing).
std::vector<const Kernels*> ports_to_test() {
    std::vector<const Kernels*> ports;
    for (const Kernels* k : ax::test::available_ports())
        if (k != &ax::generic_kernels()) ports.push_back(k);
    return ports;
}

// dot_f32 and axpy_f32 are not in the kernel table (no layer calls them) but are functions of the ports
// that have their own: those compiled into this build and supported by this CPU.
struct VectorSteps {
    const char* name;
    float (*dot)(const float* a, const float* b, size_t n);
    void (*axpy)(size_t n, float a, const float* x, float* y);
};

std::vector<VectorSteps> port_vector_steps() {
    std::vector<VectorSteps> steps;
#if defined(AUSPEX_HAVE_AVX2)
    if (ax::avx2_kernels() != nullptr) steps.push_back({"avx2", ax::avx2::dot_f32, ax::avx2::axpy_f32});
#endif
#if defined(AUSPEX_HAVE_NEON) && defined(__ARM_NEON)
    if (ax::neon_kernels() != nullptr) steps.push_back({"neon", ax::neon::dot_f32, ax::neon::axpy_f32});
#endif
    return steps;
}

// Every length up to 70, then lengths around and past the vector widths and unrollings.
std::vector<size_t> vector_sizes() {
    std::vector<size_t> sizes;
    for (size_t n = 0; n <= 70; ++n) sizes.push_back(n);
    for (size_t n : {127u, 128u, 129u, 255u, 1000u, 4097u}) sizes.push_back(n);
    return sizes;
}

struct LinearCase {
    size_t rows, in, out;
};

// Every combination of awkward sizes, plus shapes of real layers, ones crossing 256-input panels and the
// limits of the packed int8 paths (ports/x86/linear_i8_packed.h).
std::vector<LinearCase> linear_cases() {
    std::vector<LinearCase> cases;
    const size_t rows[] = {1, 2, 3, 4, 5, 6, 7, 8, 12, 13, 19, 20, 24};
    const size_t ins[] = {1, 3, 7, 8, 9, 13, 16, 17, 31, 33, 65, 127};
    const size_t outs[] = {1, 3, 4, 7, 8, 9, 13, 16, 17, 31, 33, 65};
    for (size_t r : rows)
        for (size_t i : ins)
            for (size_t o : outs) cases.push_back({r, i, o});
    const LinearCase big[] = {{1, 256, 1024},
                              {2, 257, 63},
                              {3, 300, 17},
                              {5, 511, 40},
                              {24, 512, 70},
                              {96, 64, 256},
                              {37, 300, 50},
                              {7, 1000, 9},
                              {13, 769, 33},
                              {96, 256, 100},
                              {1, 4099, 5},
                              {6, 256, 16},
                              {12, 255, 32},
                              {18, 513, 48},
                              {70, 280, 21},
                              {80, 513, 17},
                              {65, 260, 31},
                              {1, 33, 8},
                              {2, 64, 12},
                              {3, 95, 9},
                              // The packed int8 panels: the largest `in` they take and one past it, more rows
                              // than one block of x (128) and more than the AVX2 path's widened block.
                              {12, 2048, 40},
                              {5, 2049, 19},
                              {130, 67, 41},
                              {200, 16, 9},
                              {100, 250, 35},
                              // The AVX-512 float kernels' row limits (pair lanes 9-16 and 17-24, transposed
                              // x 25-32) and one past each, with blocks of 512 inputs, odd ones and tails.
                              {19, 70, 13},
                              {20, 300, 25},
                              {32, 300, 29},
                              {33, 513, 14},
                              {31, 600, 40},
                              {8, 1025, 11},
                              {9, 1025, 19},
                              {16, 512, 8},
                              {17, 1023, 33},
                              {24, 513, 17},
                              {25, 300, 9}};
    for (const LinearCase& c : big) cases.push_back(c);
    return cases;
}

// sum_i |x_i w_i| + |b|: the scale a float dot product's rounding error is relative to.
template <class W>
double abs_sum(const float* x, const W* w, size_t in, float b) {
    double s = std::fabs(static_cast<double>(b));
    for (size_t i = 0; i < in; ++i) s += std::fabs(static_cast<double>(x[i]) * static_cast<double>(w[i]));
    return s;
}

std::vector<float> halves_as_floats(const uint16_t* h, size_t n) {
    std::vector<float> f(n);
    for (size_t i = 0; i < n; ++i) f[i] = ax::half_to_float(h[i]);
    return f;
}

}  // namespace

TEST_CASE("ports: every kernel table is tested here, or reported as skipped") {
    // The tables besides generic that some build of auspex can hold. Each one this build and CPU can run is
    // among the ports every test below compares with generic; each one they cannot run is named in the
    // output, so a machine without AVX-512 (say) shows what it did not test instead of passing quietly.
    const char* const names[] = {"avx2", "avx2-vnni", "avx512", "avx512-256", "neon", "mcu"};
    const std::vector<const Kernels*> tested = ports_to_test();
    size_t available = 0;
    for (const char* name : names) {
        const Kernels* k = ax::kernels_by_name(name);
        if (k == nullptr) {
            MESSAGE("port " << std::string(name) << " skipped: not in this build, or this CPU lacks its instructions");
            continue;
        }
        ++available;
        CHECK(std::string(k->name) == name);
        bool listed = false;
        for (const Kernels* t : tested) listed = listed || t == k;
        CHECK_MESSAGE(listed, "port " << std::string(name) << " runs here but is not among the ports under test");
    }
    CHECK(available == tested.size());
}

// The kernels the test cases below compare with generic on every port. A kernel added to runtime/kernels.h
// without a test here fails the next test case.
const char* const kKernelsTestedHere[] = {"linear_f32",
                                          "linear_f16",
                                          "linear_i8",
                                          "linear_i4",
                                          "quantize_rows_i8",
                                          "attention_scores_f32",
                                          "attention_values_f32",
                                          "attention_rows_f32",
                                          "softmax_f32",
                                          "layer_norm_f32",
                                          "gelu_f32",
                                          "relu_f32",
                                          "add_f32",
                                          "add_sinusoidal_f32",
                                          "attention_scores_i8",
                                          "attention_values_i8"};

TEST_CASE("ports: every kernel of runtime/kernels.h is tested here and set in every table") {
    for (const char* name : ax::kKernelNames) {
        bool tested = false;
        for (const char* t : kKernelsTestedHere) tested = tested || std::string(t) == name;
        CHECK_MESSAGE(tested, "kernel " << std::string(name) << " has no test in tests/test_ports.cpp");
    }
    // Only the optional attention_rows_f32 may be null: the tables start from generic's, which sets the rest.
    for (const Kernels* k : ax::test::available_ports()) {
        INFO("port " << std::string(k->name));
        CHECK(ax::null_entries(*k) == (k->attention_rows_f32 == nullptr ? 1u : 0u));
    }
}

TEST_CASE("ports: linear_f32 and linear_f16 agree with generic within 1e-5 of sum |x w|") {
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        Rng rng(1);
        size_t index = 0;
        for (const LinearCase& c : linear_cases()) {
            ++index;
            const size_t off = index % 2;  // every other case unaligned by one float
            const bool with_bias = (index / 2) % 2 == 0;
            INFO("port " << std::string(port->name) << ": rows " << c.rows << " in " << c.in << " out " << c.out
                         << " offset " << off << (with_bias ? " bias" : " no bias"));
            const Buf<float> x = random_floats(rng, c.rows * c.in, off);
            const Buf<float> w = random_floats(rng, c.out * c.in, off, 0.5f);
            const Buf<float> bias = random_floats(rng, c.out, off);
            Buf<uint16_t> wh(c.out * c.in, off);
            for (size_t i = 0; i < wh.n; ++i) wh[i] = ax::float_to_half(w[i]);
            const std::vector<float> whf = halves_as_floats(wh.data(), wh.n);
            const float* b = with_bias ? bias.data() : nullptr;

            Buf<float> want = output(c.rows * c.out, off), got = output(c.rows * c.out, off);
            ref.linear_f32(x.data(), c.rows, c.in, w.data(), b, c.out, want.data(), c.out);
            port->linear_f32(x.data(), c.rows, c.in, w.data(), b, c.out, got.data(), c.out);
            REQUIRE(canaries_intact(got));
            for (size_t r = 0; r < c.rows; ++r)
                for (size_t o = 0; o < c.out; ++o) {
                    const double scale = abs_sum(x.data() + r * c.in, w.data() + o * c.in, c.in, b ? b[o] : 0.0f);
                    const size_t k = r * c.out + o;
                    if (!close(got[k], want[k], scale)) {
                        INFO("linear_f32 y[" << r << "][" << o << "] = " << got[k] << ", generic " << want[k]);
                        REQUIRE(close(got[k], want[k], scale));
                    }
                }

            Buf<float> want16 = output(c.rows * c.out, off), got16 = output(c.rows * c.out, off);
            ref.linear_f16(x.data(), c.rows, c.in, wh.data(), b, c.out, want16.data(), c.out);
            port->linear_f16(x.data(), c.rows, c.in, wh.data(), b, c.out, got16.data(), c.out);
            REQUIRE(canaries_intact(got16));
            for (size_t r = 0; r < c.rows; ++r)
                for (size_t o = 0; o < c.out; ++o) {
                    const double scale = abs_sum(x.data() + r * c.in, whf.data() + o * c.in, c.in, b ? b[o] : 0.0f);
                    const size_t k = r * c.out + o;
                    if (!close(got16[k], want16[k], scale)) {
                        INFO("linear_f16 y[" << r << "][" << o << "] = " << got16[k] << ", generic " << want16[k]);
                        REQUIRE(close(got16[k], want16[k], scale));
                    }
                }
        }
    }
}

TEST_CASE("ports: half weights convert exactly, every finite half") {
    // x = 1 and one weight per output row: y[o] is the half's value, exactly (the sum 0 + h is exact).
    for (const Kernels* port : ports_to_test()) {
        INFO("port " << std::string(port->name));
        std::vector<uint16_t> w;
        for (uint32_t h = 0; h < 0x10000; ++h)
            if ((h & 0x7c00u) != 0x7c00u) w.push_back(static_cast<uint16_t>(h));
        const float one = 1.0f;
        std::vector<float> y(w.size());
        port->linear_f16(&one, 1, 1, w.data(), nullptr, w.size(), y.data(), w.size());
        for (size_t i = 0; i < w.size(); ++i) {
            const float want = 0.0f + ax::half_to_float(w[i]);
            if (bits_of(y[i]) != bits_of(want)) {
                INFO("half " << w[i] << ": " << y[i] << ", want " << want);
                REQUIRE(bits_of(y[i]) == bits_of(want));
            }
        }
    }
}

TEST_CASE("ports: linear_i8 is bit-identical to generic") {
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        Rng rng(2);
        size_t index = 0;
        for (const LinearCase& c : linear_cases()) {
            ++index;
            const size_t off = index % 2;
            const bool with_bias = (index / 2) % 2 == 0;
            INFO("port " << std::string(port->name) << ": rows " << c.rows << " in " << c.in << " out " << c.out
                         << " offset " << off << (with_bias ? " bias" : " no bias")
                         << (index % 3 == 0 ? " x with -128" : ""));
            // W over the full int8 range, -128 included (a model file might hold it); x as quantize_rows_i8
            // makes it, [-127, 127], in two cases of three, else with -128 too (ports may take another path).
            const bool x_full_range = index % 3 == 0;
            Buf<int8_t> xq(c.rows * c.in, off), wq(c.out * c.in, off);
            for (size_t i = 0; i < xq.n; ++i) {
                const int8_t v = rng.i8();
                xq[i] = x_full_range || v != -128 ? v : int8_t(-127);
            }
            for (size_t i = 0; i < wq.n; ++i) wq[i] = rng.i8();
            Buf<float> xs(c.rows, off), ws(c.out, off);
            for (size_t i = 0; i < xs.n; ++i) xs[i] = 1e-3f + std::fabs(rng.uniform(0.05f));
            for (size_t i = 0; i < ws.n; ++i) ws[i] = 1e-3f + std::fabs(rng.uniform(0.05f));
            const Buf<float> bias = random_floats(rng, c.out, off);
            const float* b = with_bias ? bias.data() : nullptr;
            Buf<float> want = output(c.rows * c.out, off), got = output(c.rows * c.out, off);
            ref.linear_i8(xq.data(), xs.data(), c.rows, c.in, wq.data(), ws.data(), b, c.out, want.data(), c.out);
            port->linear_i8(xq.data(), xs.data(), c.rows, c.in, wq.data(), ws.data(), b, c.out, got.data(), c.out);
            REQUIRE(canaries_intact(got));
            REQUIRE(std::memcmp(got.data(), want.data(), got.n * sizeof(float)) == 0);
        }
    }
}

namespace {

// Shapes of 4-bit products: `in` a multiple of the 32-column groups, outputs around every port's tile (4, 8)
// and its tail, rows of a decoder step (1), of row tiles and beyond.
std::vector<LinearCase> linear_i4_cases() {
    std::vector<LinearCase> cases;
    for (size_t r : {1u, 2u, 3u, 5u, 8u, 13u})
        for (size_t i : {32u, 64u, 96u, 160u})
            for (size_t o : {1u, 3u, 4u, 5u, 7u, 8u, 9u, 12u, 16u, 17u, 31u}) cases.push_back({r, i, o});
    const LinearCase big[] = {{1, 256, 1024}, {33, 256, 256}, {8, 1024, 256}, {1, 1024, 33}, {40, 32, 576}};
    for (const LinearCase& c : big) cases.push_back(c);
    return cases;
}

// Random 4-bit weights over the whole nibble range (-8 included, which a file may hold though the converter
// never writes it) and half scales: normal ones of a plausible size, and now and then a zero, a subnormal, the
// largest half or a negative one.
struct I4Weights {
    Buf<uint8_t> w;
    Buf<uint16_t> scales;
    I4Weights(Rng& rng, size_t out, size_t in, size_t off) : w(out * in / 2, off), scales(out * in / 32, off) {
        for (size_t i = 0; i < w.n; ++i) w[i] = static_cast<uint8_t>(rng.next() >> 56);
        for (size_t i = 0; i < scales.n; ++i) {
            const uint64_t pick = rng.next() >> 58;  // 0..63
            const float normal = 1e-3f + std::fabs(rng.uniform(0.05f));
            scales[i] = pick == 0   ? uint16_t{0}
                        : pick == 1 ? uint16_t{0x0003}  // subnormal
                        : pick == 2 ? uint16_t{0x7bff}  // 65504
                        : pick == 3 ? ax::float_to_half(-normal)
                                    : ax::float_to_half(normal);
        }
    }
};

}  // namespace

TEST_CASE("ports: linear_i4 is bit-identical to generic") {
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        Rng rng(41);
        size_t index = 0;
        for (const LinearCase& c : linear_i4_cases()) {
            ++index;
            const size_t off = index % 2;
            const bool with_bias = (index / 2) % 2 == 0;
            const bool x_full_range = index % 3 == 0;
            INFO("port " << std::string(port->name) << ": rows " << c.rows << " in " << c.in << " out " << c.out
                         << " offset " << off << (with_bias ? " bias" : " no bias")
                         << (x_full_range ? " x with -128" : ""));
            Buf<int8_t> xq(c.rows * c.in, off);
            for (size_t i = 0; i < xq.n; ++i) {
                const int8_t v = rng.i8();
                xq[i] = x_full_range || v != -128 ? v : int8_t(-127);
            }
            const I4Weights wt(rng, c.out, c.in, off);
            Buf<float> xs(c.rows, off);
            for (size_t i = 0; i < xs.n; ++i) xs[i] = 1e-3f + std::fabs(rng.uniform(0.05f));
            if (index % 5 == 0) xs[0] = 1e-38f;  // products of subnormal size
            const Buf<float> bias = random_floats(rng, c.out, off);
            const float* b = with_bias ? bias.data() : nullptr;
            Buf<float> want = output(c.rows * c.out, off), got = output(c.rows * c.out, off);
            ref.linear_i4(xq.data(), xs.data(), c.rows, c.in, wt.w.data(), wt.scales.data(), b, c.out, want.data(),
                          c.out);
            port->linear_i4(xq.data(), xs.data(), c.rows, c.in, wt.w.data(), wt.scales.data(), b, c.out, got.data(),
                            c.out);
            REQUIRE(canaries_intact(got));
            REQUIRE(std::memcmp(got.data(), want.data(), got.n * sizeof(float)) == 0);
            // Columns of a wider y (the threaded split's calls): the same bits, the other columns untouched.
            const size_t pad = 3, ldy = c.out + 2 * pad;
            std::vector<float> wide(c.rows * ldy, -7.25f);
            port->linear_i4(xq.data(), xs.data(), c.rows, c.in, wt.w.data(), wt.scales.data(), b, c.out,
                            wide.data() + pad, ldy);
            for (size_t r = 0; r < c.rows; ++r) {
                REQUIRE(std::memcmp(wide.data() + r * ldy + pad, want.data() + r * c.out, c.out * sizeof(float)) == 0);
                for (size_t j = 0; j < pad; ++j)
                    REQUIRE((wide[r * ldy + j] == -7.25f && wide[r * ldy + pad + c.out + j] == -7.25f));
            }
        }
    }
}

TEST_CASE("ports: generic linear_i4 is the group-wise product its contract states") {
    // An independent reading of runtime/kernels.h's rule: nibbles decoded by arithmetic on the byte, the sums
    // in the stated order; and a case whose value is known: every weight -8 or 7 with scale 1, x all 1.
    Rng rng(7);
    const size_t rows = 3, in = 96, out = 5, groups = in / 32;
    std::vector<int8_t> xq(rows * in);
    for (int8_t& v : xq) v = rng.i8();
    std::vector<uint8_t> w(out * in / 2);
    for (uint8_t& v : w) v = static_cast<uint8_t>(rng.next() >> 56);
    std::vector<uint16_t> ws(out * groups);
    for (uint16_t& v : ws) v = ax::float_to_half(0.01f + std::fabs(rng.uniform(0.1f)));
    const std::vector<float> xs = {0.5f, 0.03f, 2.0f}, bias = {0.1f, -0.2f, 0.3f, 0.0f, 1.5f};
    std::vector<float> y(rows * out);
    ax::generic_kernels().linear_i4(xq.data(), xs.data(), rows, in, w.data(), ws.data(), bias.data(), out, y.data(),
                                    out);
    for (size_t r = 0; r < rows; ++r) {
        for (size_t o = 0; o < out; ++o) {
            float sum = 0.0f;
            for (size_t g = 0; g < groups; ++g) {
                int32_t acc = 0;
                for (size_t i = 32 * g; i < 32 * g + 32; ++i) {
                    const int byte = w[o * in / 2 + i / 2];
                    const int nibble = i % 2 == 0 ? byte % 16 : byte / 16;
                    acc += xq[r * in + i] * (nibble >= 8 ? nibble - 16 : nibble);
                }
                const volatile float product = static_cast<float>(acc) * ax::half_to_float(ws[o * groups + g]);
                sum = sum + product;
            }
            const volatile float scaled = sum * xs[r];
            CHECK(bits_of(y[r * out + o]) == bits_of(scaled + bias[o]));
        }
    }
    const std::vector<int8_t> ones(64, 1);
    std::vector<uint8_t> extremes(64 / 2, 0x78);  // columns 2j: -8, 2j + 1: 7
    const std::vector<uint16_t> unit(2, ax::float_to_half(1.0f));
    const float one = 1.0f;
    float got = 0.0f;
    ax::generic_kernels().linear_i4(ones.data(), &one, 1, 64, extremes.data(), unit.data(), nullptr, 1, &got, 1);
    CHECK(got == -32.0f);
}

TEST_CASE("ports: a product into a wider matrix (ldy > out) writes its columns' bits and nothing else") {
    // The threaded split's contract: columns [c0, c0 + n) of a product, computed by a call on that slice of W
    // with y's full row stride, are the bits of the dense call on the same rows, and y's other columns keep
    // whatever they held.
    for (const Kernels* port : ports_to_test()) {
        Rng rng(3);
        for (const LinearCase& c : linear_cases()) {
            const size_t pad = 16 + c.out % 7;  // columns of the wider matrix on each side
            const size_t ldy = c.out + 2 * pad;
            INFO("port " << std::string(port->name) << ": rows " << c.rows << " in " << c.in << " out " << c.out
                         << " ldy " << ldy);
            const Buf<float> x = random_floats(rng, c.rows * c.in, 0);
            const Buf<float> w = random_floats(rng, c.out * c.in, 0, 0.5f);
            const Buf<float> bias = random_floats(rng, c.out, 0);
            Buf<uint16_t> wh(c.out * c.in, 0);
            for (size_t i = 0; i < wh.n; ++i) wh[i] = ax::float_to_half(w[i]);
            Buf<int8_t> xq(c.rows * c.in, 0), wq(c.out * c.in, 0);
            for (size_t i = 0; i < xq.n; ++i) {
                const int8_t v = rng.i8();
                xq[i] = v != -128 ? v : int8_t(-127);
            }
            for (size_t i = 0; i < wq.n; ++i) wq[i] = rng.i8();
            Buf<float> xs(c.rows, 0), ws(c.out, 0);
            for (size_t i = 0; i < xs.n; ++i) xs[i] = 1e-3f + std::fabs(rng.uniform(0.05f));
            for (size_t i = 0; i < ws.n; ++i) ws[i] = 1e-3f + std::fabs(rng.uniform(0.05f));
            for (int kind = 0; kind < 3; ++kind) {
                std::vector<float> dense(c.rows * c.out), wide(c.rows * ldy, -7.25f);
                float* into = wide.data() + pad;
                if (kind == 0) {
                    port->linear_f32(x.data(), c.rows, c.in, w.data(), bias.data(), c.out, dense.data(), c.out);
                    port->linear_f32(x.data(), c.rows, c.in, w.data(), bias.data(), c.out, into, ldy);
                } else if (kind == 1) {
                    port->linear_f16(x.data(), c.rows, c.in, wh.data(), bias.data(), c.out, dense.data(), c.out);
                    port->linear_f16(x.data(), c.rows, c.in, wh.data(), bias.data(), c.out, into, ldy);
                } else {
                    port->linear_i8(xq.data(), xs.data(), c.rows, c.in, wq.data(), ws.data(), bias.data(), c.out,
                                    dense.data(), c.out);
                    port->linear_i8(xq.data(), xs.data(), c.rows, c.in, wq.data(), ws.data(), bias.data(), c.out, into,
                                    ldy);
                }
                INFO("kind " << (kind == 0 ? "f32" : kind == 1 ? "f16" : "i8"));
                for (size_t r = 0; r < c.rows; ++r) {
                    REQUIRE(std::memcmp(wide.data() + r * ldy + pad, dense.data() + r * c.out, c.out * sizeof(float)) ==
                            0);
                    for (size_t j = 0; j < pad; ++j) {
                        REQUIRE(wide[r * ldy + j] == -7.25f);
                        REQUIRE(wide[r * ldy + pad + c.out + j] == -7.25f);
                    }
                }
            }
        }
    }
}

TEST_CASE("ports: linear_i8 is exact at the ends of the int8 range") {
    // Constant x and W at the ends of the range, where a saturating int16 pair sum breaks (-128 * -128 * 2
    // = 2^15), on one row (GEMV paths) and several, for long rows and every tail.
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        for (size_t rows : {1u, 5u}) {
            for (size_t in : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 4095u, 4096u, 4097u}) {
                for (int xv : {-128, -127, 127}) {
                    for (int wv : {-128, -127, 127}) {
                        INFO("port " << std::string(port->name) << ": rows " << rows << " in " << in << " x " << xv
                                     << " w " << wv);
                        const size_t out = 11;
                        std::vector<int8_t> xq(rows * in, static_cast<int8_t>(xv)),
                            wq(out * in, static_cast<int8_t>(wv));
                        std::vector<float> xs(rows, 1.0f), ws(out, 1.0f), want(rows * out), got(rows * out);
                        ref.linear_i8(xq.data(), xs.data(), rows, in, wq.data(), ws.data(), nullptr, out, want.data(),
                                      out);
                        port->linear_i8(xq.data(), xs.data(), rows, in, wq.data(), ws.data(), nullptr, out, got.data(),
                                        out);
                        for (size_t i = 0; i < got.size(); ++i) {
                            REQUIRE(bits_of(got[i]) == bits_of(want[i]));
                            REQUIRE(got[i] == static_cast<float>(xv * wv * static_cast<int32_t>(in)));
                        }
                    }
                }
            }
        }
    }
}

TEST_CASE("ports: quantize_rows_i8 is bit-identical to generic, edge rows included") {
    const Kernels& ref = ax::generic_kernels();
    const float denorm = std::numeric_limits<float>::denorm_min();
    const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
    std::vector<std::vector<float>> rows = {
        {0.0f},
        {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {-0.0f, 0.0f, -0.0f, 0, 0, 0, 0, 0, 0},
        // One huge outlier: everything else rounds to 0 or +-1.
        {0.1f, -0.2f, 0.3f, 1e30f, -0.4f, 0.5f, 0.6f, -0.7f, 0.8f, 0.9f, 1.0f, -1.1f, 1.2f, 5e27f, -4e27f, 3.9e27f},
        {0.1f, -0.2f, 0.3f, -3e38f, -0.4f, 0.5f, 0.6f, -0.7f, 0.8f, 0.9f, 1.0f, -1.1f, 1.2f},
        // Negative only.
        {-1.0f, -2.0f, -3.5f, -0.25f, -7.0f, -100.0f, -0.001f, -42.0f, -99.5f, -13.0f, -8.0f, -0.5f},
        // amax 127: x * inv is x itself, so the halves are exact ties and round to even.
        {127,    0.5f,        1.5f,   2.5f,    -0.5f,  -1.5f, -2.5f, 3.5f,  125.5f, -126.5f, 63.5f,
         -64.5f, 0.49999997f, 100.5f, -100.5f, 4.5f,   5.5f,  -5.5f, 6.5f,  7.5f,   -7.5f,   8.5f,
         9.5f,   10.5f,       11.5f,  -12.5f,  126.5f, -0.5f, 0.5f,  -1.5f, 1.5f,   2.5f,    -3.5f},
        // amax 254: x * inv = x / 2, ties again.
        {254, 1, 3, 5, 7, -1, -3, -5, -7, 9, 11, 13, 15, -17, -19, -21, 251, -253, 253, -251, 25, 27, -29, 31},
        // amax 63.5: inv = 2, x.25 -> x.5 ties.
        {63.5f, 0.25f, 0.75f, 1.25f, -0.25f, -0.75f, -1.25f, 10.25f, -20.75f, 30.25f, 62.25f, -62.75f},
        // Tiny amax: 127 / amax overflows to infinity and every (nonzero) x * inv saturates to +-127.
        {1e-38f, -2e-38f, 5e-39f, denorm, -denorm, 3e-39f, 1e-39f, 2e-38f, -1e-45f},
        {denorm, -denorm, denorm, denorm, -denorm, denorm, -denorm, denorm, denorm},
        // Huge amax.
        {1e38f, -3e38f, 1, -1, 1e-30f, 2e37f, 5e30f, -2.9e38f, 3.4e38f, 1.7e38f},
        // One value, and values just below and above a tie.
        {-3.0f},
        {127, 0.49999997f, 0.50000006f, 1.4999999f, 1.5000001f, -2.4999998f, -2.5000002f},
        // Small amax (1e-30, 5e-31) with subnormals beside it: ports whose vector unit flushes subnormals
        // must still give generic's bytes.
        {1e-30f, denorm, -denorm, 1e-38f, -3e-39f, 5e-31f, 7.9e-31f, -1e-30f, 2e-31f},
        {5e-31f, denorm, -denorm, 1e-38f, -3e-39f, 1e-31f, -4e-31f, 2.5e-31f, 1e-45f},
        // NaN and infinity: NaN is not a maximum and quantizes to 0; an infinite amax makes inv 0.
        {nan, 1.0f, -2.0f, 0.5f, 0.25f, -1.5f, 3.0f, nan, 2.5f},
        {nan, nan, nan, nan, nan},
        {inf, 1.0f, -2.0f, 0.5f, -inf, 7.0f},
    };
    Rng rng(3);
    for (size_t n : {1u, 2u, 7u, 8u, 9u, 15u, 16u, 17u, 31u, 32u, 33u, 63u, 64u, 65u, 127u, 257u, 1000u}) {
        std::vector<float> r(n);
        for (float& v : r) v = rng.uniform(3.0f);
        rows.push_back(r);
        for (float& v : r) v = std::round(rng.uniform(1.0f) * 64.0f) / 64.0f;  // many exact ties
        r[0] = 1.0f;
        rows.push_back(r);
    }
    for (const Kernels* port : ports_to_test()) {
        for (size_t k = 0; k < rows.size(); ++k) {
            for (size_t off : {0u, 1u}) {
                // Each row twice (the second reversed), so every row starts at a different alignment too.
                const std::vector<float>& row = rows[k];
                const size_t n = row.size();
                Buf<float> x(2 * n, off);
                for (size_t i = 0; i < n; ++i) x[i] = x[2 * n - 1 - i] = row[i];
                Buf<int8_t> qa(2 * n, off), qb(2 * n, off);
                Buf<float> sa(2, off), sb(2, off);
                ref.quantize_rows_i8(x.data(), 2, n, qa.data(), sa.data());
                port->quantize_rows_i8(x.data(), 2, n, qb.data(), sb.data());
                INFO("port " << std::string(port->name) << ": row " << k << " (n " << n << ") offset " << off);
                CHECK(bits_of(sa[0]) == bits_of(sb[0]));
                CHECK(bits_of(sa[1]) == bits_of(sb[1]));
                for (size_t i = 0; i < 2 * n; ++i) {
                    if (qa[i] != qb[i]) {
                        INFO("element " << i << " = " << x[i] << ": " << int(qb[i]) << ", generic " << int(qa[i]));
                        REQUIRE(qa[i] == qb[i]);
                    }
                }
            }
        }
    }
}

// Tables are filled by name (runtime/kernels.h): a positional brace-initializer, which could swap two
// entries of the same type, must not compile.
static_assert(!std::is_aggregate<Kernels>::value, "Kernels must not accept positional initialization");

TEST_CASE("ports: add and relu agree with generic") {
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        Rng rng(4);
        for (size_t n : vector_sizes()) {
            for (size_t off : {0u, 1u}) {
                INFO("port " << std::string(port->name) << ": n " << n << " offset " << off);
                const Buf<float> a = random_floats(rng, n, off, 2.0f), b = random_floats(rng, n, off, 2.0f);
                Buf<float> ya = output(n, off), yb = output(n, off);
                for (size_t i = 0; i < n; ++i) ya[i] = yb[i] = b[i];
                ref.add_f32(ya.data(), a.data(), n);
                port->add_f32(yb.data(), a.data(), n);
                CHECK(canaries_intact(yb));
                ax::test::check_close(yb.values(), ya.values(), 1e-5, "add");

                for (size_t i = 0; i < n; ++i) ya[i] = yb[i] = (i % 5 == 3) ? -0.0f : a[i];
                ref.relu_f32(ya.data(), n);
                port->relu_f32(yb.data(), n);
                CHECK(canaries_intact(yb));
                CHECK(std::memcmp(ya.data(), yb.data(), n * sizeof(float)) == 0);
            }
        }
    }
}

TEST_CASE("ports: the ports' own dot and axpy agree with generic") {
    for (const VectorSteps& port : port_vector_steps()) {
        Rng rng(4);
        for (size_t n : vector_sizes()) {
            for (size_t off : {0u, 1u}) {
                INFO("port " << port.name << ": n " << n << " offset " << off);
                const Buf<float> a = random_floats(rng, n, off, 2.0f), b = random_floats(rng, n, off, 2.0f);
                const double scale = abs_sum(a.data(), b.data(), n, 0.0f);
                CHECK(close(port.dot(a.data(), b.data(), n), ax::generic::dot_f32(a.data(), b.data(), n), scale));

                Buf<float> ya = output(n, off), yb = output(n, off);
                for (size_t i = 0; i < n; ++i) ya[i] = yb[i] = b[i];
                ax::generic::axpy_f32(n, -0.37f, a.data(), ya.data());
                port.axpy(n, -0.37f, a.data(), yb.data());
                CHECK(canaries_intact(yb));
                ax::test::check_close(yb.values(), ya.values(), 1e-5, "axpy");
            }
        }
    }
}

TEST_CASE("ports: softmax agrees with generic") {
    const Kernels& ref = ax::generic_kernels();
    const float inf = std::numeric_limits<float>::infinity();
    for (const Kernels* port : ports_to_test()) {
        Rng rng(5);
        for (size_t n : {1u, 2u, 3u, 5u, 7u, 8u, 9u, 15u, 16u, 17u, 24u, 31u, 33u, 64u, 65u, 96u, 127u, 300u, 1000u}) {
            for (float spread : {1.0f, 10.0f, 60.0f, 200.0f}) {
                for (size_t off : {0u, 1u}) {
                    INFO("port " << std::string(port->name) << ": n " << n << " spread " << spread << " offset "
                                 << off);
                    Buf<float> a = output(n, off), b = output(n, off);
                    for (size_t i = 0; i < n; ++i) a[i] = b[i] = rng.uniform(spread) + 5.0f;
                    if (n > 4 && spread == 10.0f) a[2] = b[2] = -inf;  // a masked score
                    ref.softmax_f32(a.data(), n);
                    port->softmax_f32(b.data(), n);
                    CHECK(canaries_intact(b));
                    ax::test::check_close(b.values(), a.values(), 1e-5, "softmax");
                }
            }
        }
    }
}

TEST_CASE("ports: layer_norm agrees with generic") {
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        Rng rng(6);
        for (size_t n : {1u, 2u, 3u, 7u, 8u, 9u, 13u, 16u, 17u, 31u, 32u, 33u, 64u, 65u, 127u, 256u, 512u, 1000u}) {
            for (float mean : {0.0f, 3.0f, -20.0f}) {
                // generic sums the mean in one float chain, itself off by about sqrt(n) eps |mean|: past a
                // few hundred values of mean 20 that alone is 1e-5 of the standard deviation.
                if (mean == -20.0f && n > 256) continue;
                for (size_t off : {0u, 1u}) {
                    INFO("port " << std::string(port->name) << ": n " << n << " mean " << mean << " offset " << off);
                    Buf<float> x = random_floats(rng, n, off, 2.0f);
                    for (size_t i = 0; i < n; ++i) x[i] += mean;
                    const Buf<float> gamma = random_floats(rng, n, off, 1.5f), beta = random_floats(rng, n, off);
                    Buf<float> ya = output(n, off), yb = output(n, off);
                    ref.layer_norm_f32(x.data(), n, gamma.data(), beta.data(), 1e-5f, ya.data());
                    port->layer_norm_f32(x.data(), n, gamma.data(), beta.data(), 1e-5f, yb.data());
                    CHECK(canaries_intact(yb));
                    ax::test::check_close(yb.values(), ya.values(), 1e-5, "layer_norm");
                }
            }
        }
    }
}

TEST_CASE("ports: gelu agrees with generic") {
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        // A dense sweep over [-12, 12] (the erf approximation's branches at |x / sqrt 2| = 0.875 and 4),
        // special values, then random lengths and offsets.
        std::vector<float> sweep;
        for (int i = -120000; i <= 120000; ++i) sweep.push_back(static_cast<float>(i) * 1e-4f);
        for (float v : {0.0f, -0.0f, 1.2374368f, -1.2374368f, 5.656854f, -5.656854f, 50.0f, -50.0f, 1e-20f, -1e-20f,
                        1e30f, -1e30f})
            sweep.push_back(v);
        std::vector<float> a = sweep, b = sweep;
        ref.gelu_f32(a.data(), a.size());
        port->gelu_f32(b.data(), b.size());
        ax::test::check_close(b, a, 1e-5, std::string("gelu sweep, port ") + port->name);

        Rng rng(7);
        for (size_t n : {1u, 2u, 3u, 7u, 8u, 9u, 15u, 17u, 31u, 33u, 65u, 127u, 1000u}) {
            for (size_t off : {0u, 1u}) {
                INFO("port " << std::string(port->name) << ": n " << n << " offset " << off);
                Buf<float> ya = output(n, off), yb = output(n, off);
                for (size_t i = 0; i < n; ++i) ya[i] = yb[i] = rng.uniform(6.0f);
                ref.gelu_f32(ya.data(), n);
                port->gelu_f32(yb.data(), n);
                CHECK(canaries_intact(yb));
                ax::test::check_close(yb.values(), ya.values(), 1e-5, "gelu");
            }
        }
    }
}

TEST_CASE("ports: attention scores agree with generic; attention values are exactly kernels.h's sums") {
    const Kernels& ref = ax::generic_kernels();
    std::vector<const Kernels*> ports = ports_to_test();
    ports.push_back(&ref);
    for (const Kernels* port : ports) {
        Rng rng(11);
        // Every small-head size of the NEON paths (4..32) and others, key counts around their four keys a pass.
        for (size_t n : {1u, 3u, 4u, 7u, 8u, 12u, 15u, 16u, 17u, 20u, 24u, 28u, 32u, 33u, 36u, 64u, 72u}) {
            for (size_t keys : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 9u, 96u}) {
                const size_t stride = 3 * n + 1;  // keys interleaved with other heads, rows not aligned
                INFO("port " << std::string(port->name) << ": head " << n << ", keys " << keys);
                const Buf<float> q = random_floats(rng, n, 1), k = random_floats(rng, rows_span(keys, stride, n), 1);
                const Buf<float> p = random_floats(rng, keys, 0, 0.5f);
                const float scale = 0.25f;
                Buf<float> scores = output(keys, 1), want_scores = output(keys, 1);
                port->attention_scores_f32(q.data(), k.data(), stride, keys, n, scale, scores.data());
                ref.attention_scores_f32(q.data(), k.data(), stride, keys, n, scale, want_scores.data());
                CHECK(canaries_intact(scores));
                // Relative to the sum of |q_i k_i| (the sums' order differs between ports).
                for (size_t j = 0; j < keys; ++j)
                    CHECK(close(scores[j], want_scores[j], scale * abs_sum(q.data(), k.data() + j * stride, n, 0.0f)));

                // kernels.h's definition, a multiply then an add per key in key order (no FMA: the build
                // passes -ffp-contract=off): every port, generic included, must give exactly its bits.
                Buf<float> out = output(n, 1), want = output(n, 1);
                for (size_t i = 0; i < n; ++i) out[i] = want[i] = q[i];
                port->attention_values_f32(p.data(), k.data(), stride, keys, n, out.data());
                for (size_t j = 0; j < keys; ++j)
                    for (size_t i = 0; i < n; ++i) want[i] = want[i] + p[j] * k[j * stride + i];
                CHECK(canaries_intact(out));
                bool same = true;
                for (size_t i = 0; i < n; ++i) same = same && bits_of(out[i]) == bits_of(want[i]);
                CHECK(same);
            }
        }
    }
}

TEST_CASE("ports: the sinusoidal positional encoding is bit-identical to the runtime's") {
    for (const Kernels* port : ports_to_test()) {
        Rng rng(19);
        // Widths with and without whole vectors of column pairs, odd ones (sin only in the last column);
        // positions from 0 to where angles leave the float reduction (|angle| >= 6433) and floats stop
        // holding every integer (2^24).
        for (size_t d : {1u, 2u, 6u, 16u, 18u, 33u, 64u, 130u, 512u}) {
            for (size_t first : {size_t{0}, size_t{1}, size_t{6400}, size_t{70000}, size_t{16777213}}) {
                const size_t rows = 40;
                INFO("port " << std::string(port->name) << ": d " << d << ", first position " << first);
                Buf<float> got = output(rows * d, 1), want = output(rows * d, 1);
                for (size_t i = 0; i < rows * d; ++i) got[i] = want[i] = rng.uniform(1.0f);
                port->add_sinusoidal_f32(got.data(), rows, d, first);
                ax::add_sinusoidal_positions(want.data(), rows, d, first);
                CHECK(canaries_intact(got));
                CHECK(std::memcmp(got.data(), want.data(), rows * d * sizeof(float)) == 0);
            }
        }
    }
}

TEST_CASE("ports: attention over a block of query rows agrees with the row-by-row kernels") {
    // The reference: generic's scores, softmax and values for each row over the keys it sees.
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        if (port->attention_rows_f32 == nullptr) continue;
        Rng rng(17);
        size_t taken = 0;
        for (size_t n : {1u, 3u, 8u, 15u, 16u, 17u, 24u, 32u, 33u, 48u, 64u, 65u}) {
            for (size_t keys : {1u, 7u, 16u, 17u, 96u, 100u, 130u, 513u}) {
                for (size_t rows : {1u, 3u, 4u, 5u, 9u, 24u}) {
                    for (size_t first : {size_t{0}, size_t{5}, keys - 1, keys + 3}) {
                        for (bool causal : {false, true}) {
                            if (!causal && first != 0) continue;
                            INFO("port " << std::string(port->name) << ": head " << n << ", keys " << keys << ", rows "
                                         << rows << ", first " << first << ", causal " << causal);
                            // Heads interleaved as in a layer: strides wider than the head, rows unaligned.
                            const size_t q_stride = 2 * n + 1, kv_stride = 3 * n + 5, out_stride = 2 * n + 3;
                            const Buf<float> q = random_floats(rng, (rows - 1) * q_stride + n, 1, 2.0f);
                            const Buf<float> k = random_floats(rng, (keys - 1) * kv_stride + n, 1, 2.0f);
                            const Buf<float> v = random_floats(rng, (keys - 1) * kv_stride + n, 1);
                            const float scale = 1.0f / std::sqrt(static_cast<float>(n));
                            Buf<float> got = output((rows - 1) * out_stride + n, 1);
                            const bool done =
                                port->attention_rows_f32(q.data(), q_stride, rows, k.data(), v.data(), kv_stride, keys,
                                                         first, causal, n, scale, got.data(), out_stride);
                            CHECK(canaries_intact(got));
                            // The ports' documented limits (ports/x86/attention_rows.h): inside them the
                            // block is taken, so this test cannot pass by declining everything.
                            const size_t padded = (keys + 15) / 16 * 16;
                            const bool inside = rows >= 4 && n <= 64 && keys <= 512 && padded * n <= 8192;
                            CHECK(done == inside);
                            if (!done) {
                                bool untouched = true;
                                for (size_t i = 0; i < got.n; ++i) untouched = untouched && got[i] == kCanary;
                                CHECK(untouched);
                                continue;
                            }
                            ++taken;
                            std::vector<float> scores(keys);
                            for (size_t r = 0; r < rows; ++r) {
                                const size_t visible = causal && first + r + 1 < keys ? first + r + 1 : keys;
                                ref.attention_scores_f32(q.data() + r * q_stride, k.data(), kv_stride, visible, n,
                                                         scale, scores.data());
                                ref.softmax_f32(scores.data(), visible);
                                std::vector<float> want(n, 0.0f);
                                ref.attention_values_f32(scores.data(), v.data(), kv_stride, visible, n, want.data());
                                for (size_t c = 0; c < n; ++c) CHECK(close(got[r * out_stride + c], want[c]));
                            }
                        }
                    }
                }
            }
        }
        CHECK(taken > 100);
    }
}

TEST_CASE("ports: activations on any pieces of a buffer give one call's bits") {
    // runtime/kernels.h: each value from that value alone (a product's column tasks activate their own columns).
    for (const Kernels* port : ports_to_test()) {
        Rng rng(29);
        const size_t n = 203;
        Buf<float> x = random_floats(rng, n, 1, 4.0f);
        x[5] = -0.0f;
        x[17] = 1e-40f;  // denormal
        x[33] = -1e-41f;
        x[64] = std::numeric_limits<float>::quiet_NaN();
        for (auto fn : {port->gelu_f32, port->relu_f32}) {
            Buf<float> whole = output(n, 1);
            std::memcpy(whole.data(), x.data(), n * sizeof(float));
            fn(whole.data(), n);
            for (size_t piece : {1u, 3u, 7u, 13u, 16u, 29u}) {
                INFO("port " << std::string(port->name) << ": pieces of " << piece);
                Buf<float> parts = output(n, 1);
                std::memcpy(parts.data(), x.data(), n * sizeof(float));
                for (size_t at = 0; at < n; at += piece) fn(parts.data() + at, piece < n - at ? piece : n - at);
                CHECK(std::memcmp(parts.data(), whole.data(), n * sizeof(float)) == 0);
            }
        }
    }
}

TEST_CASE("ports: attention over a block of query rows gives each row bits of its own") {
    // A row's bits depend on its own query and the keys it sees, never on the rows beside it (runtime/kernels.h):
    // calls on ranges of 8 rows or more give one call's bits (the decoder's rows split over workers). Values a
    // row does not see are left out, even infinite or NaN ones (added with weight zero they would be NaN).
    for (const Kernels* port : ports_to_test()) {
        if (port->attention_rows_f32 == nullptr) continue;
        Rng rng(23);
        const size_t n = 32, rows = 24, stride = 4 * n;
        const Buf<float> q = random_floats(rng, rows * stride, 1, 2.0f);
        const Buf<float> k = random_floats(rng, rows * stride, 1, 2.0f);
        Buf<float> v = random_floats(rng, rows * stride, 1);
        for (size_t c = 0; c < n; ++c) {
            v[20 * stride + c] = std::numeric_limits<float>::infinity();
            v[22 * stride + c] = std::numeric_limits<float>::quiet_NaN();
        }
        const float scale = 1.0f / std::sqrt(static_cast<float>(n));
        Buf<float> whole = output(rows * stride, 1);
        REQUIRE(port->attention_rows_f32(q.data(), stride, rows, k.data(), v.data(), stride, rows, 0, true, n, scale,
                                         whole.data(), stride));
        for (size_t r = 0; r < 20; ++r)
            for (size_t c = 0; c < n; ++c) CHECK(std::isfinite(whole[r * stride + c]));
        for (size_t split : {8u, 11u, 13u, 16u}) {
            INFO("port " << std::string(port->name) << ": rows split at " << split);
            Buf<float> parts = output(rows * stride, 1);
            REQUIRE(port->attention_rows_f32(q.data(), stride, split, k.data(), v.data(), stride, rows, 0, true, n,
                                             scale, parts.data(), stride));
            REQUIRE(port->attention_rows_f32(q.data() + split * stride, stride, rows - split, k.data(), v.data(),
                                             stride, rows, split, true, n, scale, parts.data() + split * stride,
                                             stride));
            CHECK(std::memcmp(parts.data(), whole.data(), rows * stride * sizeof(float)) == 0);
        }
    }
}

TEST_CASE("ports: attention over an int8 cache is bit-identical to generic") {
    // The int8 key/value cache kernels are defined by exact float operations in a fixed order (kernels.h):
    // every port must give generic's bits, on head sizes with tails, strided rows and zero-scale rows.
    const Kernels& ref = ax::generic_kernels();
    for (const Kernels* port : ports_to_test()) {
        Rng rng(13);
        // Head sizes with 16-, 8- and 1-7-value parts, key counts around four keys a pass.
        for (size_t n : {1u, 3u, 7u, 8u, 9u, 15u, 16u, 17u, 24u, 31u, 32u, 33u, 40u, 64u}) {
            for (size_t keys : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 9u, 48u}) {
                const size_t stride = 4 * n + 3;  // all heads of a cache row, rows not aligned
                INFO("port " << std::string(port->name) << ": head " << n << ", keys " << keys);
                const Buf<float> q = random_floats(rng, n, 1);
                Buf<int8_t> kv(rows_span(keys, stride, n), 1);
                for (size_t i = 0; i < kv.n; ++i) kv[i] = static_cast<int8_t>(rng.i8() == -128 ? -127 : rng.i8());
                Buf<float> scales(keys, 1);
                for (size_t j = 0; j < keys; ++j) scales[j] = j % 5 == 3 ? 0.0f : std::fabs(rng.uniform(0.02f));
                const Buf<float> p = random_floats(rng, keys, 0, 0.5f);
                Buf<float> got = output(keys, 1), want = output(keys, 1);
                port->attention_scores_i8(q.data(), kv.data(), scales.data(), stride, keys, n, 0.125f, got.data());
                ref.attention_scores_i8(q.data(), kv.data(), scales.data(), stride, keys, n, 0.125f, want.data());
                CHECK(canaries_intact(got));
                CHECK(std::memcmp(got.data(), want.data(), keys * sizeof(float)) == 0);

                Buf<float> out = output(n, 1), want_out = output(n, 1);
                for (size_t i = 0; i < n; ++i) out[i] = want_out[i] = q[i];
                port->attention_values_i8(p.data(), kv.data(), scales.data(), stride, keys, n, out.data());
                ref.attention_values_i8(p.data(), kv.data(), scales.data(), stride, keys, n, want_out.data());
                CHECK(canaries_intact(out));
                CHECK(std::memcmp(out.data(), want_out.data(), n * sizeof(float)) == 0);
            }
        }
    }
}

TEST_CASE("ports: attention over an int8 cache keeps generic's bits on edge values") {
    // What an order of operations shows and random data does not: -0 sums (0 + -0 is +0), denormal products
    // and sums (which a flushing vector unit would zero), a NaN query value, infinities times a zero byte
    // (NaN), -128 bytes and zero scales; 16- and 8-value parts, tails and key counts off four.
    const Kernels& ref = ax::generic_kernels();
    const float specials[] = {-0.0f, 0.0f, 1e-40f, -3e-39f, 1e-30f, 7.5f, -1e30f};
    for (const Kernels* port : ports_to_test()) {
        Rng rng(17);
        for (int kind = 0; kind < 4; ++kind) {
            for (size_t n : {8u, 13u, 16u, 27u, 32u}) {
                for (size_t keys : {3u, 4u, 6u, 13u}) {
                    const size_t stride = 2 * n + 5;
                    INFO("port " << std::string(port->name) << ": kind " << kind << ", head " << n << ", keys "
                                 << keys);
                    Buf<float> q(n, 0);
                    for (size_t i = 0; i < n; ++i) q[i] = specials[rng.next() % 7];
                    if (kind == 1) q[n / 2] = std::numeric_limits<float>::quiet_NaN();
                    if (kind == 2) q[n - 1] = -std::numeric_limits<float>::infinity();
                    if (kind == 3)
                        for (size_t i = 0; i < n; ++i) q[i] = rng.uniform(1e-37f);  // denormal products and sums
                    Buf<int8_t> kv(rows_span(keys, stride, n), 0);
                    for (size_t i = 0; i < kv.n; ++i) kv[i] = i % 11 == 0 ? int8_t{0} : rng.i8();
                    Buf<float> scales(keys, 0), p(keys, 0);
                    for (size_t j = 0; j < keys; ++j) {
                        scales[j] = j % 3 == 1 ? 0.0f : std::fabs(rng.uniform(kind == 3 ? 1e-5f : 0.02f));
                        p[j] = j % 4 == 2 ? -0.0f : (kind == 3 ? rng.uniform(1e-30f) : rng.uniform(0.5f));
                    }
                    Buf<float> got = output(keys, 1), want = output(keys, 1);
                    port->attention_scores_i8(q.data(), kv.data(), scales.data(), stride, keys, n, 0.25f, got.data());
                    ref.attention_scores_i8(q.data(), kv.data(), scales.data(), stride, keys, n, 0.25f, want.data());
                    CHECK(canaries_intact(got));
                    CHECK(std::memcmp(got.data(), want.data(), keys * sizeof(float)) == 0);

                    Buf<float> out = output(n, 1), want_out = output(n, 1);
                    for (size_t i = 0; i < n; ++i) out[i] = want_out[i] = i % 3 == 0 ? -0.0f : q[i];
                    port->attention_values_i8(p.data(), kv.data(), scales.data(), stride, keys, n, out.data());
                    ref.attention_values_i8(p.data(), kv.data(), scales.data(), stride, keys, n, want_out.data());
                    CHECK(canaries_intact(out));
                    CHECK(std::memcmp(out.data(), want_out.data(), n * sizeof(float)) == 0);
                }
            }
        }
    }
}
