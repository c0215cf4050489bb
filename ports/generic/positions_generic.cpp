// The reference sinusoidal positions kernel. The encoding itself is runtime/positional_encoding.h's (the
// token embeddings add it without a kernel table); this entry hands it to the table, so every port's
// add_sinusoidal_f32 is tested against these bits.
#include <cstddef>

#include "ports/generic/generic.h"
#include "runtime/positional_encoding.h"

namespace ax::generic {

void add_sinusoidal_f32(float* x, size_t rows, size_t d, size_t first_position) {
    add_sinusoidal_positions(x, rows, d, first_position);
}

}  // namespace ax::generic
