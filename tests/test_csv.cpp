#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <random>
#include <string>

#include "tools/text/csv.h"
#include "tools/text/csv_time.h"
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
    CHECK(csv_error("a\n1,5\n") ==
          "d.csv:2: expected 1 column, found 2 ('1,5' may be one number with a decimal comma: --delimiter ';' reads "
          "it as 1.5)");
    CHECK(csv_error("t,a\n1,-21,5\n") ==
          "d.csv:2: expected 2 columns, found 3 ('-21,5' may be one number with a decimal comma: --delimiter ';' "
          "reads it as -21.5)");
    CHECK(csv_error("a\n\"21,5\"\n") ==
          "d.csv:2: column 1: '21,5' is not a number (a decimal comma: --delimiter ';' or tab reads it as a number)");
    CHECK(csv_error("a\n1\r5\n") == "d.csv:2: column 1: '1?5' is not a number");
    CHECK(csv_error("a,b\n1,nan\n") ==
          "d.csv:2: column 2: 'nan' marks a missing value (--fill previous or --fill linear fills gaps)");
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
    CHECK(csv_error("nan,1\n2,3\n") ==
          "d.csv:1: column 1: 'nan' marks a missing value (--fill previous or --fill linear fills gaps)");
    CHECK(csv_error("NA,1\n2,3\n").find("'NA' marks a missing value") != std::string::npos);
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
                                 std::numeric_limits<float>::min(), std::numeric_limits<float>::denorm_min(), 0.0f,
                                 -0.0f, 1.0f / 3.0f});
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
    CHECK(format_error(make_table({"a\nb"}, 1, 1, {1})) == "cannot write CSV: name of column 1 contains a line break");
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

// --- files as sensors and spreadsheets write them -------------------------------------------------------

using ax::tools::CsvOptions;
using ax::tools::Fill;
using ax::tools::next_times;

namespace {

std::string csv_error_with(const std::string& text, const CsvOptions& o) {
    try {
        parse_csv(text, "d.csv", o);
    } catch (const ToolError& e) {
        return e.what();
    }
    return "";
}

std::vector<std::string> next(const std::vector<std::string>& times, size_t n) {
    const ax::tools::NextTimes r = next_times(times, n, false);
    CHECK_MESSAGE(r.regular, r.why);
    return r.times;
}

}  // namespace

TEST_CASE("csv: a sensor log with ISO timestamps, ';' separators and decimal commas") {
    const std::string log =
        "Zeitstempel;Temperatur;Feuchte\r\n"
        "2024-01-31T12:00:00;21,5;40,25\r\n"
        "2024-01-31T12:10:00;-1,75;41\r\n"
        "2024-01-31T12:20:00;22;1e3\r\n";
    Table t = parse_csv(log, "d.csv");
    CHECK(t.delimiter == ';');
    CHECK(t.decimal_comma);
    CHECK(t.time_name == "Zeitstempel");
    CHECK(t.times == std::vector<std::string>{"2024-01-31T12:00:00", "2024-01-31T12:10:00", "2024-01-31T12:20:00"});
    CHECK(t.header == std::vector<std::string>{"Temperatur", "Feuchte"});
    REQUIRE(t.rows == 3);
    CHECK(t.at(0, 0) == 21.5f);
    CHECK(t.at(0, 1) == 40.25f);
    CHECK(t.at(1, 0) == -1.75f);
    CHECK(t.at(2, 1) == 1000.0f);
    // Written back the way it came: the time column first, ';', decimal commas and CRLF line ends.
    CHECK(t.crlf);
    CHECK(format_csv(t) ==
          "Zeitstempel;Temperatur;Feuchte\r\n2024-01-31T12:00:00;21,5;40,25\r\n"
          "2024-01-31T12:10:00;-1,75;41\r\n2024-01-31T12:20:00;22;1000\r\n");
    CHECK(next(t.times, 2) == std::vector<std::string>{"2024-01-31T12:30:00", "2024-01-31T12:40:00"});
    // Without a header the timestamps are still recognised, and a tab separates as well.
    Table tabs = parse_csv("2024-01-31 12:00\t1.5\n2024-01-31 13:00\t2.5\n", "d.csv");
    CHECK(tabs.delimiter == '\t');
    CHECK(tabs.header.empty());
    CHECK(tabs.times == std::vector<std::string>{"2024-01-31 12:00", "2024-01-31 13:00"});
    CHECK(tabs.cols == 1);
    CHECK(next(tabs.times, 1) == std::vector<std::string>{"2024-01-31 14:00"});
    // A single column with decimal commas has no ';' to detect it by: --delimiter says so.
    CsvOptions semicolon;
    semicolon.delimiter = ';';
    CHECK(parse_csv("x\n1,5\n", "d.csv", semicolon).at(0, 0) == 1.5f);
    CHECK(csv_error("a;b\n1,2.5;3\n") == "d.csv:2: column 1: '1,2.5' is not a number");
    CHECK(csv_error("a;b\n1,2,5;3\n") == "d.csv:2: column 1: '1,2,5' is not a number");
}

