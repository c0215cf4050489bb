// Multi-head attention (runtime/attention.h) against PyTorch's scaled dot-product attention on every port:
// fixtures from tests/fixtures/gen_attention_fixtures.py (no mask, causal self-attention, a cached decoding
// step whose queries start at a later position, key padding with a causal mask, a head wider than 64
// values). Keys and values sit interleaved in one buffer as a packed projection leaves them, and the output
// is written with a row stride, so the strides are exercised too.
#include <doctest/doctest.h>

#include <fstream>
#include <string>
#include <vector>

#include "runtime/attention.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"

namespace {

struct AttentionCase {
    size_t n_q = 0, n_kv = 0, nhead = 0, head_dim = 0, first_position = 0;
    bool causal = false;
    std::vector<uint8_t> key_valid;
    std::vector<float> q, k, v, out;
};

AttentionCase read_case(const std::string& name) {
    std::ifstream in(ax::test::fixture_path("attention/" + name + ".txt"));
    REQUIRE_MESSAGE(in.good(), "missing fixture attention/" << name << ".txt");
    AttentionCase c;
    int causal = 0;
    in >> c.n_q >> c.n_kv >> c.nhead >> c.head_dim >> c.first_position >> causal;
    c.causal = causal != 0;
    const size_t d = c.nhead * c.head_dim;
    for (size_t j = 0; j < c.n_kv; ++j) {
        int valid = 0;
        in >> valid;
        c.key_valid.push_back(static_cast<uint8_t>(valid));
    }
    const auto read = [&](size_t rows, std::vector<float>* to) {
        to->resize(rows * d);
        for (float& x : *to) in >> x;
    };
    read(c.n_q, &c.q);
    read(c.n_kv, &c.k);
    read(c.n_kv, &c.v);
    read(c.n_q, &c.out);
    REQUIRE_MESSAGE(!in.fail(), "attention/" << name << ".txt is shorter than its sizes say");
    return c;
}

}  // namespace

TEST_CASE("attention: every port matches PyTorch's multi-head attention, masks, padding and positions included") {
    for (const char* name : {"plain", "causal_self", "cached_step", "padded_causal", "wide_head"}) {
        const AttentionCase c = read_case(name);
        const size_t d = c.nhead * c.head_dim;
        // k and v interleaved per row, [k | v], as a packed key/value projection writes them.
        std::vector<float> kv(c.n_kv * 2 * d);
        for (size_t j = 0; j < c.n_kv; ++j)
            for (size_t i = 0; i < d; ++i) {
                kv[j * 2 * d + i] = c.k[j * d + i];
                kv[j * 2 * d + d + i] = c.v[j * d + i];
            }
        bool padded = false;
        for (uint8_t valid : c.key_valid) padded = padded || valid == 0;
        ax::AttentionInput in{};
        in.q = c.q.data();
        in.q_stride = d;
        in.k = kv.data();
        in.v = kv.data() + d;
        in.kv_stride = 2 * d;
        in.value_dim = c.head_dim;
        in.v_stride = 2 * d;
        in.n_q = c.n_q;
        in.n_kv = c.n_kv;
        in.first_position = c.first_position;
        in.causal = c.causal;
        in.key_valid = padded ? c.key_valid.data() : nullptr;
        for (const ax::Kernels* port : ax::test::available_ports()) {
            const size_t stride = d + 3;  // a row stride wider than the row: the gaps must stay untouched
            const float kUntouched = -12345.0f;
            std::vector<float> out(c.n_q * stride, kUntouched), scores(c.n_kv);
            ax::attend(*port, in, c.nhead, c.head_dim, scores.data(), out.data(), stride);
            std::vector<float> got;
            for (size_t r = 0; r < c.n_q; ++r) {
                got.insert(got.end(), out.begin() + r * stride, out.begin() + r * stride + d);
                for (size_t g = d; g < stride; ++g) CHECK(out[r * stride + g] == kUntouched);
            }
            ax::test::check_close(got, c.out, ax::test::tolerance::attention,
                                  std::string("attention/") + name + " on " + port->name);
        }
    }
}
