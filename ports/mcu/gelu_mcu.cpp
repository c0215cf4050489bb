// Helium GELU: the reference's operations lane by lane (ports/generic/float_math_lanes.h), bit-identical to
// generic; everything without MVE float, the generic kernel.
#include "ports/generic/generic.h"
#include "ports/mcu/mcu.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
#include "ports/generic/float_math_lanes.h"
#include "ports/mcu/math_mve.h"
#endif

namespace ax::mcu {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 2)
void gelu_f32(float* x, size_t n) { lanes::gelu<detail::MveLanes>(x, n); }
#else
void gelu_f32(float* x, size_t n) { generic::gelu_f32(x, n); }
#endif

}  // namespace ax::mcu
