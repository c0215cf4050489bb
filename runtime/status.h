// Errors without exceptions: a code plus a short readable message built in place (no heap, no stdio).
#pragma once
#include <cstddef>
#include <cstdint>

namespace ax {

enum class StatusCode : int {
    ok = 0,
    invalid_argument,  // the caller passed something unusable (lengths, null pointers)
    bad_model,         // the model file is malformed, truncated, corrupted or inconsistent
    unsupported,       // a valid file using something this build does not implement
    arena_too_small,   // the caller's arena cannot hold the session
    bad_input,         // input data is unusable (NaN/Inf, wrong shape)
};

class Status {
public:
    Status() = default;
    static Status ok() { return Status(); }
    // Starts an error; append details with the chained helpers, e.g.
    //   return Status::error(StatusCode::bad_model, "tensor ").add(name).add(" ends past the file");
    static Status error(StatusCode code, const char* text);

    Status& add(const char* text);
    Status& add(int64_t value);
    Status& add_u(uint64_t value);
    Status& add(double value);

    bool is_ok() const { return code_ == StatusCode::ok; }
    explicit operator bool() const { return is_ok(); }
    StatusCode code() const { return code_; }
    const char* message() const { return is_ok() ? "ok" : message_; }

private:
    StatusCode code_ = StatusCode::ok;
    size_t length_ = 0;
    char message_[160] = {};
};

// Propagates a failed Status to the caller.
#define AX_RETURN_IF_ERROR(expr)                    \
    do {                                            \
        ::ax::Status ax_status_ = (expr);           \
        if (!ax_status_.is_ok()) return ax_status_; \
    } while (0)

}  // namespace ax
