// The encoder layer (runtime/transformer_layer.h, encoder_layer_forward) against torch.nn.TransformerEncoderLayer
// on every port: fixtures from tests/fixtures/gen_layer_fixtures.py (post-norm ReLU, pre-norm GELU under a
// causal mask with eps 1e-6, key padding at an odd width), and the same layer written by hand with value heads
// wider and narrower than its keys (LayerOptions::value_dim). The scratch is planned and placed as a session
// places it, in an arena of exactly the planned size.
#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/memory_plan.h"
#include "runtime/transformer_layer.h"
#include "tests/test_support.h"
#include "tests/tolerances.h"

namespace {

struct LayerCase {
    size_t rows = 0, d = 0, nhead = 0, ff = 0;
    size_t value_dim = 0;  // values_* cases: value columns per head (0: d / nhead)
    bool norm_first = false, causal = false;
    ax::format::Activation activation = ax::format::Activation::relu;
    float eps = 0.0f;
    std::vector<uint8_t> key_valid;
    std::vector<float> in_w, in_b, out_w, out_b, ff1_w, ff1_b, ff2_w, ff2_b, n1_w, n1_b, n2_w, n2_b, x, want;
};

LayerCase read_case(const std::string& name) {
    std::ifstream in(ax::test::fixture_path("layers/" + name + ".txt"));
    REQUIRE_MESSAGE(in.good(), "missing fixture layers/" << name << ".txt");
    LayerCase c;
    int norm_first = 0, gelu = 0, causal = 0;
    in >> c.rows >> c.d >> c.nhead >> c.ff >> norm_first >> gelu >> causal >> c.eps;
    if (name.rfind("values_", 0) == 0) in >> c.value_dim;
    c.norm_first = norm_first != 0;
    c.causal = causal != 0;
    c.activation = gelu ? ax::format::Activation::gelu : ax::format::Activation::relu;
    for (size_t r = 0; r < c.rows; ++r) {
        int valid = 0;
        in >> valid;
        c.key_valid.push_back(static_cast<uint8_t>(valid));
    }
    const auto read = [&](size_t count, std::vector<float>* to) {
        to->resize(count);
        for (float& v : *to) in >> v;
    };
    const size_t d = c.d, v = c.value_dim != 0 ? c.nhead * c.value_dim : d;
    read((2 * d + v) * d, &c.in_w);
    read(2 * d + v, &c.in_b);
    read(d * v, &c.out_w);
    read(d, &c.out_b);
    read(c.ff * d, &c.ff1_w);
    read(c.ff, &c.ff1_b);
    read(d * c.ff, &c.ff2_w);
    read(d, &c.ff2_b);
    read(d, &c.n1_w);
    read(d, &c.n1_b);
    read(d, &c.n2_w);
    read(d, &c.n2_b);
    read(c.rows * d, &c.x);
    read(c.rows * d, &c.want);
    REQUIRE_MESSAGE(!in.fail(), "layers/" << name << ".txt is shorter than its sizes say");
    return c;
}

ax::Linear linear(const std::vector<float>& w, const std::vector<float>& b, size_t in, size_t out) {
    ax::Linear l;
    l.weight = w.data();
    l.bias = b.data();
    l.in = in;
    l.out = out;
    return l;
}

}  // namespace

TEST_CASE("transformer layer: the encoder layer matches torch.nn.TransformerEncoderLayer on every port") {
    for (const char* name :
         {"post_relu", "pre_gelu_causal", "padded_odd", "values_wide_post", "values_narrow_pre_causal"}) {
        const LayerCase c = read_case(name);
        ax::LayerOptions o;
        o.d_model = c.d;
        o.nhead = c.nhead;
        o.dim_feedforward = c.ff;
        o.norm_first = c.norm_first;
        o.activation = c.activation;
        o.eps = c.eps;
        o.value_dim = static_cast<uint32_t>(c.value_dim);
        ax::EncoderLayerWeights w;
        w.self_attn.in_proj = linear(c.in_w, c.in_b, c.d, 2 * c.d + o.value_width());
        w.self_attn.out_proj = linear(c.out_w, c.out_b, o.value_width(), c.d);
        w.ff1 = linear(c.ff1_w, c.ff1_b, c.d, c.ff);
        w.ff2 = linear(c.ff2_w, c.ff2_b, c.ff, c.d);
        w.norm1 = {c.n1_w.data(), c.n1_b.data()};
        w.norm2 = {c.n2_w.data(), c.n2_b.data()};

        ax::MemoryPlan planning;
        ax::LayerScratch unplaced;
        unplaced.allocate(planning, o, c.rows, c.rows, c.d, ax::Phase::encode, ax::Phase::encode);
        REQUIRE(planning.solve());
        bool padded = false;
        for (uint8_t valid : c.key_valid) padded = padded || valid == 0;
        for (const ax::Kernels* port : ax::test::available_ports()) {
            std::vector<uint64_t> arena((planning.total_bytes() + sizeof(uint64_t) - 1) / sizeof(uint64_t) + 8);
            uint8_t* base = reinterpret_cast<uint8_t*>(arena.data());
            base += (64 - reinterpret_cast<uintptr_t>(base) % 64) % 64;
            ax::MemoryPlan placing(planning, base, planning.total_bytes());
            ax::LayerScratch s;
            s.allocate(placing, o, c.rows, c.rows, c.d, ax::Phase::encode, ax::Phase::encode);
            REQUIRE_FALSE(placing.failed());
            std::vector<float> x = c.x;
            ax::encoder_layer_forward(*port, o, w, x.data(), c.rows, s, padded ? c.key_valid.data() : nullptr,
                                      c.causal);
            ax::test::check_close(x, c.want, ax::test::tolerance::layer,
                                  std::string("layers/") + name + " on " + port->name);
        }
    }
}
