#include "runtime/patch_rows.h"

#include <cmath>

namespace ax {

void patch_rows(const float* x, size_t length, size_t patch, float* rows, uint8_t* valid) {
    const size_t patches = patch_count(length, patch);
    const size_t pad = patches * patch - length;
    for (size_t p = 0; p < patches; ++p) {
        float* row = rows + p * 2 * patch;
        uint8_t any = 0;
        for (size_t i = 0; i < patch; ++i) {
            const size_t at = p * patch + i;  // position in the padded context
            const bool observed = at >= pad && !std::isnan(x[at - pad]);
            row[i] = observed ? x[at - pad] : 0.0f;
            row[patch + i] = observed ? 1.0f : 0.0f;
            any |= observed ? 1 : 0;
        }
        valid[p] = any;
    }
}

}  // namespace ax
