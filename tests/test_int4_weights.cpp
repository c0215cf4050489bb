// 4-bit weights (format::DType::i4): the converter's group-wise quantization against numpy's bytes
// (tests/fixtures/gen_int4_fixtures.py), the reader's refusals of malformed int4 tensors, which matrices
// `--dtype int4` stores in 4 bits, and forecasters of the blocks converted to int4 against float32. The kernels'
// bit-identity across ports is tests/test_ports.cpp's; Chronos-Bolt's accuracy is
// tests/test_chronos_bolt_forecast.cpp's.
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "models/forecaster/chronos_bolt_file.h"
#include "runtime/bytes.h"
#include "runtime/checksum.h"
#include "runtime/model_file.h"
#include "tests/family_support.h"
#include "tests/test_support.h"
#include "tools/axm/axm_writer.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/convert/chronos_bolt_convert.h"
#include "tools/convert/converter.h"
#include "tools/convert/quantize.h"
#include "tools/host/family_sessions.h"
#include "tools/host/host_session.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;
namespace hdr = format::header;
namespace rec = format::tensor;

std::string hex(const uint8_t* p, size_t n) {
    std::string s;
    char b[3];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(b, sizeof b, "%02x", p[i]);
        s += b;
    }
    return s;
}

std::string fnv_hex(const void* p, size_t n) {
    char b[17];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(fnv1a64(static_cast<const uint8_t*>(p), n)));
    return b;
}

// The converted Chronos-Bolt checkpoint as the writer's model, weights stored as `dtype`.
tools::AxmModel chronos_model(const std::string& name, format::DType dtype) {
    tools::AxmModel m = tools::chronos_bolt_axm(tools::read_chronos_bolt(test::fixture_path("chronos_bolt/" + name)));
    tools::store_weights_as(m, dtype);
    return m;
}

Status open_bolt(const std::vector<uint8_t>& bytes) {
    const tools::AlignedBuffer buffer(bytes);
    ModelFile file;
    Status s = ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &file);
    ChronosBoltModel model;
    if (s) s = chronos_bolt_open(file, &model);
    return s;
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

bool message_has(const Status& s, const char* text) {
    INFO("message: " << s.message());
    return !s && std::strstr(s.message(), text) != nullptr;
}

}  // namespace

TEST_CASE("int4 quantization: the converter's bytes and scales are numpy's for the group-wise rule") {
    std::ifstream in(test::fixture_path("int4/edges.txt"));
    REQUIRE(in.good());
    size_t rows = 0, cols = 0;
    in >> rows >> cols;
    std::vector<float> w(rows * cols);
    for (float& v : w) {
        std::string word;
        in >> word;
        v = bits_to_float(static_cast<uint32_t>(std::stoul(word, nullptr, 16)));
    }
    std::string want_packed, want_scales;
    in >> want_packed >> want_scales;
    REQUIRE(!in.fail());
    std::vector<uint8_t> packed(rows * cols / 2);
    std::vector<uint16_t> scales(rows * cols / 32);
    tools::quantize_matrix_i4(w.data(), rows, cols, packed.data(), scales.data(), "edges");
    CHECK(hex(packed.data(), packed.size()) == want_packed);
    CHECK(hex(reinterpret_cast<const uint8_t*>(scales.data()), scales.size() * 2) == want_scales);
    // What the edge rows hold (docs/FORMAT.md): ties to even at scale 1, a zero group, a group too small for a
    // half scale (scale 0, zeros), a subnormal half scale.
    CHECK(scales[0] == 0x3c00);  // 1.0
    CHECK(packed[0] == 0x07);    // 7, then 0.5 -> 0
    CHECK(packed[1] == 0x22);    // 1.5 -> 2, 2.5 -> 2
    CHECK(packed[2] == 0xe0);    // -0.5 -> 0, -1.5 -> -2
    CHECK(scales[1] == 0);
    CHECK(scales[2] == 0);
    CHECK(scales[3] != 0);
    CHECK(scales[3] < 0x0400);  // subnormal half

    // Every 4-bit matrix of the two Chronos-Bolt checkpoints, q, k and v stacked as stored.
    std::ifstream list(test::fixture_path("int4/chronos.txt"));
    REQUIRE(list.good());
    std::map<std::string, std::string> want;  // "model name" -> "rows cols fnv fnv"
    std::string line;
    while (std::getline(list, line)) {
        std::istringstream fields(line);
        std::string model, name, rest;
        fields >> model >> name;
        std::getline(fields, rest);
        want[model + " " + name] = rest;
    }
    REQUIRE(want.size() == 28);
    size_t matched = 0;
    for (const char* model : {"dummy", "small"}) {
        const tools::AxmModel m = chronos_model(model, format::DType::i4);
        for (const tools::AxmTensor& t : m.tensors) {
            INFO(model << " " << t.source_name);
            if (t.role == format::Role::relative_bias || t.role == format::Role::src_token_embed) {
                CHECK(t.dtype == format::DType::f32);  // lookup tables stay float32, as with int8
                continue;
            }
            if (t.dims.size() != 2) continue;
            const auto it = want.find(std::string(model) + " " + t.source_name);
            if (t.dims[1] % 32 != 0) {
                CHECK(t.dtype == format::DType::i8);  // too narrow for groups of 32: int8
                CHECK(it == want.end());
                continue;
            }
            REQUIRE(it != want.end());
            CHECK(t.dtype == format::DType::i4);
            const std::string got = " " + std::to_string(t.dims[0]) + " " + std::to_string(t.dims[1]) + " " +
                                    fnv_hex(t.data.data(), t.data.size()) + " " +
                                    fnv_hex(t.group_scales.data(), t.group_scales.size() * 2);
            CHECK(got == it->second);
            ++matched;
        }
    }
    CHECK(matched == want.size());
}

