#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>

#include "tools/text/csv.h"
#include "tools/common/tool_error.h"

using ax::tools::format_csv;
using ax::tools::parse_csv;
using ax::tools::Table;
using ax::tools::ToolError;

namespace {

std::string csv_error(const std::string& text) {
    try {
        parse_csv(text, "d.csv");
    } catch (const ToolError& e) {
        return e.what();
    }
    return "";
}

std::string format_error(const Table& t) {
    try {
        format_csv(t);
    } catch (const ToolError& e) {
        return e.what();
    }
    return "";
}

Table make_table(std::vector<std::string> header, size_t rows, size_t cols, std::vector<float> values) {
    Table t;
    t.header = std::move(header);
    t.rows = rows;
    t.cols = cols;
    t.values = std::move(values);
    return t;
}

}  // namespace

TEST_CASE("csv: header detection") {
    Table t = parse_csv("hour,load\n1,2.5\n3,-4\n", "d.csv");
    CHECK(t.header == std::vector<std::string>{"hour", "load"});
    CHECK(t.rows == 2);
    CHECK(t.cols == 2);
    CHECK(t.at(1, 1) == -4.0f);
    CHECK(t.times.empty());

    Table no_header = parse_csv("1,2\n3,4\n", "d.csv");
    CHECK(no_header.header.empty());
    CHECK(no_header.rows == 2);
    CHECK(no_header.at(0, 0) == 1.0f);

    // One text field is enough to make the line a header.
    Table mixed = parse_csv("1,x\n3,4\n", "d.csv");
    CHECK(mixed.header == std::vector<std::string>{"1", "x"});
    CHECK(mixed.rows == 1);
}

TEST_CASE("csv: number forms, spaces, CRLF, BOM") {
    Table t = parse_csv("\xEF\xBB\xBF a , b \r\n 1e-3 ,\t-0.5\r\n+2,.25\r\n1.,-0\r\n", "d.csv");
    CHECK(t.header == std::vector<std::string>{"a", "b"});
    REQUIRE(t.rows == 3);
    CHECK(t.at(0, 0) == 1e-3f);
    CHECK(t.at(0, 1) == -0.5f);
    CHECK(t.at(1, 0) == 2.0f);
    CHECK(t.at(1, 1) == 0.25f);
    CHECK(t.at(2, 0) == 1.0f);
    CHECK(std::signbit(t.at(2, 1)));
    CHECK(parse_csv("3.4028235e38\n", "d.csv").at(0, 0) == std::numeric_limits<float>::max());
}

TEST_CASE("csv: last line without newline and trailing blank lines") {
    CHECK(parse_csv("1,2\n3,4", "d.csv").rows == 2);
    CHECK(parse_csv("1,2\n3,4\n\n\r\n  \n", "d.csv").rows == 2);
    CHECK(parse_csv("x\n5\n", "d.csv").cols == 1);
}

TEST_CASE("csv: quoted header fields") {
    Table t = parse_csv("\"a,b\", \"say \"\"hi\"\"\" ,\"1\",plain\n1,2,3,4\n", "d.csv");
    CHECK(t.header == std::vector<std::string>{"a,b", "say \"hi\"", "1", "plain"});
    CHECK(t.cols == 4);
    CHECK(csv_error("\"a,b\nx\n") == "d.csv:1: column 1: unterminated quote");
    CHECK(csv_error("a,\"b\"c\n1,2\n") == "d.csv:1: column 2: text after the closing quote");
    // Quoted data fields are data (RFC 4180): spreadsheets quote numbers too.
    CHECK(parse_csv("a,b\n\"1\",2\n", "d.csv").at(0, 0) == 1.0f);
    CHECK(csv_error("a,b\n\"x\",2\n") == "d.csv:2: column 1: 'x' is not a number");
}

