// On the board: the integer-only kernels give the host's bits (the digest tests/test_integer_kernels.cpp
// holds on the host, over every kernel's outputs on the same pseudo-random inputs).
#include "tests/firmware/doctest_config.h"

#include "tests/integer_kernel_digest.h"

TEST_CASE("the integer kernels give the host's bits on the board") {
    CHECK(ax::test::integer_kernel_digest(2026) == ax::test::kIntegerKernelDigest);
}
