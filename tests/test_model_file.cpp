// The .axm reader refuses every malformed, truncated or corrupted file with a clear status.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <string>

#include "models/forecaster/forecaster.h"
#include "ports/ports.h"
#include "runtime/bytes.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/converter.h"

namespace {

using namespace ax;
namespace hdr = format::header;
namespace rec = format::tensor;

std::vector<uint8_t> small_model() {
    static const std::vector<uint8_t> bytes = [] {
        tools::ConvertOptions o;
        o.checkpoint_path = test::fixture_path("forecaster/multi_out/model.pt");
        o.config_path = test::fixture_path("forecaster/multi_out/config.json");
        return tools::convert_model(o);
    }();
    return bytes;
}

// Opens the bytes as the runtime would (copied to aligned memory) and, when that works, the forecaster.
Status open_all(const std::vector<uint8_t>& bytes, Checksum checksum = Checksum::verify) {
    tools::AlignedBuffer buffer(bytes);
    ModelFile file;
    Status s = ModelFile::open(buffer.data(), buffer.size(), checksum, &file);
    if (!s) return s;
    Forecaster f;
    return Forecaster::open(file, &f);
}

void put_u32(std::vector<uint8_t>& b, size_t at, uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}
void put_u64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
    for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

size_t record(const std::vector<uint8_t>& b, uint32_t index) {
    return load_u64(b.data() + hdr::tensor_offset) + index * format::kTensorRecordBytes;
}

bool message_has(const Status& s, const char* text) { return std::strstr(s.message(), text) != nullptr; }

}  // namespace

TEST_CASE("a converted model opens, and its checksum covers every byte after the checksum field") {
    const std::vector<uint8_t> good = small_model();
    REQUIRE(open_all(good).is_ok());
    // Every byte of header, config and tensor table, then a sample through the data.
    const size_t tables_end = record(good, load_u32(good.data() + hdr::tensor_count));
    for (size_t i = format::kChecksumStart; i < good.size(); i += (i < tables_end ? 1 : 61)) {
        std::vector<uint8_t> bad = good;
        bad[i] ^= 0x20;
        const Status s = open_all(bad);
        INFO("byte " << i);
        REQUIRE_FALSE(s.is_ok());
    }
    std::vector<uint8_t> bad = good;
    bad.back() ^= 1;
    CHECK(message_has(open_all(bad), "checksum"));
    // The checksum field itself.
    bad = good;
    bad[hdr::checksum] ^= 1;
    CHECK(message_has(open_all(bad), "checksum"));
}

TEST_CASE("truncation anywhere is refused") {
    const std::vector<uint8_t> good = small_model();
    for (size_t cut : {size_t{0}, size_t{1}, size_t{8}, size_t{63}, size_t{64}, size_t{100}, good.size() / 2,
                       good.size() - 64, good.size() - 1}) {
        std::vector<uint8_t> bad(good.begin(), good.begin() + static_cast<long>(cut));
        INFO("cut at " << cut);
        CHECK_FALSE(open_all(bad).is_ok());
        CHECK_FALSE(open_all(bad, Checksum::skip).is_ok());
    }
    std::vector<uint8_t> bad(good.begin(), good.end() - 1);
    CHECK(message_has(open_all(bad), "truncated"));
}

TEST_CASE("header checks: magic, version, flags, table placement") {
    const std::vector<uint8_t> good = small_model();
    std::vector<uint8_t> b = good;
    b[0] = 'X';
    CHECK(message_has(open_all(b), "magic"));

    b = good;
    put_u32(b, hdr::version, 2);
    tools::reseal_axm(b);
    const Status newer = open_all(b);
    CHECK(newer.code() == StatusCode::unsupported);
    CHECK(message_has(newer, "version 2"));

    b = good;
    put_u32(b, hdr::flags, 1);
    tools::reseal_axm(b);
    CHECK_FALSE(open_all(b).is_ok());

    b = good;
    put_u64(b, hdr::tensor_offset, load_u64(b.data() + hdr::tensor_offset) + 8);
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "tables"));

    b = good;
    put_u32(b, hdr::tensor_count, 0x7fffffff);
    tools::reseal_axm(b);
    CHECK_FALSE(open_all(b).is_ok());

    b = good;
    put_u32(b, hdr::family, 77);
    tools::reseal_axm(b);
    CHECK(open_all(b).code() == StatusCode::unsupported);
}

