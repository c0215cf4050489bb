// The CLI's own help, as a user first types it: auspex --version, auspex help, auspex help COMMAND and
// COMMAND --help print to stdout with exit 0; an unknown command is one line with exit 2.
#include <doctest/doctest.h>

#include <string>

#include "ports/ports.h"
#include "tests/cli_support.h"
#include "tools/host/ports_here.h"
#include "tools/convert/model_stamp.h"

namespace {

using ax::test::auspex;
using ax::test::Result;

bool has(const Result& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

const char* const kCommands[] = {"convert",   "inspect",  "run",         "forecast", "verify", "bench",
                                 "translate", "classify", "reconstruct", "generate", "header"};

}  // namespace

TEST_CASE("cli: auspex --version prints the version the converter stamps into models") {
    for (const char* arg : {"--version", "version"}) {
        const Result r = auspex(arg);
        CHECK(r.exit_code == 0);
        CHECK(r.output == ax::tools::converter_version_text() + "\n");
    }
}

TEST_CASE("cli: auspex help lists every command with a line on what it does") {
    for (const char* arg : {"help", "--help", "-h"}) {
        const Result r = auspex(arg);
        INFO(arg << ": " << r.output);
        CHECK(r.exit_code == 0);
        CHECK(has(r, "usage: auspex COMMAND"));
        for (const char* c : kCommands) CHECK_MESSAGE(has(r, std::string("\n  ") + c + " "), c);
        CHECK(has(r, "auspex help COMMAND"));
        CHECK(has(r, "--version"));
    }
    const Result none = auspex("");
    CHECK(none.exit_code == 2);
    CHECK(has(none, "usage: auspex COMMAND"));
}

TEST_CASE("cli: auspex help COMMAND and COMMAND --help print its usage and options") {
    for (const char* c : kCommands) {
        const std::string usage = std::string("usage: auspex ") + c + " ";
        for (const std::string& args : {std::string("help ") + c, std::string(c) + " --help", std::string(c) + " -h"}) {
            const Result r = auspex(args);
            INFO(args << ": " << r.output);
            CHECK(r.exit_code == 0);
            CHECK(r.output.rfind(usage, 0) == 0);
        }
    }
    // Every option a command's usage names has a line of its own.
    for (const char* c : kCommands) {
        const Result r = auspex(std::string("help ") + c);
        const std::string usage = r.output.substr(0, r.output.find('\n'));
        const std::string options = r.output.substr(r.output.find("options:\n"));
        for (size_t at = usage.find("--"); at != std::string::npos; at = usage.find("--", at + 2)) {
            const std::string option = usage.substr(at, usage.find_first_of(" ]|)", at) - at);
            if (option == "--port" || option == "--threads") continue;  // explained once, below the options
            if (option.back() == '*') continue;                         // "--check-*": a reference to convert's options
            const bool described = options.find(" " + option + " ") != std::string::npos ||
                                   options.find("[" + option + " ") != std::string::npos;
            CHECK_MESSAGE(described, c << ": " << option << " not described");
        }
    }
    const Result fc = auspex("forecast --help");
    CHECK(has(fc, "--horizon H"));
    CHECK(has(fc, "--delimiter"));
    // --port lists the ports this build and CPU run, every one of them.
    CHECK(has(fc, "--port " + ax::tools::ports_here() + " (the ports this build and CPU run"));
    for (const char* name : ax::kPortNames)
        if (ax::kernels_by_name(name)) CHECK(ax::tools::ports_here().find(name) != std::string::npos);
    CHECK(has(fc, "[--truth T.csv] [--plot FC.svg]"));
    // --help wins over the options around it, even ones that would be an error.
    const Result late = auspex("forecast model.axm --input nosuch.csv --help");
    CHECK(late.exit_code == 0);
    CHECK(has(late, "usage: auspex forecast"));
    const Result unknown = auspex("help frobnicate");
    CHECK(unknown.exit_code == 2);
    CHECK(has(unknown, "unknown command \"frobnicate\""));
    CHECK(has(unknown, "auspex help"));
}
