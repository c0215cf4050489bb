// Versioned models (issue 18.2): `convert --model-name --model-version` and the conversion time and converter
// version stored in the file, shown by inspect, read through the C++ and C APIs; files without them still
// open (unversioned); hostile identity records in a crafted file are refused with one clear line.
#include <doctest/doctest.h>

#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "api/auspex.h"
#include "runtime/model_identity.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/convert/converter.h"
#include "tools/convert/model_stamp.h"
#include "tools/axm/text_record_store.h"
#include "tools/host/model_loader.h"
#include "tools/import/convert_config.h"

namespace {

using namespace ax;
using test::auspex;
using test::check_error;
using test::read_file;
using test::Result;
using test::scratch_dir;

constexpr uint32_t kSuiteEpoch = 1764000000;  // tests/test_main.cpp: 2025-11-24 16:00:00 UTC

std::string case_file(const std::string& f) { return test::fixture_path("forecaster/post_relu_tril/" + f); }

tools::ConvertOptions options_for(const std::string& name, std::optional<uint32_t> version) {
    tools::ConvertOptions o;
    o.checkpoint_path = case_file("model.pt");
    o.config_path = case_file("config.json");
    o.model_name = name;
    o.model_version = version;
    return o;
}

std::string write_model(const std::string& name, const std::vector<uint8_t>& bytes) {
    return test::write_file(name, std::string(bytes.begin(), bytes.end()));
}

// The imported model before the identity is stamped, for crafting records by hand.
tools::AxmModel imported() {
    const tools::ConvertOptions o = options_for("", std::nullopt);
    return tools::import_model(tools::read_model_tensors(o), tools::read_convert_config(o.config_path));
}

// Opening a model whose identity records were written as given, past the converter's checks.
std::string open_error(const tools::AxmModel& model) {
    try {
        tools::open_model_bytes(tools::serialize_axm(model), "crafted");
    } catch (const tools::ToolError& e) {
        return e.what();
    }
    return "opened";
}

// Restores an environment variable when the test ends.
struct EnvGuard {
    std::string name;
    std::optional<std::string> saved;
    explicit EnvGuard(const char* n) : name(n) {
        if (const char* v = std::getenv(n)) saved = v;
    }
    ~EnvGuard() {
        if (saved)
            ::setenv(name.c_str(), saved->c_str(), 1);
        else
            ::unsetenv(name.c_str());
    }
};

}  // namespace

TEST_CASE("identity: the converter stores name, version, time and its version; the C++ API reads them") {
    const std::vector<uint8_t> bytes = tools::convert_model(options_for("Fähre temp", 7));
    const auto m = tools::load_model_bytes(bytes, "named");
    char name[format::kMaxModelNameBytes + 1];
    CHECK(model_name(m->file, name, sizeof name) == std::strlen("Fähre temp"));
    CHECK(std::string(name) == "Fähre temp");
    uint32_t version = 0, created = 0;
    REQUIRE(model_version(m->file, &version));
    CHECK(version == 7);
    REQUIRE(model_created_time(m->file, &created));
    CHECK(created == kSuiteEpoch);
    char converter[format::kMaxConverterVersionBytes + 1];
    CHECK(converter_version(m->file, converter, sizeof converter) == tools::converter_version_text().size());
    CHECK(std::string(converter) == tools::converter_version_text());
    CHECK(tools::converter_version_text().rfind("auspex ", 0) == 0);
    // Truncated copies end in a zero; the length returned is the whole name's.
    char small[5];
    CHECK(model_name(m->file, small, sizeof small) == 11);
    CHECK(std::string(small) == "Fäh");
    CHECK(model_name(m->file, nullptr, 0) == 11);

    // Version 0 is a version, not "unversioned"; no name stays no name.
    const auto zero = tools::load_model_bytes(tools::convert_model(options_for("", 0u)), "v0");
    CHECK(model_version(zero->file, &version));
    CHECK(version == 0);
    CHECK(model_name(zero->file, name, sizeof name) == 0);
    CHECK(name[0] == '\0');
    // Without --model-version there is no version record, but the time and converter are still stored.
    const auto plain = tools::load_model_bytes(tools::convert_model(options_for("", std::nullopt)), "plain");
    CHECK_FALSE(model_version(plain->file, &version));
    CHECK(model_created_time(plain->file, &created));
}

