// Chronos-Bolt as a description of the forecaster's blocks (normalization instance, input_embedding patch_mlp,
// positional_encoding relative, t5 layers, decoding start_token, head residual_mlp) run by the forecaster's
// session: the PyTorch reference's cases within 1e-5 x max(1, max |out|) on every port, bit-identical to the
// flat-memory loop; files converted before the blocks' options (committed in tests/fixtures/chronos_bolt/
// old_format/, with the int8 forecast the runtime gave them then) open and forecast the same bits; the
// description's records read back the same; combinations the blocks cannot run are refused by name; the arena is
// exact and follows the declared context and horizon.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "models/forecaster/chronos_bolt_file.h"
#include "models/forecaster/forecaster.h"
#include "runtime/config_records.h"
#include "tests/chronos_bolt_cases.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/common/tool_error.h"
#include "tools/convert/chronos_bolt_convert.h"
#include "tools/convert/converter.h"
#include "tools/host/chronos_bolt_host.h"
#include "tools/import/chronos_bolt_import.h"

namespace {

using namespace ax;

struct OpenedFile {
    tools::AlignedBuffer buffer;
    ModelFile file;
    Forecaster model;
};

void open_bytes(const std::vector<uint8_t>& bytes, OpenedFile* out) {
    out->buffer = tools::AlignedBuffer(bytes);
    REQUIRE(ModelFile::open(out->buffer.data(), out->buffer.size(), Checksum::verify, &out->file));
    const Status s = Forecaster::open(out->file, &out->model);
    REQUIRE_MESSAGE(s, s.message());
}

// The session's forecast in an arena of exactly the planned size, declared for this context and horizon.
std::vector<float> session_forecast(const Forecaster& m, const Kernels& k, const std::vector<float>& context,
                                    size_t horizon) {
    const size_t bytes = m.arena_bytes(context.size(), horizon);
    REQUIRE(bytes > 0);
    tools::AlignedBuffer arena(bytes);
    ForecastSession session;
    // One byte less is refused: the figure is exact.
    CHECK_FALSE(session.init(m, k, arena.data(), bytes - 1, context.size(), horizon));
    const Status s = session.init(m, k, arena.data(), bytes, context.size(), horizon);
    REQUIRE_MESSAGE(s, s.message());
    std::vector<float> out(m.config().output_values(horizon));
    const Status f = session.forecast(context.data(), context.size(), horizon, out.data());
    REQUIRE_MESSAGE(f, f.message());
    return out;
}

std::string open_message(const tools::AxmModel& m) {
    const tools::AlignedBuffer buffer(tools::serialize_axm(m));
    ModelFile file;
    Status s = ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &file);
    Forecaster model;
    if (s) s = Forecaster::open(file, &model);
    return s ? "" : s.message();
}

}  // namespace

TEST_CASE("chronos-bolt blocks: the forecaster's session matches the PyTorch reference on every port") {
    for (const char* model : {"dummy", "small"}) {
        const std::string dir = test::fixture_path(std::string("chronos_bolt/") + model);
        static OpenedFile f;
        open_bytes(tools::convert_chronos_bolt(dir), &f);
        const ForecasterConfig& c = f.model.config();
        CHECK(c.loop == ForecastLoop::quantile_paths);
        CHECK(c.t5());
        CHECK(c.quantiles() == 9);
        ChronosBoltModel flat;
        REQUIRE(chronos_bolt_open(f.file, &flat));
        for (const char* name : {"c512", "c37", "c700", "nan", "constant", "h100"}) {
            const test::ChronosBoltCase rc = test::read_chronos_bolt_case(std::string(model) + "_" + name);
            for (const Kernels* k : test::available_ports()) {
                const std::vector<float> got = session_forecast(f.model, *k, rc.context, rc.horizon);
                test::check_chronos_bolt_case(got, rc, std::string("session ") + model + " " + name + ", " + k->name);
                // The same loop on flat memory (the entry points of chronos_bolt.h) gives the same bits.
                std::vector<float> work(chronos_bolt_forecast_floats(flat.weights.shape, rc.horizon));
                std::vector<float> flat_out(rc.quantiles * rc.horizon);
                chronos_bolt_forecast(*k, flat.weights, rc.context.data(), rc.length, rc.horizon, flat_out.data(),
                                      work.data());
                CHECK(std::memcmp(flat_out.data(), got.data(), got.size() * sizeof(float)) == 0);
            }
        }
    }
}

