// doctest's runner on a bare-metal board: no exceptions, no signals, no threads, no colours; results go to
// the semihosting console and the failure count becomes the emulator's exit status.
#define DOCTEST_CONFIG_IMPLEMENT
#include <cstdio>
#include <cstdlib>
#include <exception>

#include "tests/firmware/doctest_config.h"

int main() {
    // Should anything call std::terminate (doctest does when it would have thrown): flush and fail.
    std::set_terminate([] {
        std::fputs("std::terminate called: stopping the test run\n", stdout);
        std::fflush(stdout);
        std::_Exit(3);
    });
    doctest::Context context;
    context.setOption("no-colors", true);
    context.setOption("no-path-filenames", true);
    return context.run();
}
