// The lengths a command sizes a model's session for, for every family, read from the options its family
// descriptor names (--window/--horizon, --src-len/--tgt-len, --max-len), else their defaults. inspect,
// bench and header read them here so that the three agree on names, defaults and limits.
#pragma once
#include <cstddef>
#include <set>
#include <string>

#include "tools/cli/args.h"
#include "tools/family/family_descriptor.h"
#include "tools/host/model_loader.h"

namespace ax::cli {

using tools::position_limit;

// The options session_lengths reads: every family's, so that a command declares them all and the family
// picks its own.
std::set<std::string> length_options();

struct SessionLengths : tools::SessionSize {
    std::string text;     // "window 48, horizon 24", "source 64, target 64 tokens", "inputs up to 64 tokens"
    std::string options;  // "--window, --horizon": how to set them
};

// Throws UsageError for another family's length option and ToolError for a length past the model's
// positions (max_positions).
// `first_default`, when not 0, replaces the family's default of the first length (header --history: the
// window its rows give).
SessionLengths session_lengths(const tools::LoadedModel& m, const Args& args, size_t first_default = 0);

// The model's exact arena for the lengths (0 when they do not fit).
size_t session_arena_bytes(const tools::LoadedModel& m, const SessionLengths& l);

}  // namespace ax::cli
