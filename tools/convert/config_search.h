// `convert --find-config FILE`: tries the configs a checkpoint's shapes allow (nhead among the divisors of
// d_model, relu/gelu, post-/pre-norm, memory mask none/tril for forecasters, the positional encodings the
// tensors admit, layer_norm_eps 1e-5/1e-6 besides the user's) against a check pair from PyTorch, and picks
// the one that reproduces PyTorch's output. Candidates are imported and run in memory.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "tools/checkpoint/checkpoint.h"
#include "tools/convert/conversion_check.h"
#include "tools/import/convert_config.h"
#include "tools/text/json.h"

namespace ax::tools {

struct ConfigSearch {
    bool found = false;
    ConvertConfig config;              // the pick (found), else the closest candidate
    JsonValue json;                    // the user's config (or {"arch": ...}) with the tried keys replaced
    CheckResult result;                // the pick's (or closest candidate's) check
    std::string description;           // "nhead 4, activation relu, ..." of the pick or closest candidate
    size_t tried = 0;                  // candidates run
    size_t refused = 0;                // positional encodings the importer refused ("none" beside a `pe` buffer),
                                       // combinations the runtime refused
    std::vector<std::string> matches;  // every matching candidate, pick first
    std::vector<double> matched_eps;   // their layer_norm_eps, same order
    bool config_stated_eps = false;    // whether the user's config gave layer_norm_eps
    std::string varying;               // the keys in which the matches differ ("" when one matches)
};

// `config_path` may be empty: then the checkpoint must be a forecaster or tvae (the token families need
// their token ids from a config). The user's config may leave out "nhead". Throws when no candidate imports
// or the check pair does not fit the model's shapes.
ConfigSearch search_config(const TensorMap& tensors, const std::string& config_path, const CheckFiles& files);

// The keys --find-config varies for a model like `m` ("nhead, activation, ..."): its family's axes.
std::string searched_keys_text(const AxmModel& m);

// Every key --find-config varies for some model of some family (the key table's "searched" column).
std::set<std::string> searched_config_keys();

}  // namespace ax::tools
