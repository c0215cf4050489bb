// The lengths a command sizes a model's session for, for every family: --window/--horizon (forecaster),
// --src-len/--tgt-len (seq2seq), --max-len (classifier, tvae), else the defaults. inspect, bench and header
// read them here so that the three agree on names, defaults and limits.
#pragma once
#include <cstddef>
#include <string>

#include "tools/cli/args.h"
#include "tools/host/model_loader.h"

namespace ax::cli {

// The token and latent families' sequence length when no length option is given (or the model's
// max_positions, when fewer).
constexpr size_t kDefaultTokens = 64;

// The options session_lengths reads; a command declares them all and the family picks its own.
extern const char* const kLengthOptions[5];

struct SessionLengths {
    // forecaster: window, horizon; seq2seq: source, target tokens; classifier, tvae: max_len, 0.
    size_t first = 0, second = 0;
    std::string text;     // "window 48, horizon 24", "source 64, target 64 tokens", "up to 64 tokens"
    std::string options;  // "--window, --horizon": how to set them
};

// Throws UsageError for another family's length option and ToolError for a length past the model's
// positions (max_positions).
SessionLengths session_lengths(const tools::LoadedModel& m, const Args& args);

// The model's exact arena for the lengths (0 when they do not fit).
size_t session_arena_bytes(const tools::LoadedModel& m, const SessionLengths& l);

// The model's positional limit: max_positions, or kMaxSequenceLength when it states none.
size_t position_limit(const tools::LoadedModel& m);

}  // namespace ax::cli
