// The sequence classifier against real PyTorch modules (tests/fixtures/gen_family_fixtures.py): every
// fixture's outputs within tests/tolerances.h on every port, inside the exact arena; bad input gives a clear status.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "ports/ports.h"
#include "tests/family_support.h"
#include "tests/tolerances.h"
#include "tools/text/csv.h"
#include "tools/host/family_sessions.h"

namespace {

using namespace ax;

constexpr double kTolerance = test::tolerance::classifier;

const char* const kCases[] = {"learned_mean_softmax", "pad0_max_sigmoid", "cls_first_norm", "decoder_start"};

struct Case {
    std::string dir;
    std::vector<std::vector<int32_t>> inputs;
    std::vector<float> want;  // one row of labels per input
    size_t labels = 0;
    uint32_t pad = 0;
    bool has_safetensors = false;
    size_t max_len() const {
        size_t n = 0;
        for (const auto& s : inputs) n = std::max(n, s.size());
        return n;
    }
    std::vector<float> row(size_t i) const {
        return std::vector<float>(want.begin() + static_cast<long>(i * labels),
                                  want.begin() + static_cast<long>((i + 1) * labels));
    }
};

Case load_case(const std::string& name) {
    Case c;
    c.dir = test::fixture_path("classifier/" + name);
    const tools::JsonValue j = test::case_json(c.dir);
    for (const tools::JsonValue& s : j.find("inputs")->as_array("inputs"))
        c.inputs.push_back(test::json_ids(s, "inputs"));
    c.pad = static_cast<uint32_t>(j.find("pad_id")->as_int("pad_id", 0, 1000));
    c.has_safetensors = j.find("has_safetensors")->as_bool("has_safetensors");
    const tools::Table t = tools::read_csv(c.dir + "/probs.csv");
    c.want = t.values;
    c.labels = t.cols;
    return c;
}

double check_model(const Case& c, const std::vector<uint8_t>& bytes, const std::string& label) {
    const auto model = tools::open_model_bytes(bytes, label);
    REQUIRE(model->family == format::Family::classifier);
    REQUIRE(model->as<Classifier>().config().n_labels == c.labels);
    double worst = 0;
    for (const Kernels* k : test::available_ports()) {
        INFO(label << " on port " << std::string(k->name));
        tools::HostClassifier s(*model, *k, c.max_len());
        for (size_t i = 0; i < c.inputs.size(); ++i) {
            const std::vector<float> got = s.classify(c.inputs[i]);
            test::check_close(got, c.row(i), kTolerance, label + ": input " + std::to_string(i));
            worst = std::max(worst, test::max_mixed_error(got, c.row(i)));
        }
    }
    return worst;
}

}  // namespace

TEST_CASE("classifier matches PyTorch on every fixture, from .pt and .safetensors") {
    for (const char* name : kCases) {
        INFO("case " << std::string(name));
        const Case c = load_case(name);
        const double worst = check_model(c, test::convert_case(c.dir), std::string(name) + " (.pt)");
        MESSAGE("classifier " << std::string(name) << ": max mixed error vs PyTorch " << worst);
        if (c.has_safetensors)
            check_model(c, test::convert_case(c.dir, format::DType::f32, "model.safetensors"),
                        std::string(name) + " (.safetensors)");
    }
}

