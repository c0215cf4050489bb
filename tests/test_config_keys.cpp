// The converter's config-key table (tools/import/config_keys.h): one row per key, which the reader, the
// scope check, the assumed-defaults notes and docs/config-keys.md follow.
#include <doctest/doctest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "tools/common/tool_error.h"
#include "tools/family/family_descriptor.h"
#include "tools/import/assumed_defaults.h"
#include "tools/convert/config_search.h"
#include "tools/import/config_keys.h"
#include "tools/import/config_scope.h"
#include "tools/import/convert_config.h"
#include "tools/text/json.h"

using namespace ax;

namespace {

tools::ConvertConfig parse(const std::string& text) {
    return tools::parse_convert_config(tools::parse_json(text, "test"), "test");
}

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

}  // namespace

TEST_CASE("every config key is one complete row, and a record names one key") {
    std::set<std::string> names;
    std::set<uint32_t> records;
    for (const tools::ConfigKeySpec& k : tools::config_keys()) {
        CAPTURE(k.name);
        CHECK(names.insert(k.name).second);
        CHECK(!k.kind.empty());
        CHECK(!k.default_text.empty());
        CHECK(!k.doc.empty());
        CHECK(static_cast<bool>(k.read));
        if (k.families != tools::kAllFamilies)  // a family a key names is one the tools know
            for (uint32_t f = 0; f < 32; ++f)
                if (k.families & (1u << f)) CHECK_NOTHROW(tools::family_descriptor(static_cast<format::Family>(f)));
        if (k.record) {
            CHECK(records.insert(static_cast<uint32_t>(*k.record)).second);
            CHECK(tools::config_key_name(*k.record) == k.name);
            CHECK(static_cast<bool>(k.record_text));
        }
        // What convert notes as assumed is a record it can name and inspect can list.
        if (k.noted_when_assumed) {
            REQUIRE(k.record.has_value());
            CHECK(tools::assumed_defaults_text(1u << static_cast<uint32_t>(*k.record)) == k.name);
        }
    }
    CHECK(tools::known_config_keys().size() == tools::config_keys().size());
    CHECK(tools::find_config_key("layer_norm_eps") != nullptr);
    CHECK(tools::find_config_key("layer_norm_epsilon") == nullptr);
    CHECK_THROWS_AS(tools::config_key_name(format::ConfigKey::defaults), tools::ToolError);
}

TEST_CASE("the assumed-defaults notes name every value by the runtime's enum names") {
    const tools::ConfigKeySpec* pe = tools::find_config_key("positional_encoding");
    REQUIRE(pe != nullptr);
    for (uint32_t v = 0; v <= format::enum_max<format::PositionalEncoding>(); ++v)
        CHECK(pe->record_text(v) ==
              "\"" + std::string(format::enum_name(static_cast<format::PositionalEncoding>(v))) + "\"");
    // The hand-written list this table replaced called value 4 "sinusoidal_pad0", a different encoding.
    CHECK(pe->record_text(static_cast<uint32_t>(format::PositionalEncoding::sinusoidal_pad_pe0)) ==
          "\"sinusoidal_pad_pe0\"");
    CHECK(tools::find_config_key("pooling")->record_text(2) == "\"first\"");
    CHECK(tools::find_config_key("activation")->record_text(1) == "\"gelu\"");
    CHECK(tools::find_config_key("pad_id")->record_text(format::kNoToken) == "none");
    CHECK(tools::find_config_key("layer_norm_eps")->record_text(0x3727C5ACu) == "1e-05");
    CHECK(tools::find_config_key("decode_mask_pads")->record_text(1) == "true");
}

TEST_CASE("every key is read by the type its row gives, and refused where its families say") {
    const tools::ConvertConfig c = parse(
        R"({"arch": "seq2seq", "nhead": 2, "activation": "gelu", "norm_first": true, "layer_norm_eps": 1e-6,
            "pad_id": 1, "bos_id": 2, "eos_id": 3, "decode_mask_pads": true, "embed_scale": "sqrt_d_model",
            "num_decoder_layers": 0, "dropout": 0.1, "comment": "x"})");
    CHECK(c.arch == format::Family::seq2seq);
    CHECK(c.nhead == 2);
    CHECK(c.activation == format::Activation::gelu);
    CHECK(c.norm_first);
    CHECK(c.layer_norm_eps == 1e-6);
    CHECK(*c.pad_id == 1);
    CHECK(*c.eos_id == 3);
    CHECK(*c.decode_mask_pads);
    CHECK(c.embed_scale_sqrt_d);
    CHECK(*c.num_decoder_layers == 0);
    CHECK(tools::check_config_scope(c) == std::vector<std::string>{"dropout"});
    CHECK_THROWS_WITH_AS(parse(R"({"arch": "tvae", "nhead": 1, "num_encoder_layers": 0})"),
                         doctest::Contains("num_encoder_layers"), tools::ToolError);
    CHECK_THROWS_WITH_AS(parse(R"({"arch": "tvae"})"), doctest::Contains("missing \"nhead\""), tools::ToolError);
    CHECK_THROWS_WITH_AS(parse(R"({"nhead": 1})"), doctest::Contains("missing \"arch\""), tools::ToolError);
    // Every key of a family that does not take it is refused (or ignored, for a neutral value).
    for (const tools::ConfigKeySpec& k : tools::config_keys())
        for (const tools::FamilyDescriptor* d : tools::family_descriptors()) {
            const format::Family f = d->family;
            if (k.ignored() || k.applies_to(f)) continue;
            tools::ConvertConfig config;
            config.arch = f;
            config.keys = {k.name};
            CAPTURE(k.name);
            if (k.neutral && k.neutral(config))
                CHECK(tools::check_config_scope(config) == std::vector<std::string>{k.name});
            else
                CHECK_THROWS_WITH_AS(tools::check_config_scope(config), doctest::Contains("do not apply"),
                                     tools::ToolError);
        }
}

TEST_CASE("a config built in code is held to the same families") {
    tools::ConvertConfig c;
    c.arch = format::Family::forecaster;
    c.window = 48;
    CHECK_NOTHROW(tools::check_config_values_scope(c));
    c.pad_id = 0;
    CHECK_THROWS_WITH_AS(tools::check_config_values_scope(c),
                         doctest::Contains("pad_id does not apply to a forecaster"), tools::ToolError);
    c.pad_id.reset();
    c.arch = format::Family::seq2seq;
    CHECK_THROWS_WITH_AS(tools::check_config_values_scope(c), doctest::Contains("window"), tools::ToolError);
    c.window.reset();
    c.embed_scale_sqrt_d = true;
    CHECK_NOTHROW(tools::check_config_values_scope(c));
    c.arch = format::Family::tvae;
    CHECK_THROWS_WITH_AS(tools::check_config_values_scope(c), doctest::Contains("embed_scale"), tools::ToolError);
}

TEST_CASE("docs/config-keys.md is the table") {
    const std::string path = std::string(AUSPEX_SOURCE_DIR) + "/docs/config-keys.md";
    const std::string want = tools::config_keys_markdown(tools::searched_config_keys());
    const std::string have = read_text(path);
    const bool same = have == want;
    // The current text goes into the build tree, never the source tree: copy it over docs/config-keys.md to
    // regenerate.
    const std::string written = std::string(AUSPEX_BINARY_DIR) + "/config-keys.md";
    if (!same) std::ofstream(written, std::ios::binary) << want;
    CHECK_MESSAGE(same, "docs/config-keys.md differs from the config-key table: the current text is in "
                            << written << "; copy it over docs/config-keys.md");
}
