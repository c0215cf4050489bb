// The ports that evaluate the reference's exp and erf lane by lane (neon, mcu) give generic's softmax and
// GELU bit for bit; skipped where neither port is built.
#include <doctest/doctest.h>

#include <cstring>
#include <initializer_list>

#include "ports/ports.h"
#include "tests/exact_math_checks.h"

TEST_CASE("neon and mcu softmax and gelu are bit-identical to generic, edge values and NaN included") {
    for (const char* name : {"neon", "mcu"}) {
        const ax::Kernels* port = ax::kernels_by_name(name);
        if (!port) continue;
        INFO("port " << name);
        ax::test::check_softmax_gelu_bit_identical(*port, ax::generic_kernels());
    }
}
