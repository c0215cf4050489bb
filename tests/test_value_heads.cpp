// Attention whose value heads have their own width (LayerOptions::value_dim, the config key value_dim): the ONNX
// fixtures written head by head with values as wide as d_model (tests/fixtures/gen_onnx_quirk_fixtures.py:
// per_head_wide, encoder-only; per_head_wide_decoder, an encoder-decoder whose key/value caches hold the wide
// values) in every stored dtype against PyTorch on every port, the same bits on two threads, the record and what
// open checks of it, and the integer-only mode's refusal. (tests/test_onnx_convert.cpp converts them with their
// check pairs; tests/test_transformer_layer.cpp and test_threads_layer.cpp run the layers alone.)
#include <doctest/doctest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/auspex.h"
#include "models/forecaster/forecaster.h"
#include "models/forecaster/forecaster_config.h"
#include "ports/ports.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/axm/axm_writer.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/convert/chronos_bolt_convert.h"
#include "tools/convert/converter.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/onnx_import/onnx_convert.h"
#include "tools/text/csv.h"

namespace {

using namespace ax;

const char* const kCases[] = {"per_head_wide", "per_head_wide_decoder"};

std::string quirk(const std::string& c, const std::string& file) {
    return test::fixture_path("onnx_quirks/" + c + "/" + file);
}

tools::ConvertOptions options(const std::string& c, format::DType dtype, format::CacheType kv) {
    tools::ConvertOptions o;
    o.checkpoint_path = quirk(c, "model.onnx");
    o.config_path = quirk(c, "config.json");
    o.dtype = dtype;
    o.kv_cache = kv;
    return o;
}

// Model bytes with the config records of `m` edited by `edit`.
std::vector<uint8_t> edited(tools::AxmModel m, format::ConfigKey key, const uint32_t* value) {
    std::vector<std::pair<format::ConfigKey, uint32_t>> kept;
    for (const auto& record : m.config)
        if (record.first != key) kept.push_back(record);
    if (value != nullptr) kept.push_back({key, *value});
    m.config = kept;
    return tools::serialize_axm(m);
}

std::string open_error(const std::vector<uint8_t>& bytes) {
    try {
        tools::open_model_bytes(bytes, "edited");
    } catch (const tools::ToolError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("value heads: wide value heads are a record of the file, read back as the layers' value_dim") {
    for (const char* name : kCases) {
        const std::string c = name;
        CAPTURE(c);
        const onnx_import::OnnxImport imported =
            onnx_import::import_onnx(options(c, format::DType::f32, format::CacheType::f32));
        // The graph's layers, recomputed from the lowered tensors (values [rows, heads x d_model]), match it.
        CHECK(onnx_import::first_block_that_differs(imported).find("every layer recomputed") == 0);
        const auto model = tools::open_model_bytes(tools::serialize_axm(imported.model), c);
        const LayerOptions& o = model->as<Forecaster>().config().stack.layer;
        CHECK(o.d_model == 16);
        CHECK(o.nhead == 2);
        CHECK(o.value_head_dim() == 16);
        CHECK(o.head_dim() == 8);
        CHECK(o.value_width() == 32);
    }
    const std::string path = (test::scratch_dir() / "value_heads_inspect.axm").string();
    REQUIRE(test::auspex("convert " + quirk("per_head_wide_decoder", "model.onnx") + " --config " +
                         quirk("per_head_wide_decoder", "config.json") + " -o " + path)
                .exit_code == 0);
    const test::Result r = test::auspex("inspect " + path);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(r.output.find("values:   value_dim 16 per head (queries and keys 8): each attention's output is 32 "
                                "wide") != std::string::npos,
                  r.output);
    CHECK_MESSAGE(
        r.output.find("decoder.layers.0.self_attn.in_proj_weight            f32   [64, 16]") != std::string::npos,
        r.output);
    const test::Result h = test::auspex("header " + path + " -o " + path + ".h");
    REQUIRE_MESSAGE(h.exit_code == 0, h.output);
    CHECK(test::read_file(path + ".h").find("forecaster: d_model 16, nhead 2, value_dim 16, dim_feedforward 32") !=
          std::string::npos);
}

TEST_CASE("value heads: open checks value_dim against its bounds and the projections' shapes") {
    const onnx_import::OnnxImport imported =
        onnx_import::import_onnx(options("per_head_wide_decoder", format::DType::f32, format::CacheType::f32));
    // Without the record (as a runtime that does not know the key reads the file): the projections are not the
    // [3 d_model, d_model] and [d_model, d_model] it expects, and open says which.
    CHECK(open_error(edited(imported.model, format::ConfigKey::value_dim, nullptr))
              .find("tensor encoder.layers.{}.self_attn.in_proj_weight (layer 0) has shape [64, 16], the model's "
                    "config needs [48, 16]") != std::string::npos);
    const uint32_t too_wide = 40000, narrow = 8;
    CHECK(open_error(edited(imported.model, format::ConfigKey::value_dim, &too_wide))
              .find("config value_dim = 40000 outside 1..32768") != std::string::npos);
    CHECK(open_error(edited(imported.model, format::ConfigKey::value_dim, &narrow))
              .find("has shape [64, 16], the model's config needs [48, 16]") != std::string::npos);
    const uint32_t wide = 16;
    CHECK(open_error(edited(imported.model, format::ConfigKey::value_dim, &wide)).empty());
    // T5 layers (Chronos-Bolt's) have head_dim columns per head throughout: a value_dim record is refused there.
    const std::vector<uint8_t> t5 = tools::convert_chronos_bolt(test::fixture_path("chronos_bolt/small"));
    uint32_t count = 0;
    uint64_t offset = 0;
    std::memcpy(&count, &t5[format::header::config_count], sizeof count);
    std::memcpy(&offset, &t5[format::header::config_offset], sizeof offset);
    std::vector<uint8_t> records(t5.begin() + static_cast<std::ptrdiff_t>(offset),
                                 t5.begin() + static_cast<std::ptrdiff_t>(offset + count * format::kConfigRecordBytes));
    ForecasterConfig c;
    REQUIRE(read_forecaster_records(ConfigRecords(records.data(), count), &c).is_ok());
    const uint32_t value_dim[2] = {static_cast<uint32_t>(format::ConfigKey::value_dim), 8};
    records.resize(records.size() + sizeof value_dim);
    std::memcpy(records.data() + count * format::kConfigRecordBytes, value_dim, sizeof value_dim);
    const Status s = read_forecaster_records(ConfigRecords(records.data(), count + 1), &c);
    CHECK(std::string(s.message()).find("value_dim is torch layers'; t5 layers' heads are head_dim wide throughout") !=
          std::string::npos);
}

TEST_CASE("value heads: f16, int8 and int4 weights and int8 caches forecast close to PyTorch on every port") {
    for (const char* name : kCases) {
        const std::string c = name;
        const bool decoder = c == "per_head_wide_decoder";
        const tools::Table history = tools::read_csv(quirk(c, "history.csv"));
        const tools::Table want = tools::read_csv(quirk(c, "forecast.csv"));
        const tools::Table src = tools::read_csv(quirk(c, "src.csv"));
        const tools::Table run_out = tools::read_csv(quirk(c, "run_out.csv"));
        struct Dtype {
            std::string label;
            format::DType dtype;
            format::CacheType kv;
        };
        const Dtype dtypes[] = {{"f16", format::DType::f16, format::CacheType::f32},
                                {"int8", format::DType::i8, format::CacheType::f32},
                                {"int8, int8 caches", format::DType::i8, format::CacheType::i8},
                                {"int4", format::DType::i4, format::CacheType::f32}};
        for (const Dtype& t : dtypes) {
            if (!decoder && t.kv == format::CacheType::i8) continue;  // no decoder, no cache
            const auto model = tools::load_model_bytes(onnx_import::convert_onnx(options(c, t.dtype, t.kv)), c);
            for (const Kernels* k : test::available_ports()) {
                const std::string port = k->name;
                INFO(c << " " << t.label << " on " << port);
                tools::HostSession s(*model, *k, history.rows, 6);
                if (t.dtype == format::DType::i4) {
                    // As tests/test_int4_weights.cpp holds int4 forecasters: one pass within half the outputs' rms.
                    std::vector<float> got;
                    if (decoder) {
                        const tools::Table tgt = tools::read_csv(quirk(c, "tgt.csv"));
                        got = s.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, InputSpace::model);
                    } else {
                        got = s.run(src.values.data(), src.rows, nullptr, 0, InputSpace::model);
                    }
                    const double diff = test::max_abs_error(got, run_out.values);
                    MESSAGE(c << " int4 on " << port << ": one pass vs PyTorch, max difference " << diff);
                    CHECK(diff <= 0.5 * test::rms(run_out.values));
                    continue;
                }
                // As the ONNX int8 conversion of decoder_unmasked is held (tests/test_onnx_convert.cpp).
                const std::vector<float> got = s.forecast(history.values.data(), history.rows, 6);
                const double diff = test::max_abs_error(got, want.values);
                MESSAGE(c << " " << t.label << " on " << port << ": forecast vs PyTorch's loop, max difference "
                          << diff);
                CHECK(diff < 0.05);
            }
        }
    }
}

TEST_CASE("value heads: forecast --threads 2 writes the bits of one thread, float32 and int8") {
    for (const char* name : kCases) {
        const std::string c = name;
        for (const std::string dtype : {"f32", "int8"}) {
            CAPTURE(c);
            CAPTURE(dtype);
            const std::string stem = (test::scratch_dir() / ("value_heads_" + c + "_" + dtype)).string();
            const std::string kv = dtype == "int8" && c == "per_head_wide_decoder" ? " --kv-cache int8" : "";
            test::Result r = test::auspex("convert " + quirk(c, "model.onnx") + " --config " + quirk(c, "config.json") +
                                          " --dtype " + dtype + kv + " -o " + stem + ".axm");
            REQUIRE_MESSAGE(r.exit_code == 0, r.output);
            for (const char* threads : {"1", "2"}) {
                r = test::auspex("forecast " + stem + ".axm --input " + quirk(c, "history.csv") +
                                 " --horizon 6 --threads " + threads + " -o " + stem + "_" + threads + ".csv");
                REQUIRE_MESSAGE(r.exit_code == 0, r.output);
            }
            const std::string one = test::read_file(stem + "_1.csv");
            CHECK(!one.empty());
            CHECK(one == test::read_file(stem + "_2.csv"));
        }
    }
}

TEST_CASE("value heads: the integer-only mode refuses wide value heads, at conversion and on open") {
    const std::string c = "per_head_wide_decoder";
    test::check_error(test::auspex("convert " + quirk(c, "model.onnx") + " --config " + quirk(c, "config.json") +
                                   " --dtype int8 --integer-only --calib " + quirk(c, "history.csv") +
                                   " --calib-window 8 --calib-horizon 4 -o " +
                                   (test::scratch_dir() / "value_heads_int.axm").string()),
                      1, "the integer-only mode's attention has values as wide as its keys");
    // A file that claims the integer-only mode anyway (an integer plan beside wide value heads): open refuses it.
    tools::AxmModel m = onnx_import::import_onnx(options(c, format::DType::f32, format::CacheType::f32)).model;
    tools::AxmTensor plan;
    plan.role = format::Role::integer_plan;
    plan.dtype = format::DType::i32;
    plan.dims = {4};
    plan.data.assign(16, 0);
    m.tensors.push_back(plan);
    m.config.push_back({format::ConfigKey::integer_only, 1u});
    // Aligned as auspex_open requires (a vector's bytes are only 8-aligned on 32-bit targets).
    const tools::AlignedBuffer bytes(tools::serialize_axm(m));
    auspex_forecaster f;
    CHECK(auspex_open(&f, bytes.data(), bytes.size(), 1) == AUSPEX_BAD_MODEL);
    CHECK(std::string(auspex_status_message(&f)).find("this model's value heads are value_dim wide") !=
          std::string::npos);
}
