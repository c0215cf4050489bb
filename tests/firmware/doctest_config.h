// doctest as the on-board test images use it: every assertion macro without exceptions, no POSIX signals
// or threads (newlib has neither), no colours.
#pragma once
#define DOCTEST_CONFIG_NO_EXCEPTIONS_BUT_WITH_ALL_ASSERTS
#define DOCTEST_CONFIG_NO_POSIX_SIGNALS
#define DOCTEST_CONFIG_NO_MULTITHREADING
#define DOCTEST_CONFIG_COLORS_NONE
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>

// Without exceptions doctest's REQUIRE only records the failure and carries on, into code that relied on it
// (buffer sizes, opened models). Here a failed REQUIRE reports the expression, then ends the run with
// status 3.
namespace ax::fw {
[[noreturn]] inline void stop_after_failed_require() {
    std::fputs("REQUIRE failed: stopping the test run\n", stdout);
    std::fflush(stdout);
    std::_Exit(3);
}
}  // namespace ax::fw
#undef REQUIRE
#define REQUIRE(...)                               \
    do {                                           \
        if (!(__VA_ARGS__)) {                      \
            DOCTEST_CHECK(__VA_ARGS__);            \
            ::ax::fw::stop_after_failed_require(); \
        }                                          \
    } while (0)
