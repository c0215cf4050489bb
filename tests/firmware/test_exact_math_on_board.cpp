// On the board: the mcu port's softmax and GELU (Helium lanes on the M55; on the M4 and M7 softmax with exp
// inlined, GELU generic) give generic's bits, the same checks as the host suite's tests/test_exact_math.cpp.
#include "tests/firmware/doctest_config.h"

#include "ports/ports.h"
#include "tests/exact_math_checks.h"

TEST_CASE("softmax and gelu on the board are bit-identical to generic, edge values included") {
    const ax::Kernels* mcu = ax::kernels_by_name("mcu");
    if (!mcu) return;
    ax::test::check_softmax_gelu_bit_identical(*mcu, ax::generic_kernels());
}
