// Reading Chronos-Bolt's published directory (tools/import/chronos_bolt_import.h): the authors' dummy checkpoint
// and the scaled-down seeded one of tests/fixtures/chronos_bolt/, every tensor by role with its shape, and the
// refusals of what is not Chronos-Bolt or not computed here, each naming the key.
#include <doctest/doctest.h>

#include <string>

#include "tools/common/tool_error.h"
#include "tools/import/chronos_bolt_import.h"
#include "tests/test_support.h"

namespace {

std::string dir(const char* model) { return ax::test::fixture_path(std::string("chronos_bolt/") + model); }

std::string config_text(const std::string& edit_from = "", const std::string& edit_to = "") {
    std::string s = R"({"architectures": ["ChronosBoltModelForForecasting"], "model_type": "t5",
      "chronos_config": {"context_length": 512, "input_patch_size": 16, "input_patch_stride": 16,
        "prediction_length": 64, "quantiles": [0.1, 0.5, 0.9], "use_reg_token": true},
      "d_ff": 8, "d_kv": 4, "d_model": 8, "num_heads": 2, "num_layers": 1, "num_decoder_layers": 1,
      "relative_attention_num_buckets": 32, "relative_attention_max_distance": 128, "layer_norm_epsilon": 1e-06,
      "dense_act_fn": "relu", "feed_forward_proj": "relu", "is_gated_act": false, "decoder_start_token_id": 0})";
    if (!edit_from.empty()) {
        const size_t at = s.find(edit_from);
        REQUIRE(at != std::string::npos);
        s.replace(at, edit_from.size(), edit_to);
    }
    return s;
}

std::string refusal(const std::string& text) {
    try {
        ax::tools::parse_chronos_bolt_config(text, "config.json");
    } catch (const ax::tools::ToolError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("chronos-bolt import: the authors' dummy checkpoint, every tensor by role") {
    REQUIRE(ax::tools::is_chronos_bolt_directory(dir("dummy")));
    CHECK_FALSE(ax::tools::is_chronos_bolt_directory(ax::test::fixture_path("attention")));
    const auto ck = ax::tools::read_chronos_bolt(dir("dummy"));
    const auto& c = ck.config;
    CHECK(c.d_model == 8);
    CHECK(c.d_ff == 8);
    CHECK(c.d_kv == 4);
    CHECK(c.num_heads == 4);
    CHECK(c.encoder_layers == 4);
    CHECK(c.decoder_layers == 4);
    CHECK(c.num_buckets == 32);
    CHECK(c.max_distance == 128);
    CHECK(c.eps == doctest::Approx(1e-6));
    CHECK(c.context_length == 512);
    CHECK(c.patch_size == 16);
    CHECK(c.prediction_length == 64);
    CHECK(c.quantiles.size() == 9);
    CHECK(c.quantiles[4] == doctest::Approx(0.5));
    CHECK(c.use_reg_token);
    const auto& w = ck.tensors;
    CHECK(w.shared.shape == std::vector<int64_t>{2, 8});
    CHECK(w.input_embedding.hidden_weight.shape == std::vector<int64_t>{8, 32});
    CHECK(w.output_embedding.output_weight.shape == std::vector<int64_t>{576, 8});
    CHECK(w.encoder.size() == 4);
    CHECK(w.decoder.size() == 4);
    CHECK(w.encoder_relative_bias.shape == std::vector<int64_t>{32, 4});
    CHECK(w.decoder[3].cross_attention.o.shape == std::vector<int64_t>{8, 16});
}

TEST_CASE("chronos-bolt import: the seeded checkpoint of chronos-bolt-tiny's structure, scaled down") {
    const auto ck = ax::tools::read_chronos_bolt(dir("small"));
    CHECK(ck.config.d_model == 32);
    CHECK(ck.config.d_ff == 64);
    CHECK(ck.config.num_heads == 2);
    CHECK(ck.tensors.encoder.size() == 2);
    CHECK(ck.tensors.decoder[1].wi.shape == std::vector<int64_t>{64, 32});
}

TEST_CASE("chronos-bolt import: refuses what is not Chronos-Bolt, naming the key") {
    CHECK(refusal(config_text()).empty());
    CHECK(refusal(config_text("\"t5\"", "\"bert\"")).find("model_type") != std::string::npos);
    CHECK(refusal(config_text("\"is_gated_act\": false", "\"is_gated_act\": true")).find("gated") != std::string::npos);
    CHECK(refusal(config_text("\"feed_forward_proj\": \"relu\"", "\"feed_forward_proj\": \"gated-gelu\""))
              .find("gated-gelu") != std::string::npos);
    CHECK(refusal(config_text("\"input_patch_stride\": 16", "\"input_patch_stride\": 8")).find("input_patch_stride") !=
          std::string::npos);
    CHECK(refusal(config_text("[0.1, 0.5, 0.9]", "[0.5, 0.1]")).find("quantiles") != std::string::npos);
    CHECK(refusal(config_text("\"d_kv\": 4, ", "")).find("d_kv") != std::string::npos);
    CHECK(refusal(config_text("ChronosBoltModelForForecasting", "ChronosModelForForecasting")).find("architectures") !=
          std::string::npos);
    CHECK(refusal(config_text("\"dense_act_fn\": \"relu\"", "\"dense_act_fn\": \"silu\"")).find("silu") !=
          std::string::npos);
}

TEST_CASE("chronos-bolt import: a tensor of the wrong shape, a missing and a foreign one are refused by name") {
    ax::tools::TensorMap good = ax::tools::read_safetensors(dir("dummy") + "/model.safetensors");
    // The dummy has 4 heads and 4+4 layers: take its own config.
    const auto dummy = ax::tools::read_chronos_bolt(dir("dummy")).config;
    auto expect = [&](ax::tools::TensorMap t, const char* what) {
        try {
            ax::tools::chronos_bolt_from(dummy, t);
            FAIL("accepted a checkpoint with " << what);
        } catch (const ax::tools::ToolError& e) {
            CHECK_MESSAGE(std::string(e.what()).find(what) != std::string::npos, e.what());
        }
    };
    auto missing = good;
    missing.erase("decoder.block.2.layer.1.EncDecAttention.v.weight");
    expect(missing, "decoder.block.2.layer.1.EncDecAttention.v.weight");
    auto wrong = good;
    wrong["encoder.final_layer_norm.weight"].shape = {9};
    wrong["encoder.final_layer_norm.weight"].data.resize(9);
    expect(wrong, "encoder.final_layer_norm.weight is [9]");
    auto extra = good;
    extra["encoder.block.4.layer.0.layer_norm.weight"] = good["encoder.final_layer_norm.weight"];
    expect(extra, "encoder.block.4.layer.0.layer_norm.weight");
}
