#include "tools/cli/session_lengths.h"

namespace ax::cli {

std::set<std::string> length_options() {
    std::set<std::string> options;
    for (const tools::FamilyDescriptor* d : tools::family_descriptors())
        for (size_t i = 0; i < d->length_count(); ++i) options.insert(d->lengths[i].option);
    return options;
}

SessionLengths session_lengths(const tools::LoadedModel& m, const Args& args, size_t first_default) {
    const tools::FamilyDescriptor& d = tools::family_descriptor(m.family);
    SessionLengths l;
    l.options = tools::length_options_text(d);
    for (const tools::FamilyDescriptor* other : tools::family_descriptors())
        for (size_t i = 0; i < other->length_count(); ++i) {
            const std::string option = other->lengths[i].option;
            if (args.has(option) && l.options.find("--" + option) == std::string::npos)
                throw UsageError{"--" + option + " does not apply to a " + tools::family_name(m.family) +
                                 " model (its lengths: " + l.options + ")"};
        }
    const size_t limit = position_limit(m);
    size_t* values[2] = {&l.first, &l.second};
    for (size_t i = 0; i < d.length_count(); ++i) {
        const tools::LengthSpec& s = d.lengths[i];
        const size_t fallback = i == 0 && first_default != 0 ? first_default : s.default_value(m, limit);
        *values[i] = args.get_size(s.option, fallback, 1, s.max_value(m, limit));
    }
    if (d.check_lengths) d.check_lengths(m, l);
    l.text = d.lengths_text(l);
    return l;
}

size_t session_arena_bytes(const tools::LoadedModel& m, const SessionLengths& l) {
    return tools::family_descriptor(m.family).arena_bytes(m, l);
}

}  // namespace ax::cli
