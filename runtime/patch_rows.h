// A context cut into non-overlapping patches of `patch` values, left-padded with missing values to a whole
// number of patches, each patch one input row of 2 * patch values: its values (0 where missing) and then its
// mask (1 = observed, 0 = missing or padding). A patch with no observed value is left out of the encoder's
// attention (valid = 0), as Chronos-Bolt's attention mask does.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

inline size_t patch_count(size_t length, size_t patch) { return (length + patch - 1) / patch; }

// x: length values, NaN = missing. rows: [patch_count, 2 * patch]; valid: [patch_count].
void patch_rows(const float* x, size_t length, size_t patch, float* rows, uint8_t* valid);

}  // namespace ax