TEST_CASE("csv: errors name the line") {
    CHECK(csv_error("") == "d.csv: no data rows (the file is empty)");
    CHECK(csv_error("\n\n") == "d.csv: no data rows (the file is empty)");
    CHECK(csv_error("a,b\n") == "d.csv: no data rows after the header");
    CHECK(csv_error("a,b\n1,2\n3\n") == "d.csv:3: expected 2 columns, found 1");
    CHECK(csv_error("1,2\n3,4,5\n") == "d.csv:2: expected 2 columns, found 3");
    CHECK(csv_error("a,b\n1,2\n\n3,4\n") == "d.csv:3: blank line before the end of the data");
    CHECK(csv_error("a,b\r\n1,2\r\n \r\n3,4\r\n") == "d.csv:3: blank line before the end of the data");
    CHECK(csv_error("\n1,2\n") == "d.csv:1: blank line before the end of the data");
    CHECK(csv_error("a,b\n1,\n") == "d.csv:2: column 2: empty field (--fill previous or --fill linear fills gaps)");
    CHECK(csv_error("a,b\n1, \n") == "d.csv:2: column 2: empty field (--fill previous or --fill linear fills gaps)");
    CHECK(csv_error("1,,2\n") == "d.csv:1: column 2: empty field (--fill previous or --fill linear fills gaps)");
    CHECK(csv_error("a,b\n1,abc\n") == "d.csv:2: column 2: 'abc' is not a number");
    CHECK(csv_error("a\n1\n2\n3x\n") == "d.csv:4: column 1: '3x' is not a number");
    CHECK(csv_error("a\n1 2\n") == "d.csv:2: column 1: '1 2' is not a number");
    CHECK(csv_error("a\n0x10\n") == "d.csv:2: column 1: '0x10' is not a number");
    CHECK(csv_error("a\n+-1\n") == "d.csv:2: column 1: '+-1' is not a number");
    CHECK(csv_error("a\n++1\n") == "d.csv:2: column 1: '++1' is not a number");
    CHECK(csv_error("a\n+\n") == "d.csv:2: column 1: '+' is not a number");
    CHECK(csv_error("a\n1,5\n") == "d.csv:2: expected 1 column, found 2");
    CHECK(csv_error("a\n1\r5\n") == "d.csv:2: column 1: '1?5' is not a number");
    CHECK(csv_error("a,b\n1,nan\n") == "d.csv:2: column 2: NaN and infinity are not allowed");
    CHECK(csv_error("a,b\n1,-inf\n") == "d.csv:2: column 2: NaN and infinity are not allowed");
    CHECK(csv_error("a,b\n1,Infinity\n") == "d.csv:2: column 2: NaN and infinity are not allowed");
    CHECK(csv_error("a,b\n1,1e39\n") == "d.csv:2: column 2: '1e39' is out of float range");
    CHECK(csv_error("a,b\n1,-1e39\n") == "d.csv:2: column 2: '-1e39' is out of float range");
    CHECK(csv_error("a,b\n1,1e-50\n") == "d.csv:2: column 2: '1e-50' is out of float range");
    CHECK(csv_error(",a,b\n0,1,2\n") == "d.csv:1: column 1 has no name in the header");
    CHECK(csv_error("a,\"\"\n1,2\n") == "d.csv:1: column 2 has no name in the header");
    CHECK(csv_error("a\n" + std::string(100, 'z') + "\n") ==
          "d.csv:2: column 1: '" + std::string(32, 'z') + "...' is not a number");
}

TEST_CASE("csv: a first line of NaN or out-of-range values is data, not a header") {
    CHECK(csv_error("nan,1\n2,3\n") == "d.csv:1: column 1: NaN and infinity are not allowed");
    CHECK(csv_error("1e39,1\n2,3\n") == "d.csv:1: column 1: '1e39' is out of float range");
}

TEST_CASE("csv: format uses %.9g") {
    Table t = make_table({"a", "b"}, 2, 2, {0.1f, -2.0f, 1e-7f, 123456789.0f});
    CHECK(format_csv(t) == "a,b\n0.100000001,-2\n1.00000001e-07,123456792\n");
    Table plain = make_table({}, 1, 3, {1.5f, 0.0f, -0.0f});
    CHECK(format_csv(plain) == "1.5,0,-0\n");
}

