// The family importers refuse checkpoints and configs that do not fit, saying what was expected and what
// was found; the model files they write are refused by the other families' runtimes.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <fstream>
#include <unistd.h>

#include "tests/family_support.h"
#include "tools/axm/axm_writer.h"
#include "tools/host/family_sessions.h"
#include "tools/import/forecaster_import.h"
#include "tools/host/host_session.h"
#include "tools/convert/quantize.h"
#include "tools/import/tvae_import.h"
#include "tools/common/tool_error.h"

namespace {

using namespace ax;

std::string message_of(const std::string& dir, const std::string& config_json) {
    namespace fs = std::filesystem;
    const fs::path path = fs::temp_directory_path() / ("auspex_import_" + std::to_string(::getpid()) + ".json");
    std::ofstream(path) << config_json;
    tools::ConvertOptions o;
    o.checkpoint_path = dir + "/model.pt";
    o.config_path = path.string();
    try {
        tools::convert_model(o);
    } catch (const tools::ToolError& e) {
        fs::remove(path);
        return e.what();
    }
    fs::remove(path);
    return "";
}

void check_message(const std::string& got, const std::string& phrase) {
    INFO("message: " << got);
    CHECK(got.find(phrase) != std::string::npos);
}

}  // namespace

TEST_CASE("family importers: checkpoints of another family or a wrong config get a message naming both sides") {
    const std::string s2s = test::fixture_path("seq2seq/tutorial");
    const std::string cls = test::fixture_path("classifier/decoder_start");
    const std::string vae = test::fixture_path("tvae/post_relu_pe");
    check_message(message_of(vae, R"({"arch": "seq2seq", "nhead": 4})"), "expected two nn.Embedding tables");
    check_message(message_of(vae, R"({"arch": "classifier", "nhead": 4, "output_activation": "none"})"),
                  "cannot find the token embedding");
    check_message(message_of(s2s, R"({"arch": "tvae", "nhead": 4})"), "a Transformer-VAE has no embedding tables");
    // A translator's layout is a classifier with a decoder and its own decoder table: it needs the start token.
    check_message(message_of(s2s, R"({"arch": "classifier", "nhead": 4, "output_activation": "none"})"),
                  "needs \"start_id\"");
    check_message(message_of(cls, R"({"arch": "classifier", "nhead": 4, "output_activation": "none"})"),
                  "needs \"start_id\"");
    check_message(message_of(cls, R"({"arch": "classifier", "nhead": 4, "start_id": 99, "output_activation": "none"})"),
                  "outside the vocabulary");
    check_message(message_of(cls, R"({"arch": "classifier", "nhead": 4, "start_id": 1, "output_activation": "none",
                                      "positional_encoding": "sinusoidal"})"),
                  "learned position table");
    check_message(message_of(s2s, R"({"arch": "seq2seq", "nhead": 4, "positional_encoding": "none"})"),
                  "sinusoidal table");
    check_message(message_of(s2s, R"({"arch": "seq2seq", "nhead": 4, "tgt_vocab": 21})"), "contradicts");
    check_message(message_of(s2s, R"({"arch": "seq2seq", "nhead": 5})"), "multiple of nhead");
    check_message(message_of(s2s, R"({"arch": "seq2seq", "nhead": 4, "pooling": "mean"})"), "do not apply");
    check_message(message_of(vae, R"({"arch": "tvae", "nhead": 4, "latent_size": 3})"), "contradicts");
    check_message(message_of(vae, R"({"arch": "tvae", "nhead": 4, "positional_encoding": "learned"})"),
                  "\"sinusoidal\" or \"none\"");
    check_message(message_of(vae, R"({"arch": "forecaster", "nhead": 4, "pad_id": 1})"), "do not apply");
    check_message(message_of(vae, R"({"arch": "tvae", "nhead": 4, "pooling": "max"})"), "do not apply");
    check_message(message_of(vae, R"({"arch": "transformer", "nhead": 4})"), "is not one of");
    check_message(message_of(vae, R"({"arch": "tvae", "nhead": 4, "embed_scale": "sqrt"})"), "sqrt_d_model");
    check_message(message_of(vae, R"({"arch": "tvae", "nhead": 4, "pad_idx": 1})"), "unknown config key");
}

TEST_CASE("family runtimes refuse another family's file, and each converted file names its family") {
    const std::vector<uint8_t> s2s = test::convert_case(test::fixture_path("seq2seq/tutorial"));
    const std::vector<uint8_t> vae = test::convert_case(test::fixture_path("tvae/post_relu_pe"));
    CHECK(tools::open_model_bytes(s2s, "s2s")->family == format::Family::seq2seq);
    CHECK(tools::open_model_bytes(vae, "vae")->family == format::Family::tvae);
    CHECK_THROWS_AS(tools::load_model_bytes(s2s, "s2s"), tools::ToolError);  // forecaster commands refuse it
    tools::AlignedBuffer buffer(s2s);
    ModelFile file;
    REQUIRE(ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &file).is_ok());
    Tvae t;
    Classifier c;
    Forecaster f;
    CHECK(std::string(Tvae::open(file, &t).message()).find("not a tvae model") != std::string::npos);
    CHECK(std::string(Classifier::open(file, &c).message()).find("not a classifier model") != std::string::npos);
    CHECK(std::string(Forecaster::open(file, &f).message()).find("not a forecaster model") != std::string::npos);
}

