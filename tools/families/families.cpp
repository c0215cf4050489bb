#include <variant>

#include "tools/common/tool_error.h"
#include "tools/family/family_descriptor.h"
#include "tools/host/model_loader.h"

namespace ax::tools {

// Each defined in tools/families/<family>_family.cpp.
const FamilyDescriptor& forecaster_family();
const FamilyDescriptor& seq2seq_family();
const FamilyDescriptor& classifier_family();
const FamilyDescriptor& tvae_family();

const std::vector<const FamilyDescriptor*>& family_descriptors() {
    static const std::vector<const FamilyDescriptor*> all = {&forecaster_family(), &seq2seq_family(),
                                                             &classifier_family(), &tvae_family()};
    return all;
}

const FamilyDescriptor& family_descriptor(format::Family family) {
    for (const FamilyDescriptor* d : family_descriptors())
        if (d->family == family) return *d;
    throw ToolError("internal error: no descriptor for family " + std::to_string(static_cast<int>(family)));
}

std::string length_options_text(const FamilyDescriptor& d) {
    std::string text;
    for (size_t i = 0; i < d.length_count(); ++i) text += (i ? ", --" : "--") + std::string(d.lengths[i].option);
    return text;
}

size_t position_limit(const LoadedModel& m) {
    const size_t p = std::visit([](const auto& model) -> size_t { return model.config().max_positions; }, m.model);
    return p ? p : kMaxSequenceLength;
}

const StackConfig& stack_of(const LoadedModel& m) {
    return std::visit([](const auto& model) -> const StackConfig& { return model.config().stack; }, m.model);
}

}  // namespace ax::tools
