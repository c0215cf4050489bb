#include "ports/integer_ports.h"

#include "ports/generic/integer_generic.h"
#ifdef AUSPEX_HAVE_MCU
#include "ports/mcu/integer_mcu.h"
#endif

namespace ax {

const IntegerKernels& best_integer_kernels() {
#ifdef AUSPEX_HAVE_MCU
    return mcu_integer_kernels();
#else
    return generic_integer_kernels();
#endif
}

}  // namespace ax
