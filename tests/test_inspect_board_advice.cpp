// auspex inspect --board advises only what the model can take: the integer-only mode where convert's own
// check accepts the model, int8 key/value caches where there is a decoder, and for a flatten head (which
// reads exactly its training window) that window as the only length.
#include <doctest/doctest.h>

#include <string>

#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace {

using ax::test::auspex;
using ax::test::Result;

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

// The "fits:" block's lines (up to the arena table).
std::string fit_block(const Result& r) {
    const size_t at = r.output.find("fits:");
    REQUIRE_MESSAGE(at != std::string::npos, r.output);
    return r.output.substr(at, r.output.find("arena by buffer", at) - at);
}

}  // namespace

TEST_CASE("cli: inspect --board advises the integer-only mode exactly when convert --integer-only takes the model") {
    struct Case {
        const char* fixture;
        const char* calib;    // a log of the model (calendar columns computed from its time column), options
        const char* lengths;  // inspect's
        bool decoder;
    };
    // A covariate decoder reading a plan and a calendar column, a forecaster predicting all it reads, and an
    // encoder-only flatten head (never integer-only: the mode runs encoder-decoder models), so both branches
    // below run whatever the integer-only mode comes to accept.
    int refused = 0;
    for (const Case& c : {Case{"forecaster_known/calendar_setpoint", "data.csv --calib-window 24 --calib-horizon 12",
                               "--window 24 --horizon 12", true},
                          Case{"forecaster/post_relu_tril", "history.csv", "--window 12 --horizon 6", true},
                          Case{"forecaster_onepass/flatten_covariates", "history.csv", "", false}}) {
        INFO("model " << c.fixture);
        const std::string dir = ax::test::fixture_path(c.fixture);
        const std::string name = std::string(c.fixture).substr(std::string(c.fixture).find('/') + 1);
        const Result integer = auspex("convert " + dir + "/model.pt --config " + dir + "/config.json --dtype int8 " +
                                      "--integer-only --calib " + dir + "/" + c.calib + " -o " +
                                      (ax::test::scratch_dir() / ("advice_integer_" + name + ".axm")).string());
        const bool takes = integer.exit_code == 0;
        refused += takes ? 0 : 1;
        const std::string int8 = c.decoder ? "--dtype int8 --kv-cache int8" : "--dtype int8";
        const std::string model = ax::test::converted_fixture(c.fixture, "advice_" + name + ".axm", int8);
        for (const char* board : {"stm32f405", "mps2-an385", "mps3-an547"}) {
            INFO("board " << board << ", convert --integer-only: " << integer.output);
            const Result r = auspex("inspect " + model + " --board " + board + " " + c.lengths);
            REQUIRE_MESSAGE(r.exit_code == 0, r.output);
            const std::string fits = fit_block(r);
            CHECK_MESSAGE(
                (fits.find("mode:   integer-only (convert --dtype int8 --integer-only") != std::string::npos) == takes,
                fits);
            // Refused: the int8 mode (with int8 caches where there is a decoder) and the mode's own reason.
            if (!takes)
                CHECK_MESSAGE(fits.find("mode:   int8 (convert " + int8 +
                                        "), not integer-only: the integer-only mode") != std::string::npos,
                              fits);
            if (!c.decoder) CHECK(fits.find("--kv-cache") == std::string::npos);
            CHECK((fits.find("with int8 caches") != std::string::npos) == c.decoder);
        }
    }
    CHECK(refused >= 1);
}

TEST_CASE("cli: inspect --board gives an encoder-only flatten head no cache advice and its one window") {
    const std::string model =
        ax::test::converted_fixture("forecaster_onepass/flatten_covariates", "advice_flat.axm", "--dtype int8");
    const Result r = auspex("inspect " + model + " --board stm32f405");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    const std::string fits = fit_block(r);
    // No key/value cache to advise on: no decoder.
    CHECK_MESSAGE(fits.find("kv") == std::string::npos, fits);
    CHECK(fits.find("caches") == std::string::npos);
    CHECK(fits.find("fits:     yes (stm32f405: Cortex-M4F, 1 MB flash, 128 KB SRAM; window 24, horizon 12)") !=
          std::string::npos);
    CHECK(fits.find("mode:   int8 (convert --dtype int8), not integer-only: the integer-only mode runs "
                    "encoder-decoder forecasters only") != std::string::npos);
    // The flatten head reads exactly its 24-row training window: that is the longest (and only) window,
    // whatever else the RAM would hold (max_positions is 24 here too; the arena for 24 rows is a few KB).
    CHECK(fits.find("longest window for horizon 12 in 131072 bytes of RAM: 24 (its flatten head reads exactly 24 "
                    "rows)") != std::string::npos);
    // Not even that window in too little RAM.
    const Result small = auspex("inspect " + model + " --ram 1K");
    REQUIRE_MESSAGE(small.exit_code == 0, small.output);
    CHECK(has(small, "longest window for horizon 12 in 1024 bytes of RAM: none (its flatten head reads exactly 24"));

    // An encoder-only head that reads any window (the last row's) gets a searched longest window, with no
    // cache types either.
    const std::string any = ax::test::converted_fixture("forecaster_onepass/last_row_causal", "advice_last.axm");
    const Result last = auspex("inspect " + any + " --board stm32f405");
    REQUIRE_MESSAGE(last.exit_code == 0, last.output);
    const std::string block = fit_block(last);
    CHECK(block.find("caches") == std::string::npos);
    CHECK(block.find("flatten") == std::string::npos);
    CHECK(block.find("longest window for horizon 8 in 131072 bytes of RAM: ") != std::string::npos);
}
