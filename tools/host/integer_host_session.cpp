#include "tools/host/integer_host_session.h"

#include <string>

#include "ports/generic/integer_generic.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

IntegerForecaster open_integer(const LoadedModel& loaded) {
    IntegerForecaster m;
    check_status(IntegerForecaster::open(loaded.as<Forecaster>(), &m), loaded.path);
    return m;
}

}  // namespace

IntegerHostSession::IntegerHostSession(const LoadedModel& loaded, size_t max_window, size_t max_horizon)
    : model(open_integer(loaded)), arena(model.arena_bytes(max_window, max_horizon)) {
    if (arena.size() == 0) throw ToolError("window and horizon must be 1.." + std::to_string(kMaxSequenceLength));
    check_status(session.init(model, generic_integer_kernels(), arena.data(), arena.size(), max_window, max_horizon),
                 loaded.path);
}

}  // namespace ax::tools
