// The step every host session of every family starts with: check the model is of the family, ask it for the
// arena its lengths need, allocate exactly that and lay the session out in it. One place, so the four host
// sessions cannot drift apart in how they size, refuse or report.
#pragma once
#include <string>

#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/host/model_loader.h"

namespace ax::tools {

template <typename Session>
class SessionInArena {
public:
    // `object` is the model's open family object (model.forecaster, model.seq2seq, ...); `lengths` are the
    // session's maximum lengths as the family's arena_bytes and init take them; `what` names them for the
    // error when they are out of range ("window and horizon").
    template <typename FamilyModel, typename... Lengths>
    SessionInArena(const LoadedModel& model, format::Family family, const FamilyModel& object, const Kernels& kernels,
                   const char* what, Lengths... lengths)
        : arena_(exact_arena(model, family, object, what, lengths...)) {
        check_status(session_.init(object, kernels, arena_.data(), arena_.size(), lengths...), model.path);
    }

    Session& session() { return session_; }
    size_t arena_bytes() const { return arena_.size(); }

private:
    template <typename FamilyModel, typename... Lengths>
    static AlignedBuffer exact_arena(const LoadedModel& model, format::Family family, const FamilyModel& object,
                                     const char* what, Lengths... lengths) {
        require_family(model, family);  // before arena_bytes: another family's object is not open
        const size_t bytes = object.arena_bytes(lengths...);
        if (bytes == 0) throw ToolError(std::string(what) + " must be 1.." + std::to_string(kMaxSequenceLength));
        return AlignedBuffer(bytes);
    }

    AlignedBuffer arena_;  // declared first: the session lives in it
    Session session_;
};

}  // namespace ax::tools
