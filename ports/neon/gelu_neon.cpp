// NEON GELU: the reference's operations lane by lane (ports/generic/float_math_lanes.h), so its results are
// generic's bits; the scalar erf_f32 per element was most of GELU's instructions.
#if defined(__ARM_NEON)
#include <cstddef>

#include "ports/generic/float_math_lanes.h"
#include "ports/neon/math_neon.h"
#include "ports/neon/neon.h"

namespace ax::neon {

void gelu_f32(float* x, size_t n) { lanes::gelu<detail::NeonLanes>(x, n); }

}  // namespace ax::neon

#endif  // __ARM_NEON
