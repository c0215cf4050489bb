// What the CLI says about a user's own files is true: columns feed the model's inputs by name, and each
// output row carries the time it predicts. Each case does what a user did, against the PyTorch fixtures.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/text/csv.h"

namespace {

using ax::test::auspex;
using ax::test::check_error;
using ax::test::lines_of;
using ax::test::Result;
using ax::test::scratch_dir;
using ax::test::write_file;

std::string case_file(const std::string& c, const std::string& f) {
    return ax::test::fixture_path("forecaster/" + c + "/" + f);
}

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t comma; (comma = line.find(',', start)) != std::string::npos; start = comma + 1)
        out.push_back(line.substr(start, comma - start));
    out.push_back(line.substr(start));
    return out;
}

// Hour `h` after 2024-03-01 00:00, as a logger writes it.
std::string hour(size_t h) {
    char text[64];
    std::snprintf(text, sizeof text, "2024-03-%02zu %02zu:00", 1 + h / 24, h % 24);
    return text;
}

// norm_global (two features on very different scales: about 300 and -40) converted with feature names.
std::string named_model() {
    const std::string out = (scratch_dir() / "truths_named.axm").string();
    std::ifstream in(case_file("norm_global", "config.json"));
    std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    config.insert(config.find('{') + 1, "\"features\": [\"temperature\", \"pressure\"], ");
    const Result r = auspex("convert " + case_file("norm_global", "model.pt") + " --config " +
                            write_file("truths_named.json", config) + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return out;
}

// Rows [first, first + count) of norm_global's history as an hourly log with the header `names`, the two
// features written in the order `swap` says (false: the model's).
std::string hourly_log(const std::string& name, const std::string& names, bool swap, size_t first = 0,
                       size_t count = 36) {
    const std::vector<std::string> rows = lines_of(case_file("norm_global", "history.csv"));
    std::string text = names + "\n";
    for (size_t i = first; i < first + count; ++i) {
        const std::vector<std::string> v = fields(rows[i]);
        text += hour(i) + "," + (swap ? v[1] + "," + v[0] : v[0] + "," + v[1]) + "\n";
    }
    return write_file(name, text);
}

}  // namespace

TEST_CASE("cli truths: forecast --columns in another order than the model's features feeds them by name") {
    const std::string model = named_model();
    const std::vector<float> want = ax::tools::read_csv(case_file("norm_global", "forecast.csv")).values;
    const std::string log = hourly_log("swapped.csv", "time,pressure,temperature", true);
    const std::string out = (scratch_dir() / "swapped_fc.csv").string();
    for (const std::string columns : {"pressure,temperature", "temperature,pressure"}) {
        const Result r =
            auspex("forecast " + model + " --input " + log + " --columns " + columns + " --horizon 24 -o " + out);
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        const ax::tools::Table fc = ax::tools::read_csv(out);
        CHECK(lines_of(out)[0] == "time,temperature,pressure");
        ax::test::check_close(fc.values, want, 1e-4, "--columns " + columns);
        if (columns[0] == 'p')
            CHECK(r.output.find("read in the model's feature order temperature,pressure") != std::string::npos);
    }
    // A header naming the features otherwise: --columns maps them in the order given, and says so.
    const std::string other = hourly_log("other_names.csv", "time,T (degC),p (mbar)", false);
    const Result mapped = auspex("forecast " + model + " --input " + other + " --columns \"T (degC),p (mbar)\"" +
                                 " --horizon 24 -o " + out);
    REQUIRE_MESSAGE(mapped.exit_code == 0, mapped.output);
    CHECK(mapped.output.find("--columns feeds T (degC) -> temperature, p (mbar) -> pressure") != std::string::npos);
    ax::test::check_close(ax::tools::read_csv(out).values, want, 1e-4, "--columns mapped");
    // A feature name in another feature's place beside a name that is none: refused, naming both.
    const std::string mixed = hourly_log("mixed.csv", "time,pressure,T (degC)", true);
    check_error(auspex("forecast " + model + " --input " + mixed + " --columns \"pressure,T (degC)\""), 2,
                "'pressure' is the model's feature 2 but would feed its input 1 ('temperature')");
}