TEST_CASE("chronos-bolt blocks: T5 v1.1's gated feed-forward (gated-gelu) matches the PyTorch reference") {
    // gelu_new(x wi_0) * (x wi_1) -> wo in every layer, gelu_new in the residual MLPs: the published directory
    // on heap buffers and the converted file in the forecaster's session, on every port.
    const std::string dir = test::fixture_path("chronos_bolt/gated");
    const tools::ChronosBoltCheckpoint ck = tools::read_chronos_bolt(dir);
    CHECK(ck.config.gated);
    CHECK(ck.config.activation == format::Activation::gelu_tanh);
    const tools::ChronosBoltHost host(tools::read_chronos_bolt(dir));
    static OpenedFile f;
    open_bytes(tools::convert_chronos_bolt(dir), &f);
    CHECK(f.model.config().stacks.gated);
    for (const char* name : {"c512", "c37", "c700", "nan", "constant", "h100"}) {
        const test::ChronosBoltCase rc = test::read_chronos_bolt_case(std::string("gated_") + name);
        for (const Kernels* k : test::available_ports()) {
            test::check_chronos_bolt_case(host.forecast(*k, rc.context, rc.horizon), rc,
                                          std::string("gated directory ") + name + ", " + k->name);
            test::check_chronos_bolt_case(session_forecast(f.model, *k, rc.context, rc.horizon), rc,
                                          std::string("gated session ") + name + ", " + k->name);
        }
    }
    // Without its second projection the file is refused, naming the tensor.
    tools::AxmModel m = tools::chronos_bolt_axm(ck);
    for (size_t i = 0; i < m.tensors.size(); ++i)
        if (m.tensors[i].role == format::Role::dec_ff_gate_weight) {
            m.tensors.erase(m.tensors.begin() + static_cast<std::ptrdiff_t>(i));
            break;
        }
    CHECK(open_message(m).find("linear1_gate") != std::string::npos);
}

TEST_CASE("chronos-bolt blocks: files converted before the blocks' options open and forecast the same bits") {
    static OpenedFile old_f32, old_i8, new_f32;
    open_bytes(tools::read_file_bytes(test::fixture_path("chronos_bolt/old_format/dummy_f32.axm")), &old_f32);
    open_bytes(tools::read_file_bytes(test::fixture_path("chronos_bolt/old_format/dummy_int8.axm")), &old_i8);
    open_bytes(tools::convert_chronos_bolt(test::fixture_path("chronos_bolt/dummy")), &new_f32);
    // The old file has none of the blocks' keys: the alias implies them.
    uint32_t v = 0;
    CHECK_FALSE(old_f32.file.config(format::ConfigKey::layer_kind, &v));
    CHECK(new_f32.file.config(format::ConfigKey::layer_kind, &v));
    // Both read as the same description.
    const auto records_of = [](const ForecasterConfig& c) {
        struct Records : ConfigWriter {
            std::vector<std::pair<uint32_t, uint32_t>> all;
            void put(format::ConfigKey key, uint32_t value) override {
                all.emplace_back(static_cast<uint32_t>(key), value);
            }
        } r;
        write_forecaster_config(c, r);
        return r.all;
    };
    CHECK(records_of(old_f32.model.config()) == records_of(new_f32.model.config()));
    CHECK(old_f32.model.arena_bytes(512, 100) == new_f32.model.arena_bytes(512, 100));
    const Kernels& k = *test::available_ports().front();
    for (const char* name : {"c512", "nan", "h100"}) {
        const test::ChronosBoltCase rc = test::read_chronos_bolt_case(std::string("dummy_") + name);
        const std::vector<float> got = session_forecast(old_f32.model, k, rc.context, rc.horizon);
        test::check_chronos_bolt_case(got, rc, std::string("old-format dummy ") + name);
        CHECK(got == session_forecast(new_f32.model, k, rc.context, rc.horizon));
    }
    // The int8 file forecasts what the runtime forecast for it before: `auspex forecast --horizon 100` of the
    // dummy_nan context with the generic port and with the default one (AVX-512) on x86-64, 9 significant digits
    // (every float32 exactly). The x86 ports agree with each other bit for bit; the generic port's float32
    // parts round differently (past 64 steps, where the 81 paths are sorted, the medians move by an ulp or so).
    const test::ChronosBoltCase rc = test::read_chronos_bolt_case("dummy_nan");
    const auto read_before = [&](const std::string& name) {
        std::ifstream in(test::fixture_path("chronos_bolt/old_format/" + name));
        REQUIRE(in.good());
        std::string line;
        std::getline(in, line);
        CHECK(line == "q0.1,q0.2,q0.3,q0.4,q0.5,q0.6,q0.7,q0.8,q0.9");
        test::ChronosBoltCase before = rc;
        before.horizon = 100;
        before.want.assign(9 * 100, 0.0f);
        for (size_t t = 0; t < 100; ++t) {
            REQUIRE(std::getline(in, line));
            std::stringstream cells(line);
            std::string cell;
            for (size_t q = 0; q < 9; ++q) {
                REQUIRE(std::getline(cells, cell, ','));
                before.want[q * 100 + t] = std::stof(cell);
            }
        }
        return before;
    };
    const test::ChronosBoltCase generic = read_before("dummy_int8_nan_h100_generic.csv");
    const test::ChronosBoltCase simd = read_before("dummy_int8_nan_h100.csv");
    for (const Kernels* port : test::available_ports()) {
        const std::string name = port->name;
        const std::vector<float> got = session_forecast(old_i8.model, *port, rc.context, 100);
        if (name == "generic")
            CHECK(got == generic.want);
        else if (name.rfind("avx", 0) == 0)
            CHECK_MESSAGE(got == simd.want, name);
        test::check_chronos_bolt_case(got, simd, "old-format int8 dummy nan h100, " + name);
    }
}