TEST_CASE("int4 quantization refuses weights it cannot store") {
    std::vector<float> w(32, 0.5f);
    std::vector<uint8_t> packed(16);
    std::vector<uint16_t> scales(1);
    w[3] = std::nanf("");
    CHECK_THROWS_WITH_AS(tools::quantize_matrix_i4(w.data(), 1, 32, packed.data(), scales.data(), "wq"),
                         doctest::Contains("not a finite weight"), tools::ToolError);
    w[3] = 1e6f;  // scale 142857: beyond half's 65504
    CHECK_THROWS_WITH_AS(tools::quantize_matrix_i4(w.data(), 1, 32, packed.data(), scales.data(), "wq"),
                         doctest::Contains("keep this model in int8"), tools::ToolError);
    CHECK(tools::parse_dtype("int4") == format::DType::i4);
    CHECK(tools::parse_dtype("i4") == format::DType::i4);
    CHECK_THROWS_WITH_AS(tools::parse_dtype("int3"), doctest::Contains("int4"), tools::ToolError);
}

TEST_CASE("int4 tensors: a truncated or inconsistent one is refused with the reason") {
    const std::vector<uint8_t> good = tools::serialize_axm(chronos_model("small", format::DType::i4));
    REQUIRE(open_bolt(good));
    // The first int4 record.
    const size_t table = load_u64(good.data() + hdr::tensor_offset);
    const uint32_t count = load_u32(good.data() + hdr::tensor_count);
    size_t r = 0;
    for (uint32_t i = 0; i < count && r == 0; ++i)
        if (good[table + i * format::kTensorRecordBytes + rec::dtype] == static_cast<uint8_t>(format::DType::i4))
            r = table + i * format::kTensorRecordBytes;
    REQUIRE(r != 0);
    const uint64_t data_bytes = load_u64(good.data() + r + rec::data_bytes);
    CHECK(data_bytes ==
          uint64_t{load_u32(good.data() + r + rec::dims)} * load_u32(good.data() + r + rec::dims + 4) / 2);
    const auto patched = [&](auto change) {
        std::vector<uint8_t> b = good;
        change(b);
        tools::reseal_axm(b);
        return open_bolt(b);
    };
    CHECK(message_has(patched([&](auto& b) { put_u64(b, r + rec::data_bytes, data_bytes * 2); }),
                      "does not match its shape"));
    CHECK(message_has(
        patched([&](auto& b) { put_u64(b, r + rec::scale_bytes, load_u64(b.data() + r + rec::scale_bytes) - 2); }),
        "int4 group scales hold"));
    CHECK(message_has(patched([&](auto& b) {
                          put_u64(b, r + rec::scale_offset, 0);
                          put_u64(b, r + rec::scale_bytes, 0);
                      }),
                      "int4 group scales hold 0 bytes"));
    CHECK(message_has(patched([&](auto& b) { put_u32(b, r + rec::dims + 4, 48); }),
                      "not a multiple of its scale groups"));
    CHECK(message_has(patched([&](auto& b) {
                          b[r + rec::rank] = 1;
                          put_u32(b, r + rec::dims + 4, 0);
                      }),
                      "no matrix"));
    // A dtype this runtime does not know is refused by number: how a runtime from before int4 answers a file
    // holding int4 tensors ("unknown dtype 4"), instead of reading half-size data as int8.
    CHECK(message_has(patched([&](auto& b) { b[r + rec::dtype] = 5; }), "unknown dtype 5"));
    // Truncated anywhere in the int4 data or scales: the header's size no longer fits what is there.
    for (const uint64_t cut :
         {load_u64(good.data() + r + rec::data_offset) + 1, load_u64(good.data() + r + rec::scale_offset) + 1}) {
        std::vector<uint8_t> b(good.begin(), good.begin() + static_cast<std::ptrdiff_t>(cut));
        const tools::AlignedBuffer buffer(b);
        ModelFile file;
        CHECK(message_has(ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &file), "truncated"));
    }
    // A lookup table stored as int4 (a hand-made file: the converter never writes one) is refused by its binder
    // (Chronos-Bolt's tables are read as float32 only).
    tools::AxmModel m = chronos_model("small", format::DType::i4);
    for (tools::AxmTensor& t : m.tensors) {
        if (t.role != format::Role::src_token_embed) continue;
        t.dims = {2, 32};  // [vocab 2, d 32]
        t.data.assign(32, 0x11);
        t.group_scales.assign(2, 0x3c00);
        t.dtype = format::DType::i4;
    }
    CHECK(message_has(open_bolt(tools::serialize_axm(m)), "must be float32"));
}