TEST_CASE("csv: a spreadsheet export with quoted headers and fields") {
    const std::string exported =
        "\xEF\xBB\xBF\"Date\",\"Sales, units\",\"Say \"\"hi\"\"\",\"Note\"\r\n"
        "\"2024-01-01\",\"12.5\",\"3\",\"closed, holiday\"\r\n"
        "\"2024-01-02\",13,\"4\",\"two\r\nlines\"\r\n";
    CsvOptions o;
    o.columns = {"Say \"hi\"", "Sales, units"};
    Table t = parse_csv(exported, "d.csv", o);
    CHECK(t.time_name == "Date");
    CHECK(t.times == std::vector<std::string>{"2024-01-01", "2024-01-02"});
    CHECK(t.header == std::vector<std::string>{"Say \"hi\"", "Sales, units"});
    CHECK(t.values == std::vector<float>{3, 12.5f, 4, 13});
    CHECK(t.ignored == std::vector<std::string>{"Note"});
    const std::string written = format_csv(t);
    CHECK(written.substr(0, written.find('\n')) == "Date,\"Say \"\"hi\"\"\",\"Sales, units\"\r");
    Table back = parse_csv(written, "d.csv");
    CHECK(back.header == t.header);
    CHECK(back.times == t.times);
    CHECK(back.values == t.values);
    // The text column makes every column a must only when asked for.
    CHECK(csv_error(exported) == "d.csv:2: column 4: 'closed, holiday' is not a number");
}

TEST_CASE("csv: --columns picks by name or number; missing ones list the columns found") {
    const std::string text = "time,temperature,humidity,pressure\n0,20,40,1000\n1,21,41,1001\n";
    CsvOptions o;
    o.columns = {"humidity", "temperature"};
    Table t = parse_csv(text, "d.csv", o);
    CHECK(t.times == std::vector<std::string>{"0", "1"});
    CHECK(t.header == std::vector<std::string>{"humidity", "temperature"});
    CHECK(t.values == std::vector<float>{40, 20, 41, 21});
    o.columns = {"humidty"};
    CHECK(csv_error_with(text, o) == "d.csv has no column 'humidty'; columns found: temperature, humidity, pressure");
    o.columns = {"humidity", "humidity"};
    CHECK(csv_error_with(text, o) == "d.csv: column 'humidity' is asked for twice");
    o.columns = {"2"};
    CHECK(parse_csv("1,2,3\n4,5,6\n", "d.csv", o).values == std::vector<float>{2, 5});
    o.columns = {"x"};
    CHECK(csv_error_with("1,2,3\n4,5,6\n", o) ==
          "d.csv has no header line to find column 'x' by name (give column "
          "numbers 1..3)");
    // A column asked for by its time-like name is a feature, not the time column.
    o.columns = {"time", "pressure"};
    Table with_time = parse_csv(text, "d.csv", o);
    CHECK(with_time.times.empty());
    CHECK(with_time.values == std::vector<float>{0, 1000, 1, 1001});
}

