// The step every host session of every family starts with: check the model is of the family, ask it for the
// arena its lengths need, allocate exactly that and lay the session out in it. One place, so the four host
// sessions cannot drift apart in how they size, refuse or report.
#pragma once
#include <string>

#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/host/model_loader.h"

namespace ax::tools {

// `Model` is the family's model class (Forecaster, Seq2Seq, ...) and `Session` its session.
template <typename Session, typename Model>
class SessionInArena {
public:
    // `lengths` are the session's maximum lengths as the family's arena_bytes and init take them; `what`
    // names them for the error when they are out of range ("window and horizon").
    template <typename... Lengths>
    SessionInArena(const LoadedModel& model, format::Family family, const Kernels& kernels, const char* what,
                   Lengths... lengths)
        : arena_(exact_arena(model, family, what, lengths...)) {
        check_status(session_.init(model.as<Model>(), kernels, arena_.data(), arena_.size(), lengths...), model.path);
    }

    Session& session() { return session_; }
    size_t arena_bytes() const { return arena_.size(); }

private:
    template <typename... Lengths>
    static AlignedBuffer exact_arena(const LoadedModel& model, format::Family family, const char* what,
                                     Lengths... lengths) {
        require_family(model, family);  // before as<Model>: another family's object is not open
        const size_t bytes = model.as<Model>().arena_bytes(lengths...);
        if (bytes == 0) throw ToolError(std::string(what) + " must be 1.." + std::to_string(kMaxSequenceLength));
        return AlignedBuffer(bytes);
    }

    AlignedBuffer arena_;  // declared first: the session lives in it
    Session session_;
};

}  // namespace ax::tools