TEST_CASE("int4 forecasters of the blocks: Linear weights of 32-column multiples in 4 bits, near float32") {
    // post_relu_tril and pre_gelu_none_final: d_model 32, so every attention and feed-forward matrix takes
    // groups of 32; the input embeddings stay float32 (as with int8) and the generator [n_outputs, 32] is int4.
    // The bound: int8 is held to 5e-2 of the outputs' RMS (tests/test_quantized.cpp); 4-bit steps are about
    // ten times coarser. Measured with AUSPEX_REPORT_ERRORS=1.
    for (const char* name : {"post_relu_tril", "pre_gelu_none_final", "norm_global"}) {
        const std::string dir = test::fixture_path(std::string("forecaster/") + name);
        const tools::Table src = tools::read_csv(dir + "/src.csv"), tgt = tools::read_csv(dir + "/tgt.csv");
        const tools::Table want = tools::read_csv(dir + "/run_out.csv");
        const double scale = test::rms(want.values);
        tools::ConvertOptions o;
        o.checkpoint_path = dir + "/model.pt";
        o.config_path = dir + "/config.json";
        o.dtype = format::DType::i4;
        const auto model = tools::load_model_bytes(tools::convert_model(o), name);
        size_t four = 0;
        for (uint32_t i = 0; i < model->file.tensor_count(); ++i) {
            const TensorView v = model->file.tensor(i);
            INFO(name << ": " << format::role_name(v.role));
            if (v.role == format::Role::src_embed_weight || v.role == format::Role::tgt_embed_weight)
                CHECK(v.dtype == format::DType::f32);
            else if (v.rank == 2)
                CHECK(v.dtype == (v.dims[1] % 32 == 0 ? format::DType::i4 : format::DType::i8));
            four += v.dtype == format::DType::i4 ? 1 : 0;
        }
        CHECK(four > 4);
        for (const Kernels* k : test::available_ports()) {
            tools::HostSession s(*model, *k, src.rows, tgt.rows);
            const std::vector<float> got =
                s.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::model);
            INFO(name << " port " << k->name);
            double worst = 0;
            for (size_t i = 0; i < got.size(); ++i) {
                const double d = std::fabs(got[i] - want.values[i]);
                worst = d > worst ? d : worst;
            }
            if (std::getenv("AUSPEX_REPORT_ERRORS") && k == test::available_ports().front())
                std::printf("int4 %s: max error %.3g x output rms\n", name, worst / scale);
            CHECK(worst <= 0.5 * scale);
        }
    }
}

TEST_CASE("int4 token models: embedding tables stay lookups (int8), the products take int4, logits near float32") {
    // The seq2seq tutorial model (d_model 32, d_ff 48): its attention and first feed-forward matrices read 32
    // columns (int4), the second feed-forward reads 48 (int8), the token embeddings are tables (int8). Bound: as
    // the forecasters of the blocks above, half the logits' RMS (measured with AUSPEX_REPORT_ERRORS=1).
    const std::string dir = test::fixture_path("seq2seq/tutorial");
    const auto f32 = tools::open_model_bytes(test::convert_case(dir, format::DType::f32), "tutorial");
    const auto i4 = tools::open_model_bytes(test::convert_case(dir, format::DType::i4), "tutorial");
    size_t four = 0;
    for (uint32_t i = 0; i < i4->file.tensor_count(); ++i) {
        const TensorView v = i4->file.tensor(i);
        INFO(format::role_name(v.role));
        if (v.role == format::Role::src_token_embed || v.role == format::Role::tgt_token_embed)
            CHECK(v.dtype == format::DType::i8);
        four += v.dtype == format::DType::i4 ? 1 : 0;
    }
    CHECK(four > 4);
    const std::vector<int32_t> src = {2, 5, 7, 9, 4, 3}, tgt = {2, 6, 8, 5};
    const Kernels& k = *test::available_ports().front();
    tools::HostSeq2Seq a(*f32, k, src.size(), tgt.size()), b(*i4, k, src.size(), tgt.size());
    const std::vector<float> want = a.run(src, tgt), got = b.run(src, tgt);
    REQUIRE(got.size() == want.size());
    CHECK(test::all_finite(got));
    const double err = test::max_abs_error(got, want), scale = test::rms(want);
    if (std::getenv("AUSPEX_REPORT_ERRORS"))
        std::printf("int4 seq2seq tutorial: max error %.3g x logits rms\n", err / scale);
    CHECK(err > 0.0);
    CHECK(err <= 0.5 * scale);
}