TEST_CASE("csv: the model's feature names pick columns by header name") {
    CsvOptions o;
    o.features = {"co2", "temp"};
    Table t = parse_csv("date,station,temp,co2\n1998-01-15,7,10.5,365.1\n1998-02-15,7,11,366.2\n", "d.csv", o);
    CHECK(t.header == std::vector<std::string>{"co2", "temp"});
    CHECK(t.values == std::vector<float>{365.1f, 10.5f, 366.2f, 11});
    CHECK(t.ignored == std::vector<std::string>{"station"});
    CHECK(csv_error_with("date,temp\n1998-01-15,1\n", o) ==
          "d.csv has no column 'co2' (a feature the model was trained on: co2, temp); columns found: temp");
    // Without a header the columns are taken in order, as before.
    CHECK(parse_csv("1,2\n3,4\n", "d.csv", o).values == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("csv: timestamps extrapolate when evenly spaced") {
    // Monthly on calendar months, on a day of the month or each month's last day; YYYY-MM months; years.
    CHECK(next({"1998-01-15", "1998-02-15", "1998-03-15"}, 3) ==
          std::vector<std::string>{"1998-04-15", "1998-05-15", "1998-06-15"});
    CHECK(next({"2023-12-31", "2024-01-31", "2024-02-29", "2024-03-31"}, 2) ==
          std::vector<std::string>{"2024-04-30", "2024-05-31"});
    CHECK(next({"2024-10-30", "2024-11-30", "2024-12-30"}, 2) == std::vector<std::string>{"2025-01-30", "2025-02-28"});
    CHECK(next({"2024-11", "2024-12"}, 2) == std::vector<std::string>{"2025-01", "2025-02"});
    CHECK(next({"2020-02-29T06:00", "2021-02-28T06:00"}, 1).size() == 1);  // irregular days, still a fixed gap
    CHECK(next({"2019-03-01", "2020-03-01", "2021-03-01"}, 1) == std::vector<std::string>{"2022-03-01"});
    // Fixed durations across month, year and leap day; zones and fractions kept as written.
    CHECK(next({"2024-02-28", "2024-02-29"}, 2) == std::vector<std::string>{"2024-03-01", "2024-03-02"});
    CHECK(next({"2023-12-31 22:00", "2023-12-31 23:00"}, 2) ==
          std::vector<std::string>{"2024-01-01 00:00", "2024-01-01 01:00"});
    CHECK(next({"2024-01-01T00:00:00Z", "2024-01-01T06:00:00Z"}, 1) ==
          std::vector<std::string>{"2024-01-01T12:00:00Z"});
    CHECK(next({"2024-01-01T00:00:00.250+01:00", "2024-01-01T00:00:00.500+01:00"}, 1) ==
          std::vector<std::string>{"2024-01-01T00:00:00.750+01:00"});
    CHECK(next({"2024-01-01", "2024-01-08"}, 1) == std::vector<std::string>{"2024-01-15"});
    CHECK(next({"1969-12-31", "1970-01-01"}, 1) == std::vector<std::string>{"1970-01-02"});
    // Plain numbers, to within their last written digit.
    CHECK(next({"0", "10", "20"}, 2) == std::vector<std::string>{"30", "40"});
    CHECK(next({"1998.042", "1998.125", "1998.208", "1998.292"}, 1) == std::vector<std::string>{"1998.375"});
    CHECK(next_times({"0,5", "1"}, 1, true).times == std::vector<std::string>{"1,5"});
}

TEST_CASE("csv: irregular timestamps say where") {
    const ax::tools::NextTimes gap = next_times({"2024-01-01", "2024-01-02", "2024-01-04"}, 2, false);
    CHECK_FALSE(gap.regular);
    CHECK(gap.why == "'2024-01-02' to '2024-01-04' is 2 days, '2024-01-01' to '2024-01-02' 1 day");
    CHECK_FALSE(next_times({"1", "2", "4"}, 1, false).regular);
    CHECK_FALSE(next_times({"3", "2", "1"}, 1, false).regular);
    CHECK_FALSE(next_times({"2024-01-01"}, 1, false).regular);
    CHECK(next_times({"1998-01-15", "1998-02-16"}, 1, false).regular);  // two points: a fixed gap
    CHECK_FALSE(next_times({"1998-01-15", "1998-02-15", "1998-03-16"}, 1, false).regular);
}

TEST_CASE("csv: empty cells are an error naming line and column, or filled when asked") {
    const std::string gaps = "t,a,b\n0,1,10\n1,,\n2,3,\n3,4,16\n";
    CHECK(csv_error(gaps) == "d.csv:3: column 2: empty field (--fill previous or --fill linear fills gaps)");
    CsvOptions o;
    o.fill = Fill::previous;
    Table prev = parse_csv(gaps, "d.csv", o);
    CHECK(prev.values == std::vector<float>{1, 10, 1, 10, 3, 10, 4, 16});
    CHECK(prev.filled == 3);
    o.fill = Fill::linear;
    Table lin = parse_csv(gaps, "d.csv", o);
    CHECK(lin.values == std::vector<float>{1, 10, 2, 12, 3, 14, 4, 16});
    CHECK(csv_error_with("a,b\n,1\n2,3\n", o) ==
          "d.csv:2: column 1: missing value in the first row: no value above it to fill from");
    CHECK(csv_error_with("a,b\n1,1\n2,\n", o) ==
          "d.csv:3: column 2: missing value at the end: no value below it to "
          "interpolate to (--fill previous repeats the last value)");
    o.fill = Fill::previous;
    CHECK(parse_csv("a,b\n1,1\n2,\n", "d.csv", o).values == std::vector<float>{1, 1, 2, 1});
    // A timestamp is never filled.
    CHECK(csv_error_with("2024-01-01,1\n,2\n", o) == "d.csv:2: column 1: empty timestamp");
}

TEST_CASE("csv: NA, NaN, null and N/A cells are missing values, filled like empty cells") {
    const std::string gaps = "t,a,b\n0,1,10\n1,NA,n/a\n2,3,NULL\n3,NaN,16\n4,5,#N/A\n5,6,None\n6,7,20\n";
    CHECK(csv_error(gaps) ==
          "d.csv:3: column 2: 'NA' marks a missing value (--fill previous or --fill linear fills gaps)");
    CsvOptions o;
    o.fill = Fill::previous;
    const Table prev = parse_csv(gaps, "d.csv", o);
    CHECK(prev.values == std::vector<float>{1, 10, 1, 10, 3, 10, 3, 16, 5, 16, 6, 16, 7, 20});
    CHECK(prev.filled == 6);
    o.fill = Fill::linear;
    CHECK(csv_error_with("a,b\n1,1\n2,null\n", o) ==
          "d.csv:3: column 2: missing value at the end: no value below it to "
          "interpolate to (--fill previous repeats the last value)");
    // Infinity is not a missing value; a column named NA in a header is still a header.
    CHECK(csv_error_with("a\n1\ninf\n", o) == "d.csv:3: column 1: NaN and infinity are not allowed");
    CHECK(parse_csv("NA,x\n1,2\n", "d.csv").header == std::vector<std::string>{"NA", "x"});
}

TEST_CASE("csv: dates as loggers and spreadsheets write them, day or month first") {
    using ax::tools::DateOrder;
    // A day over 12 tells day first; the next timestamps keep the column's style.
    const Table eu = parse_csv("Datum,x\n30/01/2024 22:00,1\n30/01/2024 23:00,2\n31/01/2024 00:00,3\n", "d.csv");
    CHECK(eu.time_name == "Datum");
    CHECK(eu.date_order == DateOrder::day_first);
    CHECK(next_times(eu.times, 2, false, eu.date_order).times ==
          std::vector<std::string>{"31/01/2024 01:00", "31/01/2024 02:00"});
    // Month first, one-digit fields as US spreadsheets write them, across a month end.
    const Table us = parse_csv("date,x\n2/27/2024,1\n2/28/2024,2\n2/29/2024,3\n", "d.csv");
    CHECK(us.date_order == DateOrder::month_first);
    CHECK(next_times(us.times, 2, false, us.date_order).times == std::vector<std::string>{"3/1/2024", "3/2/2024"});
    // Dotted dates are day first; year-first slashes are unambiguous.
    CHECK(next_times({"31.12.2023 23:30", "01.01.2024 00:00"}, 1, false).times ==
          std::vector<std::string>{"01.01.2024 00:30"});
    CHECK(next_times({"2024/01/30", "2024/01/31"}, 1, false).times == std::vector<std::string>{"2024/02/01"});
    // No value over 12: the order must be said, and a stated order is kept.
    const std::string open = "date,x\n01/02/2024,1\n02/02/2024,2\n03/02/2024,3\n";
    CHECK(csv_error(open) ==
          "d.csv: '01/02/2024' reads day first or month first, and no date tells which: say which with "
          "--time-format dd/mm/yyyy or --time-format mm/dd/yyyy");
    CsvOptions o;
    o.date_order = DateOrder::day_first;
    const Table day = parse_csv(open, "d.csv", o);
    CHECK(next_times(day.times, 1, false, day.date_order).times == std::vector<std::string>{"04/02/2024"});
    o.date_order = DateOrder::month_first;
    const Table month = parse_csv(open, "d.csv", o);
    CHECK(next_times(month.times, 1, false, month.date_order).times == std::vector<std::string>{"04/02/2024"});
    CHECK(csv_error_with("date,x\n13/01/2024,1\n14/01/2024,2\n", o) ==
          "d.csv: '13/01/2024' is not a date with the month first (--time-format mm/dd/yyyy)");
    CHECK(csv_error("date,x\n13/01/2024,1\n01/14/2024,2\n") ==
          "d.csv: '13/01/2024' has the day first and '01/14/2024' the month first: the dates mix both orders");
    CHECK(csv_error("date,x\n13/01/2024,1\n31/02/2024,2\n")
              .find("d.csv:3: column 1: '31/02/2024' is not a timestamp like the rows above") == 0);
}

TEST_CASE("csv: malformed time columns and quotes are refused with line and column") {
    CHECK(csv_error("date,x\n2024-01-01,1\n2024-13-01,2\n") ==
          "d.csv:3: column 1: '2024-13-01' is not a timestamp like the rows above (YYYY-MM-DD, "
          "YYYY-MM-DDTHH:MM[:SS], YYYY-MM, DD/MM/YYYY or MM/DD/YYYY [HH:MM[:SS]], DD.MM.YYYY)");
    CHECK(csv_error("date,x\n2024-02-30,1\n") ==
          "d.csv:2: column 1: '2024-02-30' is not a time: a number, or a date like YYYY-MM-DD[THH:MM[:SS]]");
    CHECK(csv_error("2024-01-01,1\n2024-01-02 25:00,2\n").find("d.csv:2: column 1:") == 0);
    CHECK(csv_error("time,x\n0,1\nsoon,2\n") ==
          "d.csv:3: column 1: 'soon' is not a time: a number, or a date like YYYY-MM-DD[THH:MM[:SS]]");
    CHECK(csv_error("a,b\n1,\"2\n") == "d.csv:2: column 2: unterminated quote");
    CHECK(csv_error("a;b\n1;\"2\"x\n") == "d.csv:2: column 2: text after the closing quote");
    CHECK(csv_error("date\n2024-01-01\n") == "d.csv:2: column 1: '2024-01-01' is not a number");
    CHECK(csv_error("date,x\n2024-01-01,1\n2024-01-02\n") == "d.csv:3: expected 2 columns, found 1");
}

TEST_CASE("csv: last_rows reads the end of a file only, and the rows above a gap it fills from") {
    const std::string log = "t,x\n0,1\n1,bad\n2,3\n3,NA\n4,5\n";
    CsvOptions o;
    o.last_rows = 3;
    CHECK(csv_error_with(log, o) ==
          "d.csv:5: column 2: 'NA' marks a missing value (--fill previous or --fill linear fills gaps)");
    o.fill = Fill::previous;
    const Table three = parse_csv(log, "d.csv", o);
    CHECK(three.values == std::vector<float>{3, 3, 5});
    CHECK(three.times == std::vector<std::string>{"2", "3", "4"});
    o.last_rows = 2;  // the gap heads the rows kept: the row above it is read to fill from
    CHECK(parse_csv(log, "d.csv", o).values == std::vector<float>{3, 3, 5});
    o.last_rows = 4;
    CHECK(csv_error_with(log, o) == "d.csv:3: column 2: 'bad' is not a number");
}

TEST_CASE("csv: keep_last_rows keeps the matching timestamps") {
    Table t = parse_csv("date,x\n2024-01-01,1\n2024-01-02,2\n2024-01-03,3\n", "d.csv");
    ax::tools::keep_last_rows(t, 2);
    CHECK(t.rows == 2);
    CHECK(t.values == std::vector<float>{2, 3});
    CHECK(t.times == std::vector<std::string>{"2024-01-02", "2024-01-03"});
}

TEST_CASE("csv: missing_as_nan reads missing cells as NaN; without it they are refused; fill takes precedence") {
    const std::string text = "t,v\n2024-01-01,1\n2024-01-02,\n2024-01-03,NA\n2024-01-04,4\n";
    ax::tools::CsvOptions o;
    o.missing_as_nan = true;
    const ax::tools::Table t = ax::tools::parse_csv(text, "gaps.csv", o);
    REQUIRE(t.rows == 4);
    CHECK(t.values[0] == 1.0f);
    CHECK(std::isnan(t.values[1]));
    CHECK(std::isnan(t.values[2]));
    CHECK(t.values[3] == 4.0f);
    CHECK_THROWS_AS(ax::tools::parse_csv(text, "gaps.csv"), ax::tools::ToolError);
    o.fill = ax::tools::Fill::linear;
    const ax::tools::Table filled = ax::tools::parse_csv(text, "gaps.csv", o);
    CHECK(filled.values[1] == doctest::Approx(2.0f));
}