TEST_CASE("tensor record checks: alignment, overlap, bounds, sizes, roles") {
    const std::vector<uint8_t> good = small_model();
    const size_t r1 = record(good, 1);
    std::vector<uint8_t> b = good;

    put_u64(b, r1 + rec::data_offset, load_u64(b.data() + r1 + rec::data_offset) + 4);
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "aligned"));

    b = good;  // tensor 1 pointed at tensor 0's data
    put_u64(b, r1 + rec::data_offset, load_u64(b.data() + record(b, 0) + rec::data_offset));
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "overlaps"));

    b = good;
    put_u64(b, r1 + rec::data_offset, uint64_t{1} << 40);
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "past the file"));

    b = good;  // a header claiming 2^40 elements is refused before anything uses it
    put_u32(b, r1 + rec::dims, 1u << 20);
    put_u32(b, r1 + rec::dims + 4, 1u << 20);
    b[r1 + rec::rank] = 2;
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "does not match its shape"));

    b = good;
    b[r1 + rec::rank] = 5;
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "rank"));

    b = good;
    b[r1 + rec::dtype] = 9;
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "dtype"));

    b = good;
    b[r1 + rec::role] = 200;
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "role"));

    b = good;  // record 1 claims record 0's role and layer
    std::memcpy(b.data() + r1, b.data() + record(b, 0), 4);
    tools::reseal_axm(b);
    CHECK_FALSE(open_all(b).is_ok());
}

TEST_CASE("shapes and configs that contradict the family are refused, naming the tensor") {
    const std::vector<uint8_t> good = small_model();
    tools::AlignedBuffer buffer(good);
    ModelFile file;
    REQUIRE(ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &file).is_ok());

    // Rebuild the model with one tensor's shape swapped.
    tools::AxmModel m;
    for (uint32_t i = 0; i < file.config_count(); ++i) {
        uint32_t k = 0, v = 0;
        file.config_record(i, &k, &v);
        m.config.push_back({static_cast<format::ConfigKey>(k), v});
    }
    for (uint32_t i = 0; i < file.tensor_count(); ++i) {
        const TensorView v = file.tensor(i);
        tools::AxmTensor t;
        t.role = v.role;
        t.layer = v.layer;
        t.dims.assign(v.dims, v.dims + v.rank);
        const uint8_t* p = static_cast<const uint8_t*>(v.data);
        t.data.assign(p, p + v.data_bytes);
        m.tensors.push_back(t);
    }
    REQUIRE(open_all(tools::serialize_axm(m)).is_ok());

    tools::AxmModel swapped = m;
    for (auto& t : swapped.tensors)
        if (t.role == format::Role::enc_ff1_weight) std::swap(t.dims[0], t.dims[1]);
    const Status s = open_all(tools::serialize_axm(swapped));
    CHECK(message_has(s, "encoder.layers.{}.linear1.weight (layer 0) has shape"));

    tools::AxmModel missing = m;
    missing.tensors.pop_back();
    CHECK(message_has(open_all(tools::serialize_axm(missing)), "missing tensor"));

    tools::AxmModel extra = m;
    for (const auto& t : m.tensors)
        if (t.role == format::Role::enc_ff1_weight) extra.tensors.push_back(t);
    extra.tensors.back().layer = 7;
    CHECK(message_has(open_all(tools::serialize_axm(extra)), "do not use"));

    tools::AxmModel heads = m;
    for (auto& c : heads.config)
        if (c.first == format::ConfigKey::nhead) c.second = 3;
    CHECK(message_has(open_all(tools::serialize_axm(heads)), "multiple of nhead"));

    tools::AxmModel no_key = m;
    for (auto it = no_key.config.begin(); it != no_key.config.end(); ++it)
        if (it->first == format::ConfigKey::normalization) {
            no_key.config.erase(it);
            break;
        }
    CHECK(message_has(open_all(tools::serialize_axm(no_key)), "config lacks"));
}