TEST_CASE("identity: SOURCE_DATE_EPOCH makes conversions reproducible; without it the clock is stored") {
    const EnvGuard guard("SOURCE_DATE_EPOCH");
    const std::vector<uint8_t> a = tools::convert_model(options_for("m", 1u));
    const std::vector<uint8_t> b = tools::convert_model(options_for("m", 1u));
    CHECK(a == b);
    ::setenv("SOURCE_DATE_EPOCH", "1000", 1);
    uint32_t created = 0;
    CHECK(model_created_time(tools::load_model_bytes(tools::convert_model(options_for("m", 1u)), "t")->file, &created));
    CHECK(created == 1000);
    ::unsetenv("SOURCE_DATE_EPOCH");
    const std::time_t before = std::time(nullptr);
    const auto now = tools::load_model_bytes(tools::convert_model(options_for("m", 1u)), "now");
    const std::time_t after = std::time(nullptr);
    REQUIRE(model_created_time(now->file, &created));
    CHECK(static_cast<std::time_t>(created) >= before);
    CHECK(static_cast<std::time_t>(created) <= after);
    for (const char* bad : {"", "-1", "12x", "4294967296", "1e9"}) {
        ::setenv("SOURCE_DATE_EPOCH", bad, 1);
        CHECK_THROWS_WITH_AS(tools::conversion_time(), doctest::Contains("SOURCE_DATE_EPOCH"), tools::ToolError);
    }
}

TEST_CASE("identity: convert --model-name --model-version, shown by inspect; bad values refused") {
    const std::string out = (scratch_dir() / "identity.axm").string();
    const std::string convert =
        "convert " + case_file("model.pt") + " --config " + case_file("config.json") + " -o " + out;
    const Result r = auspex(convert + " --model-name \"ferry temp\" --model-version 3");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    // The CLI and the library write the same bytes (the suite's fixed SOURCE_DATE_EPOCH).
    const std::vector<uint8_t> lib = tools::convert_model(options_for("ferry temp", 3u));
    CHECK(read_file(out) == std::string(lib.begin(), lib.end()));
    const Result info = auspex("inspect " + out);
    REQUIRE_MESSAGE(info.exit_code == 0, info.output);
    CHECK(info.output.find("name:     ferry temp, version 3\n") != std::string::npos);
    CHECK(info.output.find("created:  2025-11-24 16:00:00 UTC by " + tools::converter_version_text() + "\n") !=
          std::string::npos);
    REQUIRE(auspex(convert + " --model-name solo").exit_code == 0);
    CHECK(auspex("inspect " + out).output.find("name:     solo, unversioned\n") != std::string::npos);
    REQUIRE(auspex(convert + " --model-version 4294967295").exit_code == 0);
    CHECK(auspex("inspect " + out).output.find("name:     unnamed, version 4294967295\n") != std::string::npos);

    const std::string good = read_file(out);
    check_error(auspex(convert + " --model-version -1"), 2, "--model-version must be a whole number in 0..4294967295");
    check_error(auspex(convert + " --model-version 4294967296"), 2, "0..4294967295");
    check_error(auspex(convert + " --model-version 2.0"), 2, "0..4294967295");
    check_error(auspex(convert + " --model-name \"\""), 1, "--model-name is empty");
    check_error(auspex(convert + " --model-name " + std::string(65, 'n')), 1,
                "model name: 65 bytes, longer than the 64 allowed");
    check_error(auspex(convert + " --model-name \"$(printf 'a\\tb')\""), 1, "a control character");
    check_error(auspex(convert + " --model-name \"$(printf 'a\\nb')\""), 1, "a line break");
    check_error(auspex(convert + " --model-name \"$(printf 'a\\377b')\""), 1, "not well-formed UTF-8");
    check_error(auspex(convert + " --model-name \"$(printf 'a\\302\\205b')\""), 1, "U+0080..U+009F");
    {
        const EnvGuard guard("SOURCE_DATE_EPOCH");
        ::setenv("SOURCE_DATE_EPOCH", "yesterday", 1);
        check_error(auspex(convert), 1, "SOURCE_DATE_EPOCH=\"yesterday\" is not a whole number of seconds");
    }
    CHECK(read_file(out) == good);  // every refusal left the model as it was
}

