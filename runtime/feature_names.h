// The feature names a model may store in text records (docs/FORMAT.md, "Text records"), so that tools can
// match a CSV's columns by name. The runtime only validates them; nothing it computes depends on them.
#pragma once
#include <cstddef>

#include "runtime/model_file.h"
#include "runtime/status.h"

namespace ax {

// Absent names are fine. Present ones must sit in consecutive keys from format::kFeatureNamesKey, be
// well-formed UTF-8 without control characters (but the '\n' between names), padded with at most 3 zero
// bytes, and name each of the model's n_features inputs once (non-empty names); a family without
// n_features stores none.
Status check_feature_names(const ModelFile& f);

// Bytes of the stored text ('\n'-separated names; 0 when absent); copies min(length, capacity) of them to
// `out` when it is not null. Call on a model that opened (check_feature_names passed).
size_t feature_names_text(const ModelFile& f, char* out, size_t capacity);

}  // namespace ax