TEST_CASE("sessions refuse zero-length, too-long and non-finite inputs") {
    const std::vector<uint8_t> bytes = small_model();
    tools::AlignedBuffer buffer(bytes);
    ModelFile file;
    REQUIRE(ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &file).is_ok());
    Forecaster f;
    REQUIRE(Forecaster::open(file, &f).is_ok());
    CHECK(f.arena_bytes(0, 4) == 0);
    CHECK(f.arena_bytes(4, kMaxSequenceLength + 1) == 0);
    tools::AlignedBuffer arena(f.arena_bytes(8, 4));
    ForecastSession s;
    REQUIRE(s.init(f, generic_kernels(), arena.data(), arena.size(), 8, 4).is_ok());
    std::vector<float> src(8 * 4, 0.5f), tgt(4 * 4, 0.25f), out(4 * 2);
    CHECK(s.run(src.data(), 8, tgt.data(), 4, InputSpace::model, out.data()).is_ok());
    CHECK(s.run(src.data(), 0, tgt.data(), 4, InputSpace::model, out.data()).code() == StatusCode::invalid_argument);
    CHECK(s.run(src.data(), 9, tgt.data(), 4, InputSpace::model, out.data()).code() == StatusCode::invalid_argument);
    CHECK(s.run(src.data(), 8, tgt.data(), 0, InputSpace::model, out.data()).code() == StatusCode::invalid_argument);
    src[5] = std::nanf("");
    CHECK(s.run(src.data(), 8, tgt.data(), 4, InputSpace::model, out.data()).code() == StatusCode::bad_input);
    src[5] = INFINITY;
    CHECK(s.run(src.data(), 8, tgt.data(), 4, InputSpace::model, out.data()).code() == StatusCode::bad_input);
    // This model has 4 features and 2 outputs: its decoder's other 2 columns are inputs known ahead, so a
    // forecast needs their values for its steps.
    CHECK(s.forecast(src.data(), 8, 4, out.data()).code() == StatusCode::invalid_argument);
    // Misaligned arena and model buffers.
    CHECK(s.init(f, generic_kernels(), arena.data() + 4, arena.size() - 4, 8, 4).code() ==
          StatusCode::invalid_argument);
    CHECK(ModelFile::open(buffer.data() + 4, buffer.size() - 4, Checksum::verify, &file).code() ==
          StatusCode::invalid_argument);
}

TEST_CASE("calibrated input ranges: finite, not negative, and only on matrices") {
    const std::vector<uint8_t> good = small_model();
    uint32_t matrix = 0, vector = 0;
    tools::AlignedBuffer buffer(good);
    ModelFile file;
    REQUIRE(ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &file).is_ok());
    for (uint32_t i = 0; i < file.tensor_count(); ++i) (file.tensor(i).rank == 2 ? matrix : vector) = i;
    auto with_range = [&](uint32_t index, uint32_t bits) {
        std::vector<uint8_t> b = good;
        put_u32(b, record(b, index) + rec::input_absmax, bits);
        tools::reseal_axm(b);
        return open_all(b);
    };
    CHECK(with_range(matrix, float_to_bits(3.5f)).is_ok());
    CHECK(message_has(with_range(matrix, float_to_bits(-1.0f)), "input range is not a finite number"));
    CHECK(message_has(with_range(matrix, 0x7fc00000u), "input range is not a finite number"));  // NaN
    CHECK(message_has(with_range(matrix, 0x7f800000u), "input range is not a finite number"));  // Inf
    CHECK(message_has(with_range(vector, float_to_bits(1.0f)), "no matrix"));
    std::vector<uint8_t> b = good;
    b[record(b, matrix) + rec::reserved2] = 1;
    tools::reseal_axm(b);
    CHECK(message_has(open_all(b), "reserved fields are not zero"));
}