TEST_CASE("cli truths: run labels each output row with the time it predicts") {
    const std::string model = named_model();
    const std::string src = hourly_log("run_src.csv", "time,temperature,pressure", false);
    // The decoder input is the history's last 16 rows (gen_raw_run_fixtures.py): hours 20..35.
    const std::string tgt = hourly_log("run_tgt.csv", "time,temperature,pressure", false, 20, 16);
    const std::string out = (scratch_dir() / "run_times.csv").string();
    const Result r = auspex("run " + model + " --src " + src + " --tgt " + tgt + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::vector<std::string> written = lines_of(out);
    REQUIRE(written.size() == 17);
    CHECK(written[0] == "time,temperature,pressure");
    // Row i is PyTorch's prediction from decoder input hour 20 + i: the value at hour 21 + i.
    for (size_t i = 0; i < 16; ++i) CHECK(fields(written[i + 1])[0] == hour(21 + i));
    ax::test::check_close(ax::tools::read_csv(out).values,
                          ax::tools::read_csv(case_file("norm_global", "run_raw_out.csv")).values, 1e-4,
                          "run with timestamps");
}

namespace {

// A classifier fixture's config with "positional_encoding" replaced by `pe`.
std::string classifier_config(const std::string& fixture, const std::string& pe) {
    std::ifstream in(ax::test::fixture_path("classifier/" + fixture + "/config.json"));
    std::string config((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t key = config.find("\"positional_encoding\"");
    const size_t value = config.find('"', config.find(':', key) + 1);
    config.replace(value + 1, config.find('"', value + 1) - value - 1, pe);
    return write_file(fixture + "_" + pe + ".json", config);
}

}  // namespace

TEST_CASE("cli truths: a declared positional encoding the classifier's position table contradicts is refused") {
    // A frozen sinusoidal table whose pad row 0 is zero, declared as indexed from 0: refused, naming both.
    const std::string pad0 = ax::test::fixture_path("classifier/pad0_max_sigmoid");
    const std::string out = (scratch_dir() / "truths_cls.axm").string();
    check_error(auspex("convert " + pad0 + "/model.pt --config " + classifier_config("pad0_max_sigmoid", "sinusoidal") +
                       " -o " + out),
                1,
                "the config says \"positional_encoding\": \"sinusoidal\" but the checkpoint holds the sinusoidal "
                "table position_enc.weight whose row 0 is zero");

    // paul-hyun's tables (row 0 holds PE(0), looked up from 1 with pads at 0) declared "sinusoidal": as
    // converted before, its logits were off by 0.55; now refused without a check pair, naming both.
    const std::string dir = ax::test::fixture_path("classifier/paulhyun_map");
    const std::string convert = "convert " + dir + "/model.pt --map " + std::string(AUSPEX_SOURCE_DIR) +
                                "/tools/import/maps/paulhyun_classifier.map" + " -o " + out + " --config ";
    const std::string declared = classifier_config("paulhyun_map", "sinusoidal");
    check_error(auspex(convert + declared), 1,
                "the config says \"positional_encoding\": \"sinusoidal\" but the checkpoint holds "
                "src_pos_embed.weight, a sinusoidal table in an nn.Embedding");
    CHECK(!std::filesystem::exists(out));
    // The check pair is the proof the message asks for: it refuses the wrong reading and passes the right
    // one; --find-config finds it.
    std::ifstream in(dir + "/case.json");
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string tokens;
    for (size_t open = json.find('[', json.find('[') + 1); open != std::string::npos; open = json.find('[', open + 1)) {
        std::string row = json.substr(open + 1, json.find(']', open) - open - 1);
        for (char& ch : row)
            if (ch == ',' || ch == '\n') ch = ' ';
        tokens += row + "\n";
    }
    const std::string pair =
        " --check-input " + write_file("paulhyun_tokens.txt", tokens) + " --check-output " + dir + "/probs.csv";
    check_error(auspex(convert + declared + pair), 1, "does not reproduce PyTorch's output");
    const Result right = auspex(convert + classifier_config("paulhyun_map", "sinusoidal_pad0") + pair);
    CHECK_MESSAGE(right.exit_code == 0, right.output);
    const std::string found = (scratch_dir() / "paulhyun_found.json").string();
    const Result searched = auspex(convert + declared + pair + " --find-config " + found);
    REQUIRE_MESSAGE(searched.exit_code == 0, searched.output);
    CHECK(searched.output.find("positional_encoding sinusoidal_pad0") != std::string::npos);
}

namespace {

// post_relu_tril's history (one feature) as lines "hour h,value" under "time,value", each line ending in
// `eol`, with the values of rows `missing` replaced by the given markers.
std::string single_log(const std::string& name, const std::string& eol = "\n",
                       const std::vector<std::pair<size_t, std::string>>& missing = {}) {
    std::vector<std::string> rows = lines_of(case_file("post_relu_tril", "history.csv"));
    for (const auto& [row, marker] : missing) rows[row] = marker;
    std::string text = "time,value" + eol;
    for (size_t i = 0; i < rows.size(); ++i) text += hour(i) + "," + rows[i] + eol;
    return write_file(name, text);
}

std::vector<float> post_relu_forecast(size_t steps) {
    std::vector<float> v = ax::tools::read_csv(case_file("post_relu_tril", "forecast.csv")).values;
    v.resize(steps);
    return v;
}

}  // namespace

TEST_CASE("cli truths: NA, NaN, null and N/A cells are missing values; --fill fills them") {
    const std::string model = ax::test::converted_fixture("forecaster/post_relu_tril", "post_relu_tril.axm");
    const std::string log = single_log("markers.csv", "\n", {{3, "NA"}, {7, "null"}, {8, "N/A"}, {10, "NaN"}});
    check_error(auspex("forecast " + model + " --input " + log), 1,
                "markers.csv:5: column 2: 'NA' marks a missing value (--fill previous or --fill linear fills gaps)");
    const Result filled = auspex("forecast " + model + " --input " + log + " --fill linear --horizon 4");
    REQUIRE_MESSAGE(filled.exit_code == 0, filled.output);
    CHECK(filled.output.find("filled 4 empty cell") != std::string::npos);
}

TEST_CASE("cli truths: CRLF input gives CRLF output") {
    const std::string model = ax::test::converted_fixture("forecaster/post_relu_tril", "post_relu_tril.axm");
    const std::string out = (scratch_dir() / "crlf_fc.csv").string();
    const Result r =
        auspex("forecast " + model + " --input " + single_log("crlf.csv", "\r\n") + " --horizon 4 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::string text = ax::test::read_file(out);
    CHECK(text.rfind("time,value\r\n" + hour(lines_of(case_file("post_relu_tril", "history.csv")).size()) + ",", 0) ==
          0);
    size_t lf = 0, crlf = 0;
    for (size_t i = 0; i < text.size(); ++i)
        if (text[i] == '\n') ++lf, crlf += i > 0 && text[i - 1] == '\r';
    CHECK(lf == 5);
    CHECK(crlf == 5);
    ax::test::check_close(ax::tools::read_csv(out).values, post_relu_forecast(4), 1e-4, "CRLF forecast");
    // LF input stays LF.
    const Result plain = auspex("forecast " + model + " --input " + single_log("lf.csv") + " --horizon 4 -o " + out);
    REQUIRE_MESSAGE(plain.exit_code == 0, plain.output);
    CHECK(ax::test::read_file(out).find('\r') == std::string::npos);
}

TEST_CASE("cli truths: a column of decimal commas gets a message suggesting --delimiter ';'") {
    const std::string model = ax::test::converted_fixture("forecaster/post_relu_tril", "post_relu_tril.axm");
    std::string text = "value\n";
    for (std::string row : lines_of(case_file("post_relu_tril", "history.csv"))) {
        std::replace(row.begin(), row.end(), '.', ',');
        text += row + "\n";
    }
    const std::string log = write_file("decimal_commas.csv", text);
    check_error(auspex("forecast " + model + " --input " + log), 1,
                "decimal_commas.csv:2: expected 1 column, found 2 ('-0,35223794' may be one number with a decimal "
                "comma: --delimiter ';' reads it as -0.35223794)");
    const std::string out = (scratch_dir() / "decimal_commas_fc.csv").string();
    const Result r = auspex("forecast " + model + " --input " + log + " --delimiter ';' --horizon 4 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    // Written as read: one column of decimal commas (which a reader takes with --delimiter ';' again).
    ax::tools::CsvOptions semicolon;
    semicolon.delimiter = ';';
    const ax::tools::Table fc = ax::tools::read_csv(out, semicolon);
    CHECK(fc.decimal_comma);
    ax::test::check_close(fc.values, post_relu_forecast(4), 1e-4, "decimal-comma forecast");
}

TEST_CASE("cli truths: --truth with timestamps is aligned on them, and refused when they miss the forecast") {
    const std::string model = ax::test::converted_fixture("forecaster/post_relu_tril", "post_relu_tril.axm");
    const std::string log = single_log("truth_history.csv");
    const size_t n = lines_of(case_file("post_relu_tril", "history.csv")).size();
    const std::vector<float> fc = post_relu_forecast(24);
    // A truth log 10 hours late: its rows are PyTorch's forecast for steps 11..24 (at their hours), then
    // hours past the horizon. Aligned by time, the forecast equals the truth where they overlap.
    std::string text = "time,value\n";
    for (size_t step = 11; step <= 34; ++step) {
        char value[32];
        std::snprintf(value, sizeof value, "%.9g", step <= 24 ? fc[step - 1] : 999.0f);
        text += hour(n - 1 + step) + "," + value + "\n";
    }
    const std::string out = (scratch_dir() / "truth_fc.csv").string();
    const Result r = auspex("forecast " + model + " --input " + log + " --horizon 24 -o " + out + " --truth " +
                            write_file("late_truth.csv", text));
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(r.output.find("late_truth.csv holds 14 of the forecast's 24 steps; comparing those") != std::string::npos);
    CHECK(r.output.find("MAE 0.0000, RMSE 0.0000") != std::string::npos);
    CHECK(r.output.find("over 14 steps") != std::string::npos);
    CHECK(r.output.find("\n  11 ") != std::string::npos);
    CHECK(r.output.find("\n  1 ") == std::string::npos);

    // A truth log that ends before the forecast starts: refused, naming both spans, nothing written.
    std::string early = "time,value\n";
    for (size_t h = 0; h < 5; ++h) early += hour(h) + ",1\n";
    const std::string early_out = (scratch_dir() / "early_fc.csv").string();
    check_error(auspex("forecast " + model + " --input " + log + " --horizon 24 -o " + early_out + " --truth " +
                       write_file("early_truth.csv", early)),
                1,
                "early_truth.csv's timestamps (" + hour(0) + " .. " + hour(4) + ") do not overlap the forecast's (" +
                    hour(n) + " .. " + hour(n + 23) + ")");
    CHECK(!std::filesystem::exists(early_out));
}

TEST_CASE("cli truths: rows above the window the forecast reads are not validated") {
    // window48 forecasts from the last 48 of its 80 rows (its training window); a logger's glitches in the
    // first rows do not stop it, and do not change it.
    const std::string model = ax::test::converted_fixture("forecaster/window48", "window48.axm");
    std::vector<std::string> rows = lines_of(case_file("window48", "history.csv"));
    REQUIRE(rows.size() == 80);
    rows[2] = "sensor reset";
    rows[5] = "NA";
    rows[20] = "1,2";
    std::string text = "value\n";
    for (const std::string& row : rows) text += row + "\n";
    const std::string log = write_file("glitches.csv", text);
    const std::string out = (scratch_dir() / "glitches_fc.csv").string();
    const Result r = auspex("forecast " + model + " --input " + log + " --horizon 24 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    ax::test::check_close(ax::tools::read_csv(out).values,
                          ax::tools::read_csv(case_file("window48", "forecast.csv")).values, 1e-4, "glitches above");
    // A window that reaches a bad row reads it, and says where.
    check_error(auspex("forecast " + model + " --input " + log + " --window 64 --horizon 4"), 1,
                "glitches.csv:22: expected 1 column, found 2");
}

TEST_CASE("cli truths: dd/mm/yyyy and mm/dd/yyyy timestamps, with --time-format for ambiguous ones") {
    const std::string model = ax::test::converted_fixture("forecaster/post_relu_tril", "post_relu_tril.axm");
    const std::vector<std::string> rows = lines_of(case_file("post_relu_tril", "history.csv"));
    const std::string out = (scratch_dir() / "local_dates_fc.csv").string();
    // A daily log from 20 January, day first: the 20 tells the order.
    std::string daily = "Datum;Wert\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        const size_t day = 20 + i;  // days of January, then February
        char date[32];
        std::snprintf(date, sizeof date, "%02zu/%02d/2024", day <= 31 ? day : day - 31, day <= 31 ? 1 : 2);
        std::string value = rows[i];
        std::replace(value.begin(), value.end(), '.', ',');
        daily += std::string(date) + ";" + value + "\n";
    }
    const Result r =
        auspex("forecast " + model + " --input " + write_file("daily_eu.csv", daily) + " --horizon 4 -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::vector<std::string> written = lines_of(out);
    REQUIRE(written.size() == 5);
    CHECK(written[0] == "Datum;Wert");
    CHECK(written[1].rfind("21/02/2024;", 0) == 0);
    CHECK(written[4].rfind("24/02/2024;", 0) == 0);
    ax::tools::CsvOptions day_first;
    day_first.date_order = ax::tools::DateOrder::day_first;
    ax::test::check_close(ax::tools::read_csv(out, day_first).values, post_relu_forecast(4), 1e-4, "dd/mm/yyyy");

    // An hourly log on 1 and 2 March written "01/03/2024 00:00": day or month first cannot be told.
    std::string hourly = "time,value\n";
    for (size_t i = 0; i < rows.size(); ++i) {
        char date[48];
        std::snprintf(date, sizeof date, "%02zu/03/2024 %02zu:00", 1 + i / 24, i % 24);
        hourly += std::string(date) + "," + rows[i] + "\n";
    }
    const std::string log = write_file("hourly_ambiguous.csv", hourly);
    check_error(auspex("forecast " + model + " --input " + log), 1,
                "'01/03/2024 00:00' reads day first or month first, and no date tells which: say which with "
                "--time-format dd/mm/yyyy or --time-format mm/dd/yyyy");
    const Result said =
        auspex("forecast " + model + " --input " + log + " --time-format dd/mm/yyyy --horizon 2 -o " + out);
    REQUIRE_MESSAGE(said.exit_code == 0, said.output);
    CHECK(lines_of(out)[1].rfind("02/03/2024 08:00,", 0) == 0);
    // Read month first, the same rows are 3 January and 3 February, a month apart: a gap in the window.
    check_error(auspex("forecast " + model + " --input " + log + " --time-format mm/dd/yyyy --horizon 2 -o " + out), 1,
                "the row at '02/03/2024 00:00' comes 721 hours after '01/03/2024 23:00', where the rows are 1 hour "
                "apart: 720 rows are missing");
    check_error(auspex("forecast " + model + " --input " + log + " --time-format yyyy-dd-mm"), 2, "--time-format");
}
