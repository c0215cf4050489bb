// The family descriptors (the type in tools/family, the rows in tools/families): one complete row per
// format::Family, which opens that family's files into its alternative of the model variant and names its lengths as
// the commands take them.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <variant>

#include "tests/family_support.h"
#include "tests/test_support.h"
#include "tools/family/family_descriptor.h"
#include "tools/host/model_loader.h"

using namespace ax;

namespace {

template <typename Model>
bool holds(const tools::LoadedModel& m) {
    return std::holds_alternative<Model>(m.model);
}

}  // namespace

TEST_CASE("every family has one complete descriptor row, in format::Family order") {
    const auto& all = tools::family_descriptors();
    REQUIRE(all.size() == std::variant_size_v<tools::FamilyModel>);
    std::set<std::string> commands;
    for (size_t i = 0; i < all.size(); ++i) {
        const tools::FamilyDescriptor& d = *all[i];
        CAPTURE(tools::family_name(d.family));
        CHECK(static_cast<size_t>(d.family) == i + 1);
        CHECK(&tools::family_descriptor(d.family) == &d);
        CHECK(std::string(d.commands).find("verify, bench, header") != std::string::npos);
        CHECK(std::string(d.output_prefix).size() > 0);
        CHECK(static_cast<bool>(d.import));
        CHECK(static_cast<bool>(d.open));
        CHECK(static_cast<bool>(d.lengths_text));
        CHECK(static_cast<bool>(d.arena_bytes));
        CHECK(static_cast<bool>(d.inspect_lines));
        CHECK(static_cast<bool>(d.inspect_arena));
        CHECK(static_cast<bool>(d.header_macros));
        CHECK(static_cast<bool>(d.bench));
        CHECK(static_cast<bool>(d.read_check_inputs));
        CHECK(static_cast<bool>(d.run_check));
        CHECK(static_cast<bool>(d.output_cols));
        CHECK((d.second_outputs == nullptr) == (d.second_label == nullptr));
        for (size_t k = 0; k < d.length_count(); ++k) {
            const tools::LengthSpec& s = d.lengths[k];
            CHECK(static_cast<bool>(s.json));
            CHECK(static_cast<bool>(s.macro));
            CHECK(static_cast<bool>(s.macro_doc));
            CHECK(static_cast<bool>(s.default_value));
            CHECK(static_cast<bool>(s.max_value));
        }
    }
    CHECK_THROWS_AS(tools::family_descriptor(static_cast<format::Family>(99)), tools::ToolError);
}

TEST_CASE("the descriptors name each family's length options as the commands take them") {
    CHECK(tools::length_options_text(tools::family_descriptor(format::Family::forecaster)) == "--window, --horizon");
    CHECK(tools::length_options_text(tools::family_descriptor(format::Family::seq2seq)) == "--src-len, --tgt-len");
    CHECK(tools::length_options_text(tools::family_descriptor(format::Family::classifier)) == "--max-len");
    CHECK(tools::length_options_text(tools::family_descriptor(format::Family::tvae)) == "--max-len");
    // bench --json's fields: the forecaster's as they always were.
    CHECK(std::string(tools::family_descriptor(format::Family::forecaster).lengths[1].json) == "horizon");
    CHECK(std::string(tools::family_descriptor(format::Family::seq2seq).lengths[0].json) == "src_len");
}

TEST_CASE("a descriptor opens its family's file into that family's alternative of the model variant") {
    const auto fc = tools::open_model_bytes(test::convert_case(test::fixture_path("forecaster/window48")), "fc");
    const auto s2s = tools::open_model_bytes(test::convert_case(test::fixture_path("seq2seq/tutorial")), "s2s");
    const auto vae = tools::open_model_bytes(test::convert_case(test::fixture_path("tvae/post_relu_pe")), "vae");
    CHECK(holds<Forecaster>(*fc));
    CHECK(holds<Seq2Seq>(*s2s));
    CHECK(holds<Tvae>(*vae));
    CHECK(tools::stack_of(*s2s).decoder_layers == s2s->as<Seq2Seq>().config().stack.decoder_layers);
    CHECK(tools::position_limit(*fc) == 64);  // the fixture's max_positions
    // Another family's object is a tool bug, refused with an error rather than read from a closed object.
    CHECK_THROWS_AS(s2s->as<Tvae>(), tools::ToolError);
    // The lengths' arena is the family object's own.
    const tools::FamilyDescriptor& d = tools::family_descriptor(format::Family::seq2seq);
    tools::SessionSize l;
    l.first = 9;
    l.second = 7;
    CHECK(d.arena_bytes(*s2s, l) == s2s->as<Seq2Seq>().arena_bytes(9, 7));
    CHECK(d.output_cols(*s2s) == s2s->as<Seq2Seq>().config().tgt_vocab);
}
