// What `convert --find-config` varies for a family: the axes its descriptor lists (a key and the values
// tried), from what the checkpoint shows. tools/convert/config_search.cpp runs the grid over them; the key
// table's rows say how each value lands in the model's records.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/format.h"
#include "tools/text/json.h"

namespace ax::tools {

// What a probe import of the checkpoint tells the search.
struct SearchFacts {
    format::Family family = format::Family::forecaster;
    int64_t d_model = 0;
    bool decoder = false;                // the model has decoder layers
    bool learned_table = false;          // a learned position table was read off the tensors
    bool patched = false;                // the config gives patches (PatchTST)
    std::optional<int64_t> scale_heads;  // a stored attention scale tells the head count
};

struct SearchAxis {
    SearchAxis(std::string name, std::vector<std::optional<JsonValue>> tried)
        : key(std::move(name)), values(std::move(tried)) {}

    std::string key;  // a config key
    // The values tried, in order; the first is what a config without the key means (the user's own value,
    // when stated, is tried first). nullopt: the key left out.
    std::vector<std::optional<JsonValue>> values;
    // The value changes the tensors a model holds (positions, a head's layout): each one is imported; the
    // other axes only rewrite config records between runs.
    bool imports = false;
    // Tried with the first value only, then the others when nothing matched (and on the pick, to say whether
    // the check pair tells them apart): a key that rarely shows at the tolerance (layer_norm_eps).
    bool later = false;
    // Whether the user's value is tried when it is not among `values` (false: nhead, which must divide d_model).
    bool user_value_always = true;
    // Whether taking another value than the user's counts against a candidate when the user did not state
    // the key (false where the default is not a statement, such as positions inferred from the tensors).
    bool counts_when_unstated = true;
    // Varied only while the axis `with_key` holds `with_value` (else its first value): the decoder's positions,
    // a choice only beside the encoder's sinusoidal ones.
    std::string with_key;
    std::optional<JsonValue> with_value;
};

}  // namespace ax::tools
