// Errors without exceptions: a code plus a short readable message built in place (no heap, no stdio).
#pragma once
#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ax {

enum class StatusCode : int {
    ok = 0,
    invalid_argument,  // the caller passed something unusable (lengths, null pointers)
    bad_model,         // the model file is malformed, truncated, corrupted or inconsistent
    unsupported,       // a valid file using something this build does not implement
    arena_too_small,   // the caller's arena cannot hold the session
    bad_input,         // input data is unusable (NaN/Inf, wrong shape)
    // The model is not signed by a trusted key: unsigned, signed by another key, or changed after signing
    // (runtime/model_signature.h). 7, as the C API's AUSPEX_BAD_SIGNATURE (6 is its AUSPEX_IN_PROGRESS).
    bad_signature = 7,
};

class Status {
public:
    Status() = default;
    static Status ok() { return Status(); }
    // Starts an error; append details with the chained helpers, e.g.
    //   return Status::error(StatusCode::bad_model, "tensor ").add(name).add(" ends past the file");
    static Status error(StatusCode code, const char* text);

    Status& add(const char* text);
    // Any integer type, in decimal, without a cast at the call: every such type fits int64_t or uint64_t.
    // bool and the character types are not numbers here and do not compile.
    template <typename T,
              typename std::enable_if<std::is_integral<T>::value && !std::is_same<T, bool>::value &&
                                          !std::is_same<T, char>::value && !std::is_same<T, wchar_t>::value &&
                                          !std::is_same<T, char16_t>::value && !std::is_same<T, char32_t>::value,
                                      int>::type = 0>
    Status& add(T value) {
        static_assert(sizeof(T) <= sizeof(uint64_t), "wider than 64 bits");
        if constexpr (std::is_signed<T>::value) {
            // The magnitude of a negative value computed without overflowing on INT64_MIN.
            if (value < 0) return add_decimal(true, static_cast<uint64_t>(-(static_cast<int64_t>(value) + 1)) + 1);
        }
        return add_decimal(false, static_cast<uint64_t>(value));
    }
    // Any floating-point type (float, double), six significant digits. Templates both, so that nothing
    // converts silently between the two kinds (an enum, which would, compiles with neither).
    template <typename T, typename std::enable_if<std::is_floating_point<T>::value, int>::type = 0>
    Status& add(T value) {
        return add_real(static_cast<double>(value));
    }

    bool is_ok() const { return code_ == StatusCode::ok; }
    explicit operator bool() const { return is_ok(); }
    StatusCode code() const { return code_; }
    const char* message() const { return is_ok() ? "ok" : message_; }

private:
    Status& add_decimal(bool negative, uint64_t magnitude);
    Status& add_real(double value);

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
