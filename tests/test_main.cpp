#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdlib>

int main(int argc, char** argv) {
    // Converted models store their conversion time. A fixed one (as a reproducible build sets) keeps every
    // conversion of the suite byte-identical, the library's and the CLI's children's alike, whatever the
    // clock says between them; tests of the clock path unset it themselves.
    ::setenv("SOURCE_DATE_EPOCH", "1764000000", 1);
    doctest::Context context(argc, argv);
    return context.run();
}
