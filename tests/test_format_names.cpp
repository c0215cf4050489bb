// The format enums' names (runtime/format.h tables): every value has exactly one name that parses back to
// it, and the tools' parsers and messages use those tables.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "runtime/format.h"
#include "tools/common/enum_text.h"
#include "tools/convert/quantize.h"
#include "tools/host/model_loader.h"

namespace {

using namespace ax;

// Values 0..count-1 (from `first`) each have a name; names are unique; each parses back to its value.
template <typename E>
void check_table(uint32_t first, uint32_t count) {
    std::set<std::string> names;
    for (const format::EnumName<E>& row : format::names_of(E{})) {
        INFO(row.name);
        CHECK(names.insert(row.name).second);
        E parsed{};
        REQUIRE(format::parse_enum(row.name, &parsed));
        CHECK(parsed == row.value);
    }
    for (uint32_t v = first; v < first + count; ++v) {
        const E value = static_cast<E>(v);
        REQUIRE(format::enum_name(value) != nullptr);
        E parsed{};
        REQUIRE(format::parse_enum(format::enum_name(value), &parsed));
        CHECK(parsed == value);
    }
    CHECK(format::enum_name(static_cast<E>(first + count)) == nullptr);
    E untouched = static_cast<E>(first);
    CHECK_FALSE(format::parse_enum("no such name", &untouched));
    CHECK_FALSE(format::parse_enum("", &untouched));
    CHECK(untouched == static_cast<E>(first));
}

}  // namespace

TEST_CASE("every format enum value has one name, which parses back to it") {
    check_table<format::Family>(1, 4);
    check_table<format::DType>(0, 5);
    check_table<format::Activation>(0, 4);
    check_table<format::PositionalEncoding>(0, 6);
    check_table<format::CacheType>(0, 2);
    check_table<format::MemoryMask>(0, 2);
    check_table<format::Normalization>(0, 4);
    check_table<format::Pooling>(0, 3);
    check_table<format::OutputActivation>(0, 3);
    check_table<format::ForecastHead>(0, 5);
    check_table<format::EncoderMask>(0, 2);
    check_table<format::InputEmbedding>(0, 5);
    check_table<format::Decoding>(0, 3);
    check_table<format::Placeholder>(0, 2);
    check_table<format::Revin>(0, 3);
    check_table<format::Architecture>(0, 2);
    check_table<format::LayerKind>(0, 2);
    // Config keys: every number from 1 to the last named (the list is AX_CONFIG_KEYS, declared once).
    uint32_t last_key = 0;
#define AX_COUNT_KEY(name, number) last_key = number > last_key ? number : last_key;
    AX_CONFIG_KEYS(AX_COUNT_KEY)
#undef AX_COUNT_KEY
    CHECK(last_key == static_cast<uint32_t>(format::ConfigKey::value_dim));
    check_table<format::ConfigKey>(1, last_key);
}

TEST_CASE("every tensor role has its own name and number, and the numbers are the format's") {
    std::set<std::string> names;
    std::set<uint32_t> numbers;
    size_t roles = 0;
#define AX_CHECK_ROLE(name, number, text)                                    \
    ++roles;                                                                 \
    CHECK(std::string(format::role_name(format::Role::name)) == text);       \
    CHECK(names.insert(text).second);                                        \
    CHECK(numbers.insert(static_cast<uint32_t>(format::Role::name)).second); \
    CHECK(static_cast<uint32_t>(format::Role::name) == static_cast<uint32_t>(number));
    AX_ROLES(AX_CHECK_ROLE)
#undef AX_CHECK_ROLE
    CHECK(roles == 73);
    // Numbers written in files: a few of them, as docs/FORMAT.md states them.
    CHECK(static_cast<uint32_t>(format::Role::src_embed_weight) == 1);
    CHECK(static_cast<uint32_t>(format::Role::src_token_embed) == 13);
    CHECK(static_cast<uint32_t>(format::Role::enc_attn_in_weight) == 32);
    CHECK(static_cast<uint32_t>(format::Role::dec_attn_in_weight) == 64);
    CHECK(static_cast<uint32_t>(format::Role::mlp_hidden_weight) == 44);
    CHECK(static_cast<uint32_t>(format::Role::quantile_levels) == 51);
    CHECK(static_cast<uint32_t>(format::Role::enc_ff_gate_weight) == 52);
    CHECK(format::role_is_per_layer(format::Role::dec_ff_gate_weight));
    CHECK(static_cast<uint32_t>(format::Role::src_vocabulary) == 128);
    CHECK(!format::role_is_per_layer(format::Role::src_vocabulary));
    CHECK(format::role_is_per_layer(format::Role::dec_norm3_bias));
    CHECK(format::role_name(static_cast<format::Role>(0)) == nullptr);
}

TEST_CASE("the tools spell and parse the enums through the format tables") {
    CHECK(std::string(tools::family_name(format::Family::tvae)) == "tvae");
    CHECK(std::string(tools::dtype_name(format::DType::i8)) == "int8");
    CHECK(tools::parse_dtype("i8") == format::DType::i8);  // an alias
    CHECK(tools::parse_dtype("float16") == format::DType::f16);
    CHECK(tools::enum_text(format::PositionalEncoding::sinusoidal_pad0) == "sinusoidal_pad0");
    CHECK(tools::enum_text(static_cast<format::Pooling>(9)) == "?");
    CHECK(tools::parse_enum_text<format::Normalization>("last_value", "x") == format::Normalization::last_value);
    try {
        tools::parse_enum_text<format::MemoryMask>("triu", "config \"memory_mask\"");
        FAIL("parsed a name that is not in the table");
    } catch (const tools::ToolError& e) {
        CHECK(std::string(e.what()) == "config \"memory_mask\": \"triu\" is not one of \"none\", \"tril\"");
    }
}
