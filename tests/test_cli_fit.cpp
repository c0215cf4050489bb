// The CLI side of issue 12: `convert --kv-cache int8`, and `inspect --flash/--ram/--board` ("will it fit?"),
// whose arena figure is the one `header` writes and a session uses.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace {

using ax::test::auspex;
using ax::test::check_error;
using ax::test::Result;
using ax::test::scratch_dir;

std::string fixture(const std::string& family, const std::string& c, const std::string& f) {
    return ax::test::fixture_path(family + "/" + c + "/" + f);
}

std::string convert(const std::string& family, const std::string& c, const std::string& options,
                    const std::string& out_name) {
    const std::string out = (scratch_dir() / out_name).string();
    const Result r = auspex("convert " + fixture(family, c, "model.pt") + " --config " +
                            fixture(family, c, "config.json") + " " + options + " -o " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return out;
}

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// The number after `prefix` in the output.
unsigned long long number_after(const std::string& text, const std::string& prefix) {
    const size_t at = text.find(prefix);
    REQUIRE_MESSAGE(at != std::string::npos, text);
    return std::stoull(text.substr(at + prefix.size()));
}

}  // namespace

TEST_CASE("cli: convert --kv-cache int8 records the cache type, inspect shows it and its smaller arena") {
    const std::string f32 = convert("forecaster", "post_relu_tril", "", "kv_f32.axm");
    const std::string i8 = convert("forecaster", "post_relu_tril", "--dtype int8 --kv-cache int8", "kv_i8.axm");
    const Result a = auspex("inspect " + f32 + " --window 12 --horizon 6");
    const Result b = auspex("inspect " + i8 + " --window 12 --horizon 6");
    REQUIRE(a.exit_code == 0);
    REQUIRE(b.exit_code == 0);
    CHECK(has(a, "kv cache: f32"));
    CHECK(has(b, "kv cache: int8"));
    CHECK(number_after(b.output, "arena:    ") < number_after(a.output, "arena:    "));
}

TEST_CASE("cli: inspect says an integer-only model's caches are int8 at calibrated scales") {
    const std::string example = ax::test::fixture_path("../../models/example");
    const std::string out = (scratch_dir() / "kv_integer.axm").string();
    const Result c = auspex("convert " + example + "/forecaster.pt --config " + example +
                            "/config.json --dtype int8 --integer-only --calib " + example + "/series.csv -o " + out);
    REQUIRE_MESSAGE(c.exit_code == 0, c.output);
    const Result r = auspex("inspect " + out);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK(has(r, "kv cache: int8 at calibrated scales, one for each attention's keys and one for its values"));
    CHECK_FALSE(has(r, "kv cache: f32"));
    // The fit report names the one cache the mode has, not an f32 alternative it cannot run.
    const Result fit = auspex("inspect " + out + " --board stm32f405");
    REQUIRE_MESSAGE(fit.exit_code == 0, fit.output);
    CHECK(has(fit, "kv cache int8, integer-only)"));
    CHECK(has(fit, "with int8 caches (this model's)"));
    CHECK_FALSE(has(fit, "f32 caches"));
}

TEST_CASE("cli: --kv-cache on a model without a decoder, or of an unknown type, is a clear error") {
    const std::string out = (scratch_dir() / "never.axm").string();
    const std::string cls = fixture("classifier", "pad0_max_sigmoid", "model.pt") + " --config " +
                            fixture("classifier", "pad0_max_sigmoid", "config.json");
    check_error(auspex("convert " + cls + " --kv-cache int8 -o " + out), 1, "no decoder");
    const std::string fc = fixture("forecaster", "post_relu_tril", "model.pt") + " --config " +
                           fixture("forecaster", "post_relu_tril", "config.json");
    check_error(auspex("convert " + fc + " --kv-cache int4 -o " + out), 1, "unknown kv-cache type \"int4\"");
}

TEST_CASE("cli: inspect --flash/--ram answers yes or no, shows the arena by buffer and the longest window") {
    const std::string model = convert("forecaster", "post_relu_tril", "", "fit.axm");
    const Result yes = auspex("inspect " + model + " --window 12 --horizon 6 --flash 1M --ram 128K");
    REQUIRE_MESSAGE(yes.exit_code == 0, yes.output);
    CHECK(has(yes, "fits:     yes"));
    CHECK(has(yes, "of 1048576 bytes: yes"));
    CHECK(has(yes, "of 131072 bytes: yes"));
    CHECK(has(yes, "longest window for horizon 6 in 131072 bytes of RAM: "));
    CHECK(has(yes, "with f32 caches (this model's)"));
    CHECK(has(yes, "with int8 caches"));
    CHECK(has(yes, "self-attention k/v cache"));
    // The planned figure of the buffer table is the arena line's, which is what init needs.
    CHECK(number_after(yes.output, "share bytes): ") == number_after(yes.output, "arena:    "));

    const Result no = auspex("inspect " + model + " --window 12 --horizon 6 --ram 4K");
    REQUIRE_MESSAGE(no.exit_code == 0, no.output);
    CHECK(has(no, "fits:     no"));
    CHECK(has(no, "bytes short"));
    CHECK(has(no, "flash:  not checked"));

    const Result board = auspex("inspect " + model + " --board stm32f405 --window 12 --horizon 6");
    REQUIRE_MESSAGE(board.exit_code == 0, board.output);
    CHECK(has(board, "stm32f405: Cortex-M4F, 1 MB flash, 128 KB SRAM"));
    CHECK(has(board, "of 131072 bytes"));
    // The mode the core should use: integer-only on the Cortex-M4F (as few instructions per forecast as the
    // int8 mode, less than half its arena) and on the FPU-less Cortex-M3; docs/integer-only.md gives the
    // instruction counts behind the advice.
    CHECK(has(board, "mode:   integer-only (convert --dtype int8 --integer-only --calib DATA.csv): no more"));
    const Result m3 = auspex("inspect " + model + " --board mps2-an385 --window 12 --horizon 6");
    REQUIRE_MESSAGE(m3.exit_code == 0, m3.output);
    CHECK(has(m3, "mode:   integer-only (convert --dtype int8 --integer-only --calib DATA.csv)"));
    CHECK_FALSE(has(auspex("inspect " + model + " --ram 64K"), "mode:"));
    // --ram overrides the board's figure.
    CHECK(has(auspex("inspect " + model + " --board stm32f405 --ram 64K"), "of 65536 bytes"));
}

