#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>

#include "tools/text/json.h"
#include "tools/common/tool_error.h"

using ax::tools::JsonValue;
using ax::tools::parse_json;
using ax::tools::ToolError;

namespace {

// The message parse_json throws for text, or "" when it parses.
std::string json_error(const std::string& text) {
    try {
        parse_json(text, "t.json");
    } catch (const ToolError& e) {
        return e.what();
    }
    return "";
}

std::string accessor_error(void (*call)(const JsonValue&), const JsonValue& v) {
    try {
        call(v);
    } catch (const ToolError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("json: scalars and whitespace") {
    CHECK(parse_json("null", "t").is_null());
    CHECK(parse_json(" \t\r\n true \n", "t").as_bool("b") == true);
    CHECK(parse_json("false", "t").as_bool("b") == false);
    CHECK(parse_json("\"hi\"", "t").as_string("s") == "hi");
    CHECK(parse_json("[]", "t").as_array("a").empty());
    CHECK(parse_json("{ }", "t").as_object("o").empty());
}

TEST_CASE("json: numbers follow the RFC grammar") {
    auto num = [](const char* text) { return parse_json(text, "t").as_number("n"); };
    CHECK(num("0") == 0.0);
    CHECK(num("-0.5") == -0.5);
    CHECK(num("12") == 12.0);
    CHECK(num("1e2") == 100.0);
    CHECK(num("1E+2") == 100.0);
    CHECK(num("2.5e-3") == 0.0025);
    CHECK(num("0.1") == 0.1);
    CHECK(num("1.7976931348623157e308") == std::numeric_limits<double>::max());
    CHECK(num("-9007199254740993") == -9007199254740992.0);

    CHECK(json_error("01") == "t.json:1:2: leading zeros are not allowed in numbers");
    CHECK(json_error("-") == "t.json:1:2: expected a digit in number, found end of input");
    CHECK(json_error("1.") == "t.json:1:3: expected a digit after the decimal point, found end of input");
    CHECK(json_error("1.e5") == "t.json:1:3: expected a digit after the decimal point, found character 'e'");
    CHECK(json_error("1e") == "t.json:1:3: expected a digit in the exponent, found end of input");
    CHECK(json_error("1e+") == "t.json:1:4: expected a digit in the exponent, found end of input");
    CHECK(json_error(".5") == "t.json:1:1: expected a value, found character '.'");
    CHECK(json_error("+1") == "t.json:1:1: expected a value, found character '+'");
    CHECK(json_error("-x") == "t.json:1:2: expected a digit in number, found character 'x'");
    CHECK(json_error("NaN") == "t.json:1:1: expected a value, found character 'N'");
    CHECK(json_error("Infinity") == "t.json:1:1: expected a value, found character 'I'");
    CHECK(json_error("0x10") == "t.json:1:2: unexpected character 'x' after the JSON value");
    CHECK(json_error("[1, 1e400]") == "t.json:1:5: number 1e400 is out of double range");
}

TEST_CASE("json: strings with every escape") {
    CHECK(parse_json(R"("a\"b\\c\/d\be\ff\ng\rh\ti")", "t").as_string("s") == "a\"b\\c/d\be\ff\ng\rh\ti");
    CHECK(parse_json(R"("\u0041\u00e9\u20AC")", "t").as_string("s") == "A\xC3\xA9\xE2\x82\xAC");
    CHECK(parse_json(R"("\ud83d\ude00")", "t").as_string("s") == "\xF0\x9F\x98\x80");  // U+1F600
    CHECK(parse_json(R"("\u0000")", "t").as_string("s") == std::string(1, '\0'));
    CHECK(parse_json("\"\xC3\xA9\xF0\x9F\x98\x80\"", "t").as_string("s") == "\xC3\xA9\xF0\x9F\x98\x80");

    CHECK(json_error(R"("abc)") == "t.json:1:5: unterminated string");
    CHECK(json_error(R"("abc\)") == "t.json:1:6: unterminated string");
    CHECK(json_error(R"("a\x")") == "t.json:1:4: invalid escape: backslash followed by character 'x'");
    CHECK(json_error(R"("\u12G4")") == "t.json:1:6: expected 4 hex digits after \\u");
    CHECK(json_error(R"("\u12")") == "t.json:1:6: expected 4 hex digits after \\u");
    CHECK(json_error(R"("\udc00")") == "t.json:1:2: lone low surrogate \\uDC00");
    CHECK(json_error(R"("\ud83d")") == "t.json:1:2: high surrogate \\uD83D not followed by a low surrogate");
    CHECK(json_error(R"("\ud83dx")") == "t.json:1:2: high surrogate \\uD83D not followed by a low surrogate");
    CHECK(json_error(R"("\ud83d\u0041")") == "t.json:1:2: high surrogate \\uD83D not followed by a low surrogate");
    CHECK(json_error("\"a\tb\"") == "t.json:1:3: unescaped control character (byte 0x09) in string");
    CHECK(json_error("\"a\nb\"") == "t.json:1:3: unescaped control character (byte 0x0A) in string");
    CHECK(json_error("\"\xFF\"") == "t.json:1:2: invalid UTF-8 in string");
    CHECK(json_error("\"\xC0\xAF\"") == "t.json:1:2: invalid UTF-8 in string");          // overlong '/'
    CHECK(json_error("\"\xED\xA0\x80\"") == "t.json:1:2: invalid UTF-8 in string");      // encoded surrogate
    CHECK(json_error("\"\xF4\x90\x80\x80\"") == "t.json:1:2: invalid UTF-8 in string");  // beyond U+10FFFF
    CHECK(json_error("\"\xE2\x82\"") == "t.json:1:2: invalid UTF-8 in string");          // truncated
}

TEST_CASE("json: objects and arrays") {
    JsonValue v =
        parse_json(R"({"d_model": 64, "layers": [1, 2.5, "x", null, true, {"a": []}], "name": "m"})", "cfg.json");
    const auto& members = v.as_object("config");
    REQUIRE(members.size() == 3);
    CHECK(members[0].first == "d_model");  // insertion order kept
    CHECK(members[2].first == "name");
    CHECK(v.find("d_model")->as_int("d_model", 1, 4096) == 64);
    CHECK(v.find("missing") == nullptr);
    const auto& layers = v.find("layers")->as_array("layers");
    REQUIRE(layers.size() == 6);
    CHECK(layers[1].as_number("x") == 2.5);
    CHECK(layers[3].is_null());
    CHECK(layers[5].find("a")->as_array("a").empty());
    CHECK(layers[0].find("a") == nullptr);  // not an object
}

TEST_CASE("json: structural errors name line and column") {
    CHECK(json_error("") == "t.json:1:1: expected a value, found end of input");
    CHECK(json_error("   \n  ") == "t.json:2:3: expected a value, found end of input");
    CHECK(json_error("{\n  \"a\": 1,\n  \"b\" 2\n}") ==
          "t.json:3:7: expected ':' after object key, found character '2'");
    CHECK(json_error("{\"a\": 1,}") == "t.json:1:9: expected a string key, found character '}'");
    CHECK(json_error("{\"a\": 1 \"b\": 2}") == "t.json:1:9: expected ',' or '}' in object, found character '\"'");
    CHECK(json_error("{1: 2}") == "t.json:1:2: expected a string key, found character '1'");
    CHECK(json_error("[1, 2,]") == "t.json:1:7: expected a value, found character ']'");
    CHECK(json_error("[1 2]") == "t.json:1:4: expected ',' or ']' in array, found character '2'");
    CHECK(json_error("[1, 2") == "t.json:1:6: expected ',' or ']' in array, found end of input");
    CHECK(json_error("{\"a\": 1") == "t.json:1:8: expected ',' or '}' in object, found end of input");
    CHECK(json_error("tru") == "t.json:1:1: invalid literal, expected 'true'");
    CHECK(json_error("nul") == "t.json:1:1: invalid literal, expected 'null'");
    CHECK(json_error("falsey") == "t.json:1:6: unexpected character 'y' after the JSON value");
    CHECK(json_error("{} {}") == "t.json:1:4: unexpected character '{' after the JSON value");
    CHECK(json_error("1\n\n  x") == "t.json:3:3: unexpected character 'x' after the JSON value");
    CHECK(json_error(std::string("[1]\0", 4)) == "t.json:1:4: unexpected byte 0x00 after the JSON value");
    CHECK(json_error("// comment\n1") == "t.json:1:1: expected a value, found character '/'");
    CHECK(json_error("'single'") == "t.json:1:1: expected a value, found character '''");
    // Columns count characters, so a message points at the right place after non-ASCII text.
    CHECK(json_error("[\"\xC3\xA9\xE2\x82\xAC\", x]") == "t.json:1:8: expected a value, found character 'x'");
}

TEST_CASE("json: a byte order mark is skipped") {
    CHECK(parse_json("\xEF\xBB\xBF{\"a\": 1}", "t").find("a") != nullptr);
}

TEST_CASE("json: duplicate keys are refused") {
    CHECK(json_error("{\"a\": 1,\n \"b\": 2, \"a\": 3}") == "t.json:2:10: duplicate key \"a\"");
    CHECK(json_error("{\"x\": {\"k\": 1, \"k\": 1}}") == "t.json:1:16: duplicate key \"k\"");
    CHECK(json_error("{\"\\n\": 1, \"\\n\": 2}") == "t.json:1:11: duplicate key \"\\x0A\"");
    CHECK(json_error("[{\"a\": 1}, {\"a\": 1}]").empty());  // the same key in sibling objects is fine
}

TEST_CASE("json: nesting depth is limited to 64") {
    CHECK(json_error(std::string(64, '[') + std::string(64, ']')).empty());
    CHECK(json_error(std::string(65, '[') + std::string(65, ']')) == "t.json:1:65: nesting deeper than 64 levels");
    std::string objects;
    for (int i = 0; i < 65; ++i) objects += "{\"a\":";
    CHECK(json_error(objects + "1" + std::string(65, '}')) == "t.json:1:321: nesting deeper than 64 levels");
    // Deep hostile input fails cleanly rather than exhausting the stack.
    CHECK(json_error(std::string(100000, '[')) == "t.json:1:65: nesting deeper than 64 levels");
}

TEST_CASE("json: input size is limited") {
    std::string big = "\"" + std::string(16u << 20, 'a') + "\"";
    CHECK(json_error(big) == "t.json: input is larger than the 16 MiB limit for JSON");
    std::string fits = "\"" + std::string((16u << 20) - 2, 'a') + "\"";
    CHECK(parse_json(fits, "t").as_string("s").size() == (16u << 20) - 2);
}

TEST_CASE("json: accessors name the context and both types") {
    JsonValue str = JsonValue::make_string("x");
    CHECK(accessor_error([](const JsonValue& v) { v.as_number("config.d_model"); }, str) ==
          "config.d_model: expected a number, found a string");
    CHECK(accessor_error([](const JsonValue& v) { v.as_bool("flag"); }, JsonValue::make_null()) ==
          "flag: expected a boolean, found null");
    CHECK(accessor_error([](const JsonValue& v) { v.as_string("name"); }, JsonValue::make_number(1)) ==
          "name: expected a string, found a number");
    CHECK(accessor_error([](const JsonValue& v) { v.as_array("layers"); }, JsonValue::make_object({})) ==
          "layers: expected an array, found an object");
    CHECK(accessor_error([](const JsonValue& v) { v.as_object("root"); }, JsonValue::make_array({})) ==
          "root: expected an object, found an array");
    CHECK(accessor_error([](const JsonValue& v) { v.as_int("n", 0, 10); }, JsonValue::make_bool(true)) ==
          "n: expected a number, found a boolean");
}

TEST_CASE("json: as_int checks integrality and range") {
    auto as_int = [](double d, int64_t lo, int64_t hi) { return JsonValue::make_number(d).as_int("n", lo, hi); };
    CHECK(as_int(3.0, 0, 10) == 3);
    CHECK(as_int(-0.0, 0, 10) == 0);
    CHECK(as_int(1e2, 0, 100) == 100);
    CHECK(as_int(-9223372036854775808.0, INT64_MIN, INT64_MAX) == INT64_MIN);
    CHECK(parse_json("4096", "t").as_int("heads", 1, 4096) == 4096);

    auto error = [](double d, int64_t lo, int64_t hi) {
        try {
            JsonValue::make_number(d).as_int("n", lo, hi);
        } catch (const ToolError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    CHECK(error(1.5, 0, 10) == "n: expected an integer, found 1.5");
    CHECK(error(11, 0, 10) == "n: 11 is out of range [0, 10]");
    CHECK(error(-1, 0, 10) == "n: -1 is out of range [0, 10]");
    CHECK(error(9223372036854775808.0, INT64_MIN, INT64_MAX) ==
          "n: 9223372036854775808 is out of range [-9223372036854775808, 9223372036854775807]");
    CHECK(error(1e300, 0, 10) == "n: 1e+300 is out of range [0, 10]");
}

TEST_CASE("json: plain non-negative integers keep their exact 64-bit value") {
    uint64_t n = 0;
    CHECK(parse_json("9007199254740993", "t").exact_u64(&n));  // 2^53 + 1: no double holds it
    CHECK(n == 9007199254740993ull);
    CHECK(parse_json("18446744073709551615", "t").exact_u64(&n));
    CHECK(n == UINT64_MAX);
    CHECK(parse_json("0", "t").exact_u64(&n));
    CHECK(n == 0);
    // Still numbers, but not plain non-negative 64-bit integers.
    for (const char* text : {"18446744073709551616", "-1", "-0", "1.0", "1e3", "0.5"}) {
        INFO(text);
        const JsonValue v = parse_json(text, "t");
        CHECK(v.is_number());
        CHECK_FALSE(v.exact_u64(&n));
    }
    CHECK_FALSE(parse_json("\"7\"", "t").exact_u64(&n));
    CHECK(parse_json("9007199254740993", "t").as_number("n") == 9007199254740992.0);
}

TEST_CASE("json: limits on bytes, depth and value count") {
    ax::tools::JsonLimits limits;
    limits.max_values = 4;
    CHECK(parse_json("[1,2,3]", "t", limits).as_array("a").size() == 3);
    try {
        parse_json("[1,2,3,4]", "t", limits);
        FAIL("five values accepted");
    } catch (const ToolError& e) {
        CHECK(std::string(e.what()) == "t:1:8: too many values (more than 4)");
    }
    limits = {};
    limits.max_depth = 2;
    CHECK(parse_json("[[1]]", "t", limits).is_array());
    CHECK_THROWS_WITH_AS(parse_json("[[[1]]]", "t", limits), "t:1:3: nesting deeper than 2 levels", ToolError);
    limits = {};
    limits.max_bytes = 4;
    CHECK_THROWS_AS(parse_json("[1,2]", "t", limits), ToolError);
}

TEST_CASE("json: parse_json_file") {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / "auspex_test_json";
    fs::create_directories(dir);
    fs::path good = dir / "good.json";
    fs::path bad = dir / "bad.json";
    {
        std::FILE* f = std::fopen(good.string().c_str(), "wb");
        REQUIRE(f);
        std::fputs("{\"a\": [1, 2]}\n", f);
        std::fclose(f);
        f = std::fopen(bad.string().c_str(), "wb");
        REQUIRE(f);
        std::fputs("{\n\"a\": }\n", f);
        std::fclose(f);
    }
    CHECK(ax::tools::parse_json_file(good.string()).find("a")->as_array("a").size() == 2);
    try {
        ax::tools::parse_json_file(bad.string());
        FAIL("expected an error");
    } catch (const ToolError& e) {
        CHECK(std::string(e.what()) == bad.string() + ":2:6: expected a value, found character '}'");
    }
    std::string missing = (dir / "missing.json").string();
    try {
        ax::tools::parse_json_file(missing);
        FAIL("expected an error");
    } catch (const ToolError& e) {
        CHECK(std::string(e.what()) == "cannot open '" + missing + "': No such file or directory");
    }
    try {
        ax::tools::parse_json_file(dir.string());
        FAIL("expected an error");
    } catch (const ToolError& e) {
        CHECK(std::string(e.what()) == "cannot read '" + dir.string() + "': Is a directory");
    }
    fs::remove_all(dir);
}