namespace {

// A random checkpoint tensor.
void put(tools::TensorMap& m, const std::string& name, std::vector<int64_t> shape, uint32_t& seed, float scale = 0.3f) {
    tools::HostTensor t;
    t.shape = shape;
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    for (int64_t i = 0; i < n; ++i) {
        seed = seed * 1664525u + 1013904223u;
        t.data.push_back(scale * (static_cast<float>(seed >> 8) / 16777216.0f - 0.5f));
    }
    t.source_dtype = "float32";
    m[name] = t;
}

void put_stack(tools::TensorMap& m, const std::string& root, bool decoder, int64_t d, int64_t ff, uint32_t& seed) {
    const std::string p = root + "layers.0.";
    for (const char* att : {"self_attn", "multihead_attn"}) {
        if (!decoder && std::string(att) == "multihead_attn") continue;
        put(m, p + att + ".in_proj_weight", {3 * d, d}, seed);
        put(m, p + att + ".in_proj_bias", {3 * d}, seed);
        put(m, p + att + ".out_proj.weight", {d, d}, seed);
        put(m, p + att + ".out_proj.bias", {d}, seed);
    }
    put(m, p + "linear1.weight", {ff, d}, seed);
    put(m, p + "linear1.bias", {ff}, seed);
    put(m, p + "linear2.weight", {d, ff}, seed);
    put(m, p + "linear2.bias", {d}, seed);
    for (int i = 1; i <= (decoder ? 3 : 2); ++i) {
        put(m, p + "norm" + std::to_string(i) + ".weight", {d}, seed);
        put(m, p + "norm" + std::to_string(i) + ".bias", {d}, seed);
    }
}

}  // namespace

// Int8 layers quantize their input rows into a scratch buffer; inputs wider than d_model and
// dim_feedforward (many features, a large latent) need it wider. Under the sanitizers an undersized
// scratch shows as an overflow of the exact-size arena.
TEST_CASE("int8 models whose inputs are wider than d_model and dim_feedforward run inside their arena") {
    uint32_t seed = 5;
    const int64_t d = 8, ff = 8, features = 40, latent = 24, len = 6;
    tools::TensorMap vae;
    put_stack(vae, "encoder.", false, d, ff, seed);
    put_stack(vae, "decoder.", true, d, ff, seed);
    put(vae, "seq_embedding.weight", {d, features}, seed);
    put(vae, "seq_embedding.bias", {d}, seed);
    put(vae, "z_mean.weight", {latent, d}, seed);
    put(vae, "z_mean.bias", {latent}, seed);
    put(vae, "z_log_var.weight", {latent, d}, seed);
    put(vae, "z_log_var.bias", {latent}, seed);
    put(vae, "z_embedding.weight", {d, latent}, seed);
    put(vae, "z_embedding.bias", {d}, seed);
    put(vae, "r_seq_embedding.weight", {features, d}, seed);
    put(vae, "r_seq_embedding.bias", {features}, seed);
    tools::ConvertConfig config;
    config.arch = format::Family::tvae;
    config.nhead = 2;
    tools::AxmModel m = tools::import_tvae(vae, config);
    tools::store_weights_as(m, format::DType::i8);
    const auto model = tools::open_model_bytes(tools::serialize_axm(m), "wide tvae");
    std::vector<float> x(len * features);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7) * 0.1f;
    for (const Kernels* k : test::available_ports()) {
        tools::HostTvae s(*model, *k, len);
        CHECK(test::all_finite(s.reconstruct(x, len)));
        CHECK(test::all_finite(s.run(x, len)));
    }

    tools::TensorMap fc;
    put_stack(fc, "encoder.", false, d, ff, seed);
    put_stack(fc, "decoder.", true, d, ff, seed);
    put(fc, "embedding_src.weight", {d, features}, seed);
    put(fc, "embedding_src.bias", {d}, seed);
    put(fc, "embedding_tgt.weight", {d, features}, seed);
    put(fc, "embedding_tgt.bias", {d}, seed);
    put(fc, "generator.weight", {features, d}, seed);
    put(fc, "generator.bias", {features}, seed);
    config.arch = format::Family::forecaster;
    tools::AxmModel f = tools::import_forecaster(fc, config);
    tools::store_weights_as(f, format::DType::i8);
    const auto forecaster = tools::load_model_bytes(tools::serialize_axm(f), "wide forecaster");
    for (const Kernels* k : test::available_ports()) {
        tools::HostSession s(*forecaster, *k, len, 3);
        const std::vector<float> out = s.forecast(x.data(), len, 3);
        CHECK(test::all_finite(out));
    }
}

TEST_CASE("a checkpoint whose weights hold NaN or Inf is refused, naming the tensor") {
    const std::string dir = test::fixture_path("forecaster/post_relu_tril");
    const tools::ConvertConfig config = tools::read_convert_config(dir + "/config.json");
    for (const float bad : {std::nanf(""), std::numeric_limits<float>::infinity()}) {
        tools::TensorMap tensors = tools::read_checkpoint(dir + "/model.pt");
        tensors.at("decoder.layers.0.linear2.weight").data[5] = bad;
        CHECK_THROWS_WITH_AS(tools::import_forecaster(tensors, config),
                             doctest::Contains("decoder.layers.0.linear2.weight holds NaN or Inf"), tools::ToolError);
    }
}