TEST_CASE("identity: a model file without identity records opens and reports unversioned") {
    const std::string old_path = test::fixture_path("forecaster/window48/old_format.axm");
    const auto m = tools::load_model(old_path);
    uint32_t value = 0;
    CHECK_FALSE(model_version(m->file, &value));
    CHECK_FALSE(model_created_time(m->file, &value));
    char text[8] = "x";
    CHECK(model_name(m->file, text, sizeof text) == 0);
    CHECK(text[0] == '\0');
    CHECK(converter_version(m->file, text, sizeof text) == 0);
    const Result info = auspex("inspect " + old_path);
    REQUIRE_MESSAGE(info.exit_code == 0, info.output);
    CHECK(info.output.find("name:     unversioned (no model name or version stored)\n") != std::string::npos);
    CHECK(info.output.find("created:") == std::string::npos);

    // The C API says the same.
    auspex_forecaster fc;
    REQUIRE(auspex_open(&fc, m->bytes.data(), m->bytes.size(), 1) == AUSPEX_OK);
    uint32_t version = 123;
    CHECK(auspex_model_version(&fc, &version) == 0);
    CHECK(auspex_model_created_time(&fc, &version) == 0);
    CHECK(auspex_model_proven(&fc) == -1);  // not recorded
    char name[AUSPEX_MAX_TEXT_BYTES + 1] = "x";
    CHECK(auspex_model_name(&fc, name, sizeof name) == 0);
    CHECK(name[0] == '\0');
}

TEST_CASE("identity: the C API reads name, version, time and converter version without allocating") {
    const tools::AlignedBuffer bytes(tools::convert_model(options_for("pump-7 forecaster", 42u)));
    auspex_forecaster fc;
    // Not opened yet: nothing, and no crash.
    char name[AUSPEX_MAX_TEXT_BYTES + 1] = "x";
    uint32_t value = 0;
    CHECK(auspex_model_name(nullptr, name, sizeof name) == 0);
    CHECK(auspex_model_version(nullptr, &value) == 0);
    REQUIRE(auspex_open(&fc, bytes.data(), bytes.size(), 1) == AUSPEX_OK);
    CHECK(auspex_model_name(&fc, name, sizeof name) == 17);
    CHECK(std::string(name) == "pump-7 forecaster");
    char four[5];
    CHECK(auspex_model_name(&fc, four, sizeof four) == 17);
    CHECK(std::string(four) == "pump");
    REQUIRE(auspex_model_version(&fc, &value) == 1);
    CHECK(value == 42);
    CHECK(auspex_model_version(&fc, nullptr) == 0);
    REQUIRE(auspex_model_created_time(&fc, &value) == 1);
    CHECK(value == kSuiteEpoch);
    char converter[AUSPEX_MAX_TEXT_BYTES + 1];
    CHECK(auspex_converter_version(&fc, converter, sizeof converter) == tools::converter_version_text().size());
    CHECK(std::string(converter) == tools::converter_version_text());
    // convert_model ran no check pair: unproven.
    CHECK(auspex_model_proven(&fc) == 0);
    CHECK(auspex_model_proven(nullptr) == -1);
}

TEST_CASE("identity: hostile name and converter records in a crafted file get one clear error") {
    auto with_text = [](uint32_t base, const std::string& text) {
        tools::AxmModel m = imported();
        tools::store_text_records(m, base, text, "test");
        return m;
    };
    CHECK(open_error(with_text(format::kModelNameKey, "ok name")) == "opened");
    CHECK(open_error(with_text(format::kModelNameKey, std::string(100, 'n')))
              .find("model name: 100 bytes, longer than the 64 allowed") != std::string::npos);
    CHECK(open_error(with_text(format::kModelNameKey, std::string(800, 'n'))).find("longer than the 64 allowed") !=
          std::string::npos);
    CHECK(open_error(with_text(format::kModelNameKey, "bad \xFF name"))
              .find("model name: the text is not well-formed UTF-8") != std::string::npos);
    CHECK(open_error(with_text(format::kModelNameKey, "\xED\xA0\x80")).find("not well-formed UTF-8") !=
          std::string::npos);  // a surrogate
    CHECK(open_error(with_text(format::kModelNameKey, "two\nlines")).find("model name: a line break") !=
          std::string::npos);
    CHECK(open_error(with_text(format::kModelNameKey, "bell\a")).find("model name: a control character") !=
          std::string::npos);
    CHECK(open_error(with_text(format::kConverterVersionKey, "auspex\x7F"))
              .find("converter version: a control character") != std::string::npos);
    CHECK(
        open_error(with_text(format::kConverterVersionKey, std::string(65, 'v'))).find("converter version: 65 bytes") !=
        std::string::npos);
    // A gap in the keys, a zero byte inside, a record of padding only.
    tools::AxmModel gap = with_text(format::kModelNameKey, "abcdefgh");
    for (auto& [key, value] : gap.config)
        if (static_cast<uint32_t>(key) == format::kModelNameKey + 1)
            key = static_cast<format::ConfigKey>(format::kModelNameKey + 2);
    CHECK(open_error(gap).find("model name: text records are not consecutive from key 8192") != std::string::npos);
    CHECK(open_error(with_text(format::kModelNameKey, std::string("ab\0cd", 5))).find("zero byte") !=
          std::string::npos);
    tools::AxmModel padding = imported();
    padding.config.emplace_back(static_cast<format::ConfigKey>(format::kModelNameKey), 0u);
    CHECK(open_error(padding).find("model name: more zero padding") != std::string::npos);

    // The CLI: one line, exit 1, no crash.
    const std::string path =
        write_model("long_name.axm", tools::serialize_axm(with_text(format::kModelNameKey, std::string(100, 'n'))));
    check_error(auspex("inspect " + path), 1, "model name: 100 bytes, longer than the 64 allowed");
    const std::string bad_utf8 =
        write_model("bad_name.axm", tools::serialize_axm(with_text(format::kModelNameKey, "\xC3(")));
    check_error(auspex("forecast " + bad_utf8 + " --input " + case_file("history.csv")), 1,
                "model name: the text is not well-formed UTF-8");
}