TEST_CASE("chronos-bolt blocks: the arena follows the declared context and horizon; bad calls are refused") {
    static OpenedFile f;
    open_bytes(tools::convert_chronos_bolt(test::fixture_path("chronos_bolt/small")), &f);
    const Forecaster& m = f.model;
    // A short context plans fewer encoder rows; a horizon past the model's 64 steps plans the quantile paths and
    // contexts that grow to the whole window.
    CHECK(m.arena_bytes(64, 64) < m.arena_bytes(512, 64));
    CHECK(m.arena_bytes(512, 64) < m.arena_bytes(512, 65));
    CHECK(m.arena_bytes(64, 65) == m.arena_bytes(512, 65));
    CHECK(m.arena_bytes(700, 64) == m.arena_bytes(512, 64));  // cut to the window
    const Kernels& k = *test::available_ports().front();
    tools::AlignedBuffer arena(m.arena_bytes(64, 64));
    ForecastSession s;
    REQUIRE(s.init(m, k, arena.data(), arena.size(), 64, 64));
    std::vector<float> history(100, 1.0f), out(9 * 65);
    // Longer than declared (and shorter than the model's window, so not cut): refused with the reason.
    Status st = s.forecast(history.data(), 100, 64, out.data());
    CHECK(st.code() == StatusCode::invalid_argument);
    st = s.forecast(history.data(), 64, 65, out.data());
    CHECK(st.code() == StatusCode::invalid_argument);
    history[3] = INFINITY;
    st = s.forecast(history.data(), 64, 64, out.data());
    CHECK(st.code() == StatusCode::bad_input);
    CHECK(std::string(st.message()).find("infinite") != std::string::npos);
    // Missing values anywhere, even everywhere, forecast (the all-missing context at location 0, scale 1).
    for (float& x : history) x = NAN;
    CHECK(s.forecast(history.data(), 64, 64, out.data()));
    // run() is the model's forward on a context: one call, [quantiles, horizon].
    CHECK(m.config().run_rows(64, 0) == 64);
    history.assign(64, 2.0f);
    CHECK(s.run(history.data(), 64, nullptr, 0, InputSpace::raw, out.data()));
}

TEST_CASE("chronos-bolt blocks: combinations the blocks cannot run are refused, naming the option") {
    const tools::AxmModel good =
        tools::chronos_bolt_axm(tools::read_chronos_bolt(test::fixture_path("chronos_bolt/dummy")));
    CHECK(open_message(good).empty());
    const auto with = [&](format::ConfigKey key, uint32_t value) {
        tools::AxmModel m = good;
        for (auto& [k, v] : m.config)
            if (k == key) v = value;
        return open_message(m);
    };
    CHECK(with(format::ConfigKey::normalization, 0).find("t5 layers run with normalization instance") !=
          std::string::npos);
    CHECK(with(format::ConfigKey::layer_kind, 0).find("t5 layers") != std::string::npos);
    CHECK(with(format::ConfigKey::head, 0).find("head residual_mlp") != std::string::npos);
    CHECK(with(format::ConfigKey::relative_buckets, 30).find("relative_buckets") != std::string::npos);
    CHECK(with(format::ConfigKey::n_features, 2).find("one column") != std::string::npos);
    CHECK(with(format::ConfigKey::quantiles, 8).find("quantiles.{} (layer 0) has shape [9]") != std::string::npos);
    CHECK(with(format::ConfigKey::architecture, 9).find("unknown forecaster architecture 9") != std::string::npos);
}

TEST_CASE("chronos-bolt blocks: a state_dict's config cannot ask for Chronos-Bolt's options") {
    // nn.Transformer layers with Chronos-Bolt's options would be neither model: the converter says where they
    // belong instead of writing a file.
    const std::string dir = test::fixture_path("forecaster/multi_out");
    const std::string config = test::read_file(dir + "/config.json");
    for (const char* option : {"\"decoding\": \"start_token\"", "\"input_embedding\": \"patch_mlp\"",
                               "\"head\": \"residual_mlp\"", "\"positional_encoding\": \"relative\""}) {
        std::string text = config;
        text.insert(text.find('{') + 1, std::string(option) + ", ");
        // A key stated twice is refused on its own; drop the fixture's own value of the key first.
        const std::string key = std::string(option).substr(0, std::string(option).find(':'));
        const size_t again = text.find(key, text.find(key) + 1);
        if (again != std::string::npos) {
            const size_t end = text.find_first_of(",}", again);
            text.erase(again, end - again + (text[end] == ',' ? 1 : 0));
        }
        tools::ConvertOptions o;
        o.checkpoint_path = dir + "/model.pt";
        o.config_path = test::write_file("cb_state_dict_config.json", text);
        try {
            tools::convert_model(o);
            FAIL("converted with " << option);
        } catch (const tools::ToolError& e) {
            CHECK_MESSAGE(std::string(e.what()).find("is Chronos-Bolt's (T5 layers)") != std::string::npos, e.what());
        }
    }
}
