// int8 key/value caches (config key kv_cache, `convert --kv-cache int8`): close to the float-cache model in
// every family, the same bits on every port with int8 weights, refused where a model cannot have one, and
// old files (no key) keep float caches.
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ports/ports.h"
#include "runtime/bytes.h"
#include "tests/family_support.h"
#include "tests/test_support.h"
#include "tools/axm/axm_writer.h"
#include "tools/convert/converter.h"
#include "tools/import/convert_config.h"
#include "tools/text/csv.h"
#include "tools/host/family_sessions.h"
#include "tools/host/host_session.h"
#include "tools/common/tool_error.h"

namespace {

using namespace ax;
using test::convert_case;

// The value of config key `key` in a serialized model, or -1.
int64_t config_value(const std::vector<uint8_t>& bytes, format::ConfigKey key) {
    const uint32_t count = load_u32(bytes.data() + format::header::config_count);
    for (uint32_t i = 0; i < count; ++i) {
        const uint8_t* r = bytes.data() + format::kHeaderBytes + i * format::kConfigRecordBytes;
        if (load_u32(r) == static_cast<uint32_t>(key)) return load_u32(r + 4);
    }
    return -1;
}

// The fixture's float32 model with one more config record, written without the converter's own
// validation (which refuses what these tests feed to the loader).
std::vector<uint8_t> convert_with_record(const std::string& dir, uint32_t key, uint32_t value) {
    tools::ConvertOptions o;
    o.checkpoint_path = dir + "/model.pt";
    o.config_path = dir + "/config.json";
    tools::AxmModel m = tools::import_model(tools::read_model_tensors(o), tools::read_convert_config(o.config_path));
    m.config.emplace_back(static_cast<format::ConfigKey>(key), value);
    return tools::serialize_axm(m);
}

double max_abs_diff(const std::vector<float>& a, const std::vector<float>& b) { return test::max_abs_error(a, b); }

}  // namespace

TEST_CASE("kv cache: the converter records int8 caches, inspect's config shows them, old files keep f32") {
    const std::string dir = test::fixture_path("forecaster/post_relu_tril");
    const std::vector<uint8_t> f32 = convert_case(dir, format::DType::f32, format::CacheType::f32);
    const std::vector<uint8_t> i8 = convert_case(dir, format::DType::f32, format::CacheType::i8);
    CHECK(config_value(f32, format::ConfigKey::kv_cache) == -1);  // float caches add no record: files as before
    CHECK(config_value(i8, format::ConfigKey::kv_cache) == 1);
    CHECK(tools::load_model_bytes(f32, "f32")->as<Forecaster>().config().stack.kv_cache == format::CacheType::f32);
    CHECK(tools::load_model_bytes(i8, "i8")->as<Forecaster>().config().stack.kv_cache == format::CacheType::i8);
    // An explicit f32 record is as good as none.
    const auto explicit_f32 = tools::load_model_bytes(convert_with_record(dir, 27, 0), "explicit");
    CHECK(explicit_f32->as<Forecaster>().config().stack.kv_cache == format::CacheType::f32);
}

TEST_CASE("kv cache: an unknown cache type, or int8 caches without a decoder, are refused") {
    const std::string fc = test::fixture_path("forecaster/post_relu_tril");
    try {
        tools::load_model_bytes(convert_with_record(fc, 27, 2), "x");
        FAIL("kv_cache 2 was accepted");
    } catch (const tools::ToolError& e) {
        CHECK(std::string(e.what()).find("kv_cache") != std::string::npos);
    }
    // A classifier that pools the encoder has no decoder, so no cache.
    const std::string cls = test::fixture_path("classifier/pad0_max_sigmoid");
    try {
        convert_case(cls, format::DType::f32, format::CacheType::i8);
        FAIL("--kv-cache int8 was accepted for a model without a decoder");
    } catch (const tools::ToolError& e) {
        CHECK(std::string(e.what()).find("no decoder") != std::string::npos);
    }
    try {
        tools::open_model_bytes(convert_with_record(cls, 27, 1), "x");
        FAIL("an int8 kv_cache without decoder layers was accepted");
    } catch (const tools::ToolError& e) {
        CHECK(std::string(e.what()).find("without decoder layers") != std::string::npos);
    }
}

TEST_CASE("kv cache: int8 forecasters stay close to their float-cache twins, and shrink the arena") {
    const char* const cases[] = {"post_relu_tril", "pre_gelu_none_final", "odd_sizes",      "multi_out",
                                 "pre_relu_tril",  "norm_global",         "norm_last_value"};
    for (const char* name : cases) {
        const std::string dir = test::fixture_path(std::string("forecaster/") + name);
        const tools::Table src = tools::read_csv(dir + "/src.csv"), tgt = tools::read_csv(dir + "/tgt.csv");
        const auto ref = tools::load_model_bytes(convert_case(dir, format::DType::f32, format::CacheType::f32), name);
        const auto i8 = tools::load_model_bytes(convert_case(dir, format::DType::f32, format::CacheType::i8), name);
        CHECK(i8->as<Forecaster>().arena_bytes(src.rows, tgt.rows) <
              ref->as<Forecaster>().arena_bytes(src.rows, tgt.rows));
        for (const Kernels* k : test::available_ports()) {
            tools::HostSession a(*i8, *k, src.rows, tgt.rows), b(*ref, *k, src.rows, tgt.rows);
            const std::vector<float> got =
                a.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::model);
            const std::vector<float> want =
                b.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::model);
            const double scale = test::rms(want);
            INFO(name << " on " << std::string(k->name) << ": max diff " << max_abs_diff(got, want) << ", rms "
                      << scale);
            // Keys and values carry 1/254 of each row's largest value; attention averages the error down.
            CHECK(max_abs_diff(got, want) <= 2e-2 * scale);
        }
    }
}

