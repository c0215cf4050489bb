// A Chronos-Bolt model on a board and on a benchmark: `inspect --board` checks the weights against the code
// memory or else the board's memory-mapped external flash (where the firmware reads them in place) and the
// forecast's working memory plus the runtime's stack budget against RAM; `bench` times a forecast and names the
// port and the CPU it ran on.
#include <doctest/doctest.h>

#include <string>

#include "tests/cli_support.h"
#include "tests/test_support.h"

namespace {

using ax::test::auspex;
using ax::test::Result;

std::string converted_dummy(const char* name, const char* dtype) {
    const std::string axm = (ax::test::scratch_dir() / name).string();
    const Result r =
        auspex("convert " + ax::test::fixture_path("chronos_bolt/dummy") + " -o " + axm + " --dtype " + dtype);
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    return axm;
}

// The number after `key` in the text (0 when absent).
unsigned long long number_after(const std::string& text, const std::string& key) {
    const size_t at = text.find(key);
    if (at == std::string::npos) return 0;
    return std::stoull(text.substr(at + key.size()));
}

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

}  // namespace

TEST_CASE("cli chronos-bolt: inspect --board reads the weights from external flash when the code memory is too small") {
    const std::string axm = converted_dummy("cb_board.axm", "int8");
    const Result plain = auspex("inspect " + axm);
    REQUIRE_MESSAGE(plain.exit_code == 0, plain.output);
    const unsigned long long work = number_after(plain.output, "memory:   ");
    const unsigned long long model = number_after(plain.output, "file:     ");
    REQUIRE(work > 0);
    REQUIRE(model > 1024);
    // Fits the code memory of any board: read from there.
    const Result code = auspex("inspect " + axm + " --board mps3-an547");
    REQUIRE_MESSAGE(code.exit_code == 0, code.output);
    CHECK_MESSAGE(
        has(code, "fits:     yes (mps3-an547: Cortex-M55, 512 KB ITCM, 512 KB DTCM; context 512, horizon 64)"),
        code.output);
    CHECK_MESSAGE(has(code, "  flash:  model " + std::to_string(model) + " of 524288 bytes of code memory: yes"),
                  code.output);
    CHECK_MESSAGE(has(code, "  work:   " + std::to_string(work) + " bytes"), code.output);
    CHECK_MESSAGE(has(code, "  stack:  at most 3584 bytes"), code.output);
    CHECK_MESSAGE(has(code, "  RAM:    work + stack " + std::to_string(work + 3584) + " of 524288 bytes: yes, " +
                                std::to_string(524288 - work - 3584) + " bytes left"),
                  code.output);
    // A code memory smaller than the model: the 16 MB external flash of the boards that have one, none elsewhere.
    const Result external = auspex("inspect " + axm + " --board mps2-an500 --flash 1K");
    REQUIRE_MESSAGE(external.exit_code == 0, external.output);
    CHECK_MESSAGE(has(external,
                      "more than the 1024 bytes of code memory: read in place from the 16777216 bytes of "
                      "memory-mapped external flash, yes, " +
                          std::to_string(16777216 - model) + " bytes left"),
                  external.output);
    const Result none = auspex("inspect " + axm + " --board mps2-an386 --flash 1K");
    REQUIRE_MESSAGE(none.exit_code == 0, none.output);
    CHECK_MESSAGE(has(none, "fits:     no"), none.output);
    CHECK_MESSAGE(has(none, "no, more than the 1024 bytes of code memory (a board with memory-mapped external flash"),
                  none.output);
    // RAM short by exactly the working memory plus the stack budget past it; the horizon sizes the work.
    const Result small = auspex("inspect " + axm + " --ram 8K");
    REQUIRE_MESSAGE(small.exit_code == 0, small.output);
    CHECK_MESSAGE(has(small, "work + stack " + std::to_string(work + 3584) + " of 8192 bytes: no, " +
                                 std::to_string(work + 3584 - 8192) + " bytes short"),
                  small.output);
    const Result longer = auspex("inspect " + axm + " --board mps3-an547 --horizon 128");
    REQUIRE_MESSAGE(longer.exit_code == 0, longer.output);
    CHECK(number_after(longer.output, "  work:   ") > work);
    ax::test::check_error(auspex("inspect " + axm + " --ram 12Q"), 2, "--ram \"12Q\" is not a memory size");
    ax::test::check_error(auspex("inspect " + axm + " --board nosuch"), 2, "unknown board \"nosuch\"");
    // The published directory has no file size yet: convert it first.
    ax::test::check_error(auspex("inspect " + ax::test::fixture_path("chronos_bolt/dummy") + " --board mps2-an500"), 2,
                          "check a converted model: convert the directory first");
    ax::test::check_error(auspex("inspect " + axm + " --board mps2-an500 --window 100"), 2,
                          "--window does not apply to a Chronos-Bolt model");
}

TEST_CASE("cli chronos-bolt: bench times a forecast and names the port and the CPU") {
    const std::string axm = converted_dummy("cb_bench.axm", "int8");
    const Result r = auspex("bench " + axm + " --runs 2 --port generic");
    REQUIRE_MESSAGE(r.exit_code == 0, r.output);
    CHECK_MESSAGE(has(r, "(Chronos-Bolt, int8 weights), port generic, context 512, horizon 64, median of 2 runs"),
                  r.output);
    CHECK_MESSAGE(has(r, "  cpu: "), r.output);
#if defined(__x86_64__)
    CHECK_MESSAGE(has(r, "  cpu: x86_64, "), r.output);
#elif defined(__aarch64__)
    CHECK_MESSAGE(has(r, "  cpu: aarch64"), r.output);
#endif
    CHECK_MESSAGE(has(r, "  forecast (9 quantiles x 64 steps, one thread): "), r.output);
    const Result json = auspex("bench " + axm + " --runs 1 --horizon 70 --json");
    REQUIRE_MESSAGE(json.exit_code == 0, json.output);
    CHECK_MESSAGE(has(json, "\"family\": \"chronos_bolt\", \"weights\": \"int8\", \"port\": \""), json.output);
    CHECK_MESSAGE(has(json, "\"context\": 512, \"horizon\": 70, \"quantiles\": 9, \"runs\": 1, \"forecast_ms\": "),
                  json.output);
    ax::test::check_error(auspex("bench " + axm + " --threads 2"), 2, "--threads is not available for a Chronos-Bolt");
}