TEST_CASE("cli: inspect's fit options refuse malformed sizes and unknown boards") {
    const std::string model = convert("forecaster", "post_relu_tril", "", "fit_bad.axm");
    check_error(auspex("inspect " + model + " --ram 12Q"), 2, "--ram \"12Q\" is not a memory size");
    check_error(auspex("inspect " + model + " --flash K"), 2, "--flash \"K\" is not a memory size");
    check_error(auspex("inspect " + model + " --ram 0"), 2, "is not a memory size");
    check_error(auspex("inspect " + model + " --ram -5K"), 2, "is not a memory size");
    check_error(auspex("inspect " + model + " --board stm32f999"), 2, "unknown board \"stm32f999\"");
}

TEST_CASE("cli: inspect --board knows every folder of ports/firmware/boards, and the board table documents each") {
    const std::string root = std::string(AUSPEX_SOURCE_DIR) + "/ports/firmware";
    std::vector<std::string> folders;
    for (const auto& e : std::filesystem::directory_iterator(root + "/boards"))
        if (e.is_directory()) folders.push_back(e.path().filename().string());
    std::sort(folders.begin(), folders.end());
    REQUIRE(!folders.empty());
    std::string known;
    for (const std::string& f : folders) known += (known.empty() ? "" : ", ") + f;
    const std::string model = convert("forecaster", "post_relu_tril", "", "fit_boards.axm");
    check_error(auspex("inspect " + model + " --board none"), 2, "(known: " + known + ")");

    std::ifstream in(root + "/README.md");
    std::stringstream doc;
    doc << in.rdbuf();
    for (const std::string& board : folders) {
        INFO("board " << board);
        const Result r = auspex("inspect " + model + " --board " + board + " --window 12 --horizon 6");
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        // "fits:     yes (NAME: CORE, CODE SIZE ..., RAM SIZE ...; window ...": the core and both sizes are in the
        // board's row of ports/firmware/README.md's table.
        const size_t at = r.output.find("(" + board + ": ");
        REQUIRE(at != std::string::npos);
        const std::string summary =
            r.output.substr(at + board.size() + 3, r.output.find(';', at) - at - board.size() - 3);
        const size_t row_at = doc.str().find("| `" + board + "` |");
        REQUIRE_MESSAGE(row_at != std::string::npos, "no row for " << board << " in ports/firmware/README.md");
        const std::string row = doc.str().substr(row_at, doc.str().find('\n', row_at) - row_at);
        std::vector<std::string> parts;
        for (size_t from = 0; from <= summary.size();) {
            const size_t comma = std::min(summary.find(", ", from), summary.size());
            parts.push_back(summary.substr(from, comma - from));
            from = comma + 2;
        }
        REQUIRE(parts.size() == 3);
        CHECK_MESSAGE(row.find(parts[0]) != std::string::npos, row);
        for (size_t i = 1; i < 3; ++i) {
            const std::string size = parts[i].substr(0, parts[i].find(' ', parts[i].find(' ') + 1));  // "4 MB"
            CHECK_MESSAGE(row.find(size) != std::string::npos, size << " not in: " << row);
        }
    }
}

TEST_CASE("cli: header writes the arena figure inspect reports, for f32 and int8 caches") {
    for (const char* options : {"", "--dtype int8 --kv-cache int8"}) {
        const std::string model = convert("forecaster", "post_relu_tril", options, "hdr.axm");
        const std::string h = (scratch_dir() / "hdr.h").string();
        const Result r = auspex("header " + model + " -o " + h + " --name m --window 12 --horizon 6");
        REQUIRE_MESSAGE(r.exit_code == 0, r.output);
        std::ifstream in(h);
        std::stringstream text;
        text << in.rdbuf();
        const Result info = auspex("inspect " + model + " --window 12 --horizon 6");
        CHECK(number_after(text.str(), "_ARENA_BYTES ") == number_after(info.output, "arena:    "));
    }
}
