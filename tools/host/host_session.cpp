#include "tools/host/host_session.h"

#include "tools/common/tool_error.h"
#include "tools/host/integer_host_session.h"

namespace ax::tools {

HostSession::HostSession(const LoadedModel& model, const Kernels& kernels, size_t max_window, size_t max_horizon,
                         bool hybrid)
    : model_(model), s_(model, format::Family::forecaster, kernels, "window and horizon", max_window, max_horizon) {
    if (!hybrid && model.as<Forecaster>().integer_plan() != nullptr)
        integer_ = std::make_unique<IntegerHostSession>(model, max_window, max_horizon);
}

HostSession::~HostSession() = default;

size_t HostSession::arena_bytes() const { return integer_ ? integer_->arena.size() : s_.arena_bytes(); }

std::vector<float> HostSession::run(const float* src, size_t src_rows, const float* tgt, size_t tgt_rows,
                                    InputSpace space) {
    const ForecasterConfig& c = model_.as<Forecaster>().config();
    std::vector<float> out(c.output_values(c.run_rows(src_rows, tgt_rows)));
    if (integer_)
        check_status(integer_->session.run(src, src_rows, tgt, tgt_rows, space, out.data()), model_.path);
    else
        check_status(s_.session().run(src, src_rows, tgt, tgt_rows, space, out.data()), model_.path);
    return out;
}

std::vector<float> HostSession::forecast(const float* history, size_t rows, size_t horizon, const float* future,
                                         size_t future_rows) {
    std::vector<float> out(model_.as<Forecaster>().config().output_values(horizon));
    if (integer_)
        check_status(integer_->session.forecast(history, rows, horizon, out.data(), future, future_rows), model_.path);
    else
        check_status(s_.session().forecast(history, rows, horizon, out.data(), future, future_rows), model_.path);
    return out;
}

// The integer mode has one way to forecast (its caches are exact integers: a recompute gives the same bits).
std::vector<float> HostSession::forecast_recompute(const float* history, size_t rows, size_t horizon,
                                                   const float* future, size_t future_rows) {
    if (integer_) return forecast(history, rows, horizon, future, future_rows);
    std::vector<float> out(horizon * model_.as<Forecaster>().config().n_outputs);
    check_status(s_.session().forecast_recompute(history, rows, horizon, out.data(), future, future_rows), model_.path);
    return out;
}

}  // namespace ax::tools