TEST_CASE("csv: header names that would not read back are quoted") {
    Table t = make_table({"a,b", "q\"x", " pad", "42", "nan", "ok"}, 1, 6, {1, 2, 3, 4, 5, 6});
    std::string text = format_csv(t);
    CHECK(text.substr(0, text.find('\n')) == "\"a,b\",\"q\"\"x\",\" pad\",\"42\",\"nan\",ok");
    CHECK(parse_csv(text, "d.csv").header == t.header);
    // All-numeric names must still come back as a header.
    Table numeric = make_table({"1", "2"}, 1, 2, {3, 4});
    Table back = parse_csv(format_csv(numeric), "d.csv");
    CHECK(back.header == numeric.header);
    CHECK(back.rows == 1);
}

TEST_CASE("csv: round trip is exact for every float") {
    std::mt19937 rng(1234);
    std::uniform_int_distribution<uint32_t> bits;
    std::vector<float> values;
    while (values.size() < 3000) {
        uint32_t b = bits(rng);
        float f;
        std::memcpy(&f, &b, sizeof f);
        if (std::isfinite(f)) values.push_back(f);
    }
    values.insert(values.end(), {std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest(),
                                 std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(),
                                 0.0f, -0.0f, 1.0f / 3.0f});
    values.resize(3000);  // keep rows * cols exact
    Table t = make_table({"x", "y", "z"}, 1000, 3, values);
    Table back = parse_csv(format_csv(t), "d.csv");
    CHECK(back.header == t.header);
    REQUIRE(back.rows == t.rows);
    REQUIRE(back.cols == t.cols);
    for (size_t i = 0; i < values.size(); ++i) {
        uint32_t a, b;
        std::memcpy(&a, &values[i], 4);
        std::memcpy(&b, &back.values[i], 4);
        CHECK_MESSAGE(a == b, "value " << i);
    }
}

TEST_CASE("csv: format refuses tables that would not read back") {
    CHECK(format_error(make_table({}, 0, 2, {})) == "cannot write CSV: the table is empty");
    CHECK(format_error(make_table({}, 2, 2, {1, 2, 3})) ==
          "cannot write CSV: 3 values do not fill 2 rows of 2 columns");
    CHECK(format_error(make_table({"a"}, 1, 2, {1, 2})) == "cannot write CSV: header has 1 name for 2 columns");
    CHECK(format_error(make_table({"a", ""}, 1, 2, {1, 2})) == "cannot write CSV: column 2 has no name");
    CHECK(format_error(make_table({"a\nb"}, 1, 1, {1})) ==
          "cannot write CSV: name of column 1 contains a line break");
    CHECK(format_error(make_table({}, 2, 2, {1, 2, 3, std::nanf("")})) ==
          "cannot write CSV: row 2, column 2 is NaN or infinite");
    CHECK(format_error(make_table({}, 1, 1, {std::numeric_limits<float>::infinity()})) ==
          "cannot write CSV: row 1, column 1 is NaN or infinite");
}

TEST_CASE("csv: files") {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / "auspex_test_csv";
    fs::create_directories(dir);
    std::string path = (dir / "series.csv").string();
    Table t = make_table({"load", "temp"}, 3, 2, {1.25f, 20.0f, 1.5f, 21.0f, 1.75f, 22.5f});
    ax::tools::write_csv(path, t);
    Table back = ax::tools::read_csv(path);
    CHECK(back.header == t.header);
    CHECK(back.values == t.values);

    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fputs("a,b\n1,2\n3\n", f);
    std::fclose(f);
    try {
        ax::tools::read_csv(path);
        FAIL("expected an error");
    } catch (const ToolError& e) {
        CHECK(std::string(e.what()) == path + ":3: expected 2 columns, found 1");
    }

    std::string missing = (dir / "missing.csv").string();
    try {
        ax::tools::read_csv(missing);
        FAIL("expected an error");
    } catch (const ToolError& e) {
        CHECK(std::string(e.what()) == "cannot open '" + missing + "': No such file or directory");
    }
    try {
        ax::tools::read_csv(dir.string());
        FAIL("expected an error");
    } catch (const ToolError& e) {
        CHECK(std::string(e.what()) == "cannot read '" + dir.string() + "': Is a directory");
    }
    std::string unwritable = (dir / "no_such_dir" / "out.csv").string();
    try {
        ax::tools::write_csv(unwritable, t);
        FAIL("expected an error");
    } catch (const ToolError& e) {
        CHECK(std::string(e.what()) == "cannot write '" + unwritable + "': No such file or directory");
    }
    fs::remove_all(dir);
}