TEST_CASE("identity: the proof record is read back, and a crafted one that contradicts itself is refused") {
    tools::AxmModel proven = imported();
    tools::stamp_model(proven, "", std::nullopt, tools::ConversionProof{true, 4.5e-7, 1.3e-4, "/some/folder/out.csv"});
    const auto m = tools::open_model_bytes(tools::serialize_axm(proven), "proven");
    const ModelProof p = model_proof(m->file);
    CHECK(p.recorded);
    CHECK(p.proof == format::Proof::proven);
    REQUIRE(p.measured);
    CHECK(p.max_diff == doctest::Approx(4.5e-7));
    CHECK(p.tolerance == doctest::Approx(1.3e-4));
    char against[format::kMaxProofAgainstBytes + 1];
    CHECK(proof_against(m->file, against, sizeof against) == 7);
    CHECK(std::string(against) == "out.csv");  // the folder is the user's machine's: not stored
    const tools::AlignedBuffer proven_bytes(tools::serialize_axm(proven));
    auspex_forecaster fc;
    REQUIRE(auspex_open(&fc, proven_bytes.data(), proven_bytes.size(), 1) == AUSPEX_OK);
    CHECK(auspex_model_proven(&fc) == 1);

    tools::AxmModel unproven = imported();
    tools::stamp_model(unproven, "", std::nullopt, tools::ConversionProof{});
    const ModelProof u = model_proof(tools::open_model_bytes(tools::serialize_axm(unproven), "u")->file);
    CHECK(u.recorded);
    CHECK(u.proof == format::Proof::unproven);
    CHECK_FALSE(u.measured);
    // A file written before the record: not recorded, and it opens.
    CHECK_FALSE(model_proof(tools::open_model_bytes(tools::serialize_axm(imported()), "old")->file).recorded);

    auto with = [](std::vector<std::pair<format::ConfigKey, uint32_t>> records) {
        tools::AxmModel model = imported();
        for (const auto& [key, value] : records) model.config.emplace_back(key, value);
        return model;
    };
    using K = format::ConfigKey;
    CHECK(open_error(with({{K::proof, 2}})).find("proof") != std::string::npos);
    CHECK(
        open_error(with({{K::proof, 0}, {K::proof_max_diff, 0}, {K::proof_tolerance, 0}})).find("need proof proven") !=
        std::string::npos);
    CHECK(open_error(with({{K::proof, 1}, {K::proof_max_diff, 0}})).find("go together") != std::string::npos);
    CHECK(open_error(with({{K::proof, 1}, {K::proof_max_diff, 0x7FC00000u}, {K::proof_tolerance, 0}}))
              .find("finite and not negative") != std::string::npos);
    tools::AxmModel named = with({{K::proof, 0}});
    tools::store_text_records(named, format::kProofAgainstKey, "out.csv", "test");
    CHECK(open_error(named).find("need proof proven") != std::string::npos);
}
