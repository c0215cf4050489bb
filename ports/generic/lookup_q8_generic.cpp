// An elementwise function of one int8 value through its 256-entry table (runtime/integer_kernels.h).
#include <cstddef>
#include <cstdint>

#include "ports/generic/integer_generic.h"

namespace ax::generic {

void lookup_q8(const int8_t* x, size_t n, const int8_t* table, int8_t* y) {
    for (size_t i = 0; i < n; ++i) y[i] = table[x[i] + 128];
}

}  // namespace ax::generic
