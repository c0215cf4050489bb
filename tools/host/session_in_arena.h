// The step every host session of every family starts with: check the model is of the family, ask it for the
// arena its lengths need, allocate exactly that and lay the session out in it. One place, so the four host
// sessions cannot drift apart in how they size, refuse or report. Sessions take the host's threads
// (set_host_threads, the CLI's --threads).
#pragma once
#include <string>

#include "tools/common/aligned_buffer.h"
#include "tools/common/tool_error.h"
#include "tools/host/model_loader.h"
#include "tools/host/thread_pool.h"

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
        : parallel_(host_parallel()), arena_(exact_arena(model, family, what, parallel_.workers, lengths...)) {
        check_status(session_.init(model.as<Model>(), kernels, arena_.data(), arena_.size(), lengths..., parallel_),
                     model.path);
    }

    Session& session() { return session_; }
    size_t arena_bytes() const { return arena_.size(); }

private:
    template <typename... Lengths>
    static AlignedBuffer exact_arena(const LoadedModel& model, format::Family family, const char* what, size_t workers,
                                     Lengths... lengths) {
        require_family(model, family);  // before as<Model>: another family's object is not open
        const size_t bytes = model.as<Model>().arena_bytes(lengths..., workers);
        if (bytes == 0) throw ToolError(std::string(what) + " must be 1.." + std::to_string(kMaxSequenceLength));
        return AlignedBuffer(bytes);
    }

    ParallelFor parallel_;  // the host's threads (--threads), planned into the arena
    AlignedBuffer arena_;   // before the session: the session lives in it
    Session session_;
};

}  // namespace ax::tools