TEST_CASE("classifier: a session runs in exactly the arena size the model reports, and not one byte less") {
    for (const char* name : {"learned_mean_softmax", "decoder_start"}) {
        const Case c = load_case(name);
        const auto model = tools::open_model_bytes(test::convert_case(c.dir), name);
        const size_t bytes = model->as<Classifier>().arena_bytes(c.max_len());
        REQUIRE(bytes > 0);
        tools::AlignedBuffer arena(bytes + 64);
        for (size_t i = bytes; i < bytes + 64; ++i) arena.data()[i] = 0xA5;
        ClassifierSession s;
        const Kernels& k = *test::available_ports().back();
        CHECK(s.init(model->as<Classifier>(), k, arena.data(), bytes - 1, c.max_len()).code() ==
              StatusCode::arena_too_small);
        REQUIRE(s.init(model->as<Classifier>(), k, arena.data(), bytes, c.max_len()).is_ok());
        std::vector<float> out(c.labels);
        for (size_t i = 0; i < c.inputs.size(); ++i) {
            REQUIRE(s.classify(c.inputs[i].data(), c.inputs[i].size(), out.data()).is_ok());
            test::check_close(out, c.row(i), kTolerance, "inside the exact arena");
        }
        for (size_t i = bytes; i < bytes + 64; ++i) CHECK(arena.data()[i] == 0xA5);
    }
}

TEST_CASE("classifier: bad tokens and lengths give a clear status; an all-pad input is defined") {
    const Case c = load_case("learned_mean_softmax");  // 12 learned positions
    const auto model = tools::open_model_bytes(test::convert_case(c.dir), "classifier");
    const ClassifierConfig& cfg = model->as<Classifier>().config();
    CHECK(cfg.max_positions == 12);
    CHECK(model->as<Classifier>().arena_bytes(0) == 0);
    tools::AlignedBuffer arena(model->as<Classifier>().arena_bytes(14));
    ClassifierSession s;
    REQUIRE(s.init(model->as<Classifier>(), generic_kernels(), arena.data(), arena.size(), 14).is_ok());
    std::vector<float> out(cfg.n_labels);
    std::vector<int32_t> t = c.inputs[0];
    REQUIRE(s.classify(t.data(), t.size(), out.data()).is_ok());
    t[1] = static_cast<int32_t>(cfg.vocab);
    const Status st = s.classify(t.data(), t.size(), out.data());
    CHECK(st.code() == StatusCode::bad_input);
    CHECK(std::string(st.message()).find("outside the vocabulary") != std::string::npos);
    t[1] = -3;
    CHECK(s.classify(t.data(), t.size(), out.data()).code() == StatusCode::bad_input);
    CHECK(s.classify(t.data(), 0, out.data()).code() == StatusCode::invalid_argument);
    std::vector<int32_t> longer(13, 4);  // within the session's 14, beyond the model's 12 positions
    CHECK(s.classify(longer.data(), longer.size(), out.data()).code() == StatusCode::invalid_argument);
    std::vector<int32_t> too_long(15, 4);
    CHECK(s.classify(too_long.data(), too_long.size(), out.data()).code() == StatusCode::invalid_argument);
    CHECK(s.classify(nullptr, 3, out.data()).code() == StatusCode::invalid_argument);
    CHECK(s.set_pad_id(cfg.vocab).code() == StatusCode::invalid_argument);
    // Only pads: attention sees no key (zeros), mean pooling over no row gives zeros; the output is finite.
    std::vector<int32_t> pads(5, static_cast<int32_t>(c.pad));
    REQUIRE(s.classify(pads.data(), pads.size(), out.data()).is_ok());
    CHECK(test::all_finite(out));
}

TEST_CASE("classifier: f16 and int8 conversions stay close to float32") {
    for (const char* name : kCases) {
        const Case c = load_case(name);
        const double scale = test::rms(c.want);
        // Bounds relative to the outputs' RMS: f16 2e-3 and int8 5e-2 as for the forecaster, except for the
        // pre-norm model with max pooling and sharp attention, which amplifies weight rounding (measured on the
        // generic port: f16 2.8e-3 / int8 8.9e-2 there; the other cases stay below 1.2e-3 / 2.2e-2).
        const bool sensitive = std::string(name) == "pad0_max_sigmoid";
        for (const auto& dtype_bound : {std::pair{format::DType::f16, sensitive ? 5e-3 : 2e-3},
                                        std::pair{format::DType::i8, sensitive ? 1.2e-1 : 5e-2}}) {
            const format::DType dtype = dtype_bound.first;
            const double bound = dtype_bound.second;
            const auto model = tools::open_model_bytes(test::convert_case(c.dir, dtype), name);
            for (const Kernels* k : test::available_ports()) {
                tools::HostClassifier s(*model, *k, c.max_len());
                double err = 0;
                for (size_t i = 0; i < c.inputs.size(); ++i)
                    err = std::max(err, test::max_abs_error(s.classify(c.inputs[i]), c.row(i)));
                INFO(std::string(name) << " dtype " << static_cast<int>(dtype) << " port " << std::string(k->name)
                                       << ": max error " << err << ", output rms " << scale);
                CHECK(err <= bound * scale);
            }
        }
    }
}

