// y = x W^T + b with float32 weights on NEON: see linear_float_neon.h.
#if defined(__ARM_NEON)
#include <cstddef>
#include <cstdint>

#include "ports/neon/linear_float_neon.h"
#include "ports/neon/neon.h"

namespace ax::neon {

void linear_f32(const float* x, size_t rows, size_t in, const float* w, const float* bias, size_t out, float* y,
                size_t ldy) {
    detail::linear_float(x, rows, in, w, bias, out, y, ldy);
}

}  // namespace ax::neon

#endif  // __ARM_NEON