TEST_CASE("kv cache: int8 caches keep a forecast reproducible: cached equals recomputed, ports agree") {
    // The int8 cache kernels are bit-identical on every port (test_ports.cpp); the float kernels around them
    // (softmax, LayerNorm, the float32 embeddings) are so only on generic, which the boards run: there the
    // cached forecast and the recomputing one see the same quantized rows and give the same bits. Other
    // ports agree to float rounding (amplified by int8 rounding of the activations).
    const std::string dir = test::fixture_path("forecaster/pre_relu_tril");
    const tools::Table src = tools::read_csv(dir + "/src.csv"), tgt = tools::read_csv(dir + "/tgt.csv");
    const auto model = tools::load_model_bytes(convert_case(dir, format::DType::i8, format::CacheType::i8), "i8");
    const size_t horizon = tgt.rows;
    std::vector<float> want;
    for (const Kernels* k : test::available_ports()) {
        tools::HostSession s(*model, *k, src.rows, horizon);
        const std::vector<float> fc = s.forecast(src.values.data(), src.rows, horizon);
        INFO("port " << std::string(k->name));
        if (want.empty()) {  // generic comes first
            const std::vector<float> slow = s.forecast_recompute(src.values.data(), src.rows, horizon);
            CHECK(std::memcmp(fc.data(), slow.data(), fc.size() * sizeof(float)) == 0);
            want = fc;
            continue;
        }
        CHECK(max_abs_diff(fc, want) <= 1e-2 * test::rms(want));
    }
}

TEST_CASE("kv cache: int8 caches in the token and latent families stay close to float caches") {
    {
        const std::string dir = test::fixture_path("seq2seq/tutorial");
        const tools::JsonValue j = test::case_json(dir);
        const std::vector<int32_t> src = test::json_ids(*j.find("src"), "src"),
                                   tgt = test::json_ids(*j.find("tgt"), "tgt");
        const uint32_t pad = static_cast<uint32_t>(j.find("pad_id")->as_int("pad_id", 0, 1000));
        const auto ref = tools::open_model_bytes(convert_case(dir, format::DType::f32, format::CacheType::f32), "f32");
        const auto i8 = tools::open_model_bytes(convert_case(dir, format::DType::f32, format::CacheType::i8), "i8");
        for (const Kernels* k : test::available_ports()) {
            tools::HostSeq2Seq a(*i8, *k, src.size(), tgt.size()), b(*ref, *k, src.size(), tgt.size());
            a.set_pad_id(pad);
            b.set_pad_id(pad);
            const std::vector<float> got = a.run(src, tgt), want = b.run(src, tgt);
            INFO("seq2seq on " << std::string(k->name));
            CHECK(test::max_abs_error(got, want) <= 2e-2 * test::rms(want));
        }
    }
    {
        const std::string dir = test::fixture_path("classifier/decoder_start");
        const tools::JsonValue j = test::case_json(dir);
        const auto ref = tools::open_model_bytes(convert_case(dir, format::DType::f32, format::CacheType::f32), "f32");
        const auto i8 = tools::open_model_bytes(convert_case(dir, format::DType::f32, format::CacheType::i8), "i8");
        for (const tools::JsonValue& input : j.find("inputs")->as_array("inputs")) {
            const std::vector<int32_t> tokens = test::json_ids(input, "input");
            tools::HostClassifier a(*i8, generic_kernels(), tokens.size()), b(*ref, generic_kernels(), tokens.size());
            const std::vector<float> got = a.classify(tokens), want = b.classify(tokens);
            CHECK(test::max_abs_error(got, want) <= 2e-2 * test::rms(want));
        }
    }
    {
        const std::string dir = test::fixture_path("tvae/post_relu_pe");
        const tools::Table x = tools::read_csv(dir + "/input.csv");
        const auto ref = tools::open_model_bytes(convert_case(dir, format::DType::f32, format::CacheType::f32), "f32");
        const auto i8 = tools::open_model_bytes(convert_case(dir, format::DType::f32, format::CacheType::i8), "i8");
        tools::HostTvae a(*i8, generic_kernels(), x.rows), b(*ref, generic_kernels(), x.rows);
        const std::vector<float> got = a.run(x.values, x.rows), want = b.run(x.values, x.rows);
        CHECK(test::max_abs_error(got, want) <= 2e-2 * test::rms(want));
        const std::vector<float> re = a.reconstruct(x.values, x.rows), re_want = b.reconstruct(x.values, x.rows);
        CHECK(test::max_abs_error(re, re_want) <= 2e-2 * test::rms(re_want));
    }
}