namespace {

std::string map_path(const std::string& name) { return std::string(AUSPEX_SOURCE_DIR) + "/tools/import/maps/" + name; }

std::string conversion_error(const std::string& dir, const std::string& config_text, const std::string& map) {
    namespace fs = std::filesystem;
    const fs::path config = fs::temp_directory_path() / ("auspex_classifier_" + std::to_string(::getpid()) + ".json");
    std::ofstream(config) << config_text;
    tools::ConvertOptions o;
    o.checkpoint_path = dir + "/model.pt";
    o.config_path = config.string();
    o.map_path = map;
    std::string message;
    try {
        tools::convert_model(o);
    } catch (const std::exception& e) {
        message = e.what();
    }
    fs::remove(config);
    return message;
}

}  // namespace

TEST_CASE("classifier: paul-hyun's MovieClassification, as the post writes it, converts with its map and matches") {
    // Its own encoder and decoder token tables, two frozen get_sinusoid_encoding_table(n_seq + 1, d) tables
    // whose row 0 is PE(0), positions from 1 with pads at row 0, and a bias-free head.
    const Case c = load_case("paulhyun_map");
    const std::string map = map_path("paulhyun_classifier.map");
    const std::vector<uint8_t> bytes = test::convert_case(c.dir, format::DType::f32, "model.pt", map);
    const double worst = check_model(c, bytes, "paulhyun_map");
    MESSAGE("paul-hyun classifier through its map: max mixed error vs PyTorch " << worst);
    const auto model = tools::open_model_bytes(bytes, "paulhyun");
    const ClassifierConfig& cfg = model->as<Classifier>().config();
    CHECK(cfg.positional_encoding == format::PositionalEncoding::sinusoidal_pad_pe0);
    CHECK(cfg.max_positions == 12);  // 13 rows, looked up from 1
    CHECK(cfg.decoder_vocab == 30);
    for (const auto& dtype : {format::DType::f16, format::DType::i8}) {
        const auto q = tools::open_model_bytes(test::convert_case(c.dir, dtype, "model.pt", map), "paulhyun q");
        tools::HostClassifier s(*q, *test::available_ports()[0], c.max_len());
        CHECK(test::all_finite(s.classify(c.inputs[0])));
    }

    // Without a config statement the indexing of an nn.Embedding-held table cannot be told from its values:
    // the error names both choices.
    const std::string base =
        "{\"arch\": \"classifier\", \"nhead\": 3, \"activation\": \"gelu\", \"layer_norm_eps\": 1e-12, "
        "\"pad_id\": 0, \"start_id\": 2, \"output_activation\": \"none\"";
    const std::string unstated = conversion_error(c.dir, base + "}", map);
    INFO(unstated);
    CHECK(unstated.find("cannot be told from its values") != std::string::npos);
    CHECK(unstated.find("\"sinusoidal\"") != std::string::npos);
    CHECK(unstated.find("\"sinusoidal_pad0\"") != std::string::npos);
    // "learned" would index it from 0, off by one: refused, naming the two real choices.
    const std::string learned = conversion_error(c.dir, base + ", \"positional_encoding\": \"learned\"}", map);
    INFO(learned);
    CHECK(learned.find("\"sinusoidal_pad0\" (tokens get rows 1..L") != std::string::npos);
}
