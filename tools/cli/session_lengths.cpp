#include "tools/cli/session_lengths.h"

#include <algorithm>

#include "tools/host/forecast_window.h"

namespace ax::cli {

const char* const kLengthOptions[5] = {"window", "horizon", "src-len", "tgt-len", "max-len"};

namespace {

// How a family's lengths are set.
std::string options_of(format::Family family) {
    switch (family) {
        case format::Family::forecaster:
            return "--window, --horizon";
        case format::Family::seq2seq:
            return "--src-len, --tgt-len";
        case format::Family::classifier:
        case format::Family::tvae:
            return "--max-len";
    }
    return "";
}

}  // namespace

size_t position_limit(const tools::LoadedModel& m) {
    size_t p = 0;
    switch (m.family) {
        case format::Family::forecaster:
            p = m.forecaster.config().max_positions;
            break;
        case format::Family::seq2seq:
            p = m.seq2seq.config().max_positions;
            break;
        case format::Family::classifier:
            p = m.classifier.config().max_positions;
            break;
        case format::Family::tvae:
            p = m.tvae.config().max_positions;
            break;
    }
    return p ? p : kMaxSequenceLength;
}

SessionLengths session_lengths(const tools::LoadedModel& m, const Args& args) {
    SessionLengths l;
    l.options = options_of(m.family);
    for (const char* option : kLengthOptions)
        if (args.has(option) && l.options.find(std::string("--") + option) == std::string::npos)
            throw UsageError{std::string("--") + option + " does not apply to a " + tools::family_name(m.family) +
                             " model (its lengths: " + l.options + ")"};
    const size_t limit = position_limit(m);
    switch (m.family) {
        case format::Family::forecaster: {
            const ForecasterConfig& c = m.forecaster.config();
            l.first = args.get_size("window", tools::default_window(c), 1, kMaxSequenceLength);
            l.second = args.get_size("horizon", tools::default_horizon(c), 1, kMaxSequenceLength);
            tools::check_window_fits(c, l.first, "--window " + std::to_string(l.first));
            tools::check_horizon_fits(c, l.second, "--horizon " + std::to_string(l.second));
            l.text = "window " + std::to_string(l.first) + ", horizon " + std::to_string(l.second);
            break;
        }
        case format::Family::seq2seq:
            l.first = args.get_size("src-len", std::min(kDefaultTokens, limit), 1, limit);
            l.second = args.get_size("tgt-len", std::min(kDefaultTokens, limit), 1, limit);
            l.text = "source " + std::to_string(l.first) + ", target " + std::to_string(l.second) + " tokens";
            break;
        case format::Family::classifier:
            l.first = args.get_size("max-len", std::min(kDefaultTokens, limit), 1, limit);
            l.text = "inputs up to " + std::to_string(l.first) + " tokens";
            break;
        case format::Family::tvae:
            l.first = args.get_size("max-len", std::min(kDefaultTokens, limit), 1, limit);
            l.text = "sequences up to " + std::to_string(l.first) + " rows";
            break;
    }
    return l;
}

size_t session_arena_bytes(const tools::LoadedModel& m, const SessionLengths& l) {
    switch (m.family) {
        case format::Family::forecaster:
            return m.forecaster.arena_bytes(l.first, l.second);
        case format::Family::seq2seq:
            return m.seq2seq.arena_bytes(l.first, l.second);
        case format::Family::classifier:
            return m.classifier.arena_bytes(l.first);
        case format::Family::tvae:
            return m.tvae.arena_bytes(l.first);
    }
    return 0;
}

}  // namespace ax::cli
