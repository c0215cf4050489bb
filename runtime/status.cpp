#include "runtime/status.h"

#include <cmath>

namespace ax {

Status Status::error(StatusCode code, const char* text) {
    Status s;
    s.code_ = code;
    s.add(text);
    return s;
}

Status& Status::add(const char* text) {
    // Keep one byte for the terminator; a message that does not fit is cut, never overflowed.
    while (text && *text && length_ + 1 < sizeof(message_)) message_[length_++] = *text++;
    message_[length_] = '\0';
    return *this;
}

Status& Status::add_decimal(bool negative, uint64_t magnitude) {
    char digits[24];
    int n = 0;
    do {
        digits[n++] = static_cast<char>('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    char text[25];
    int length = 0;
    if (negative) text[length++] = '-';
    for (int i = 0; i < n; ++i) text[length++] = digits[n - 1 - i];
    text[length] = '\0';
    return add(text);
}

Status& Status::add_real(double value) {
    // Six significant digits in d.ddddde[-]x form: enough for diagnostics without printf on a microcontroller.
    if (std::isnan(value)) return add("nan");
    if (std::isinf(value)) return add(value < 0 ? "-inf" : "inf");
    if (value < 0) {
        add("-");
        value = -value;
    }
    int exponent = 0;
    if (value != 0.0) {
        while (value >= 10.0) {
            value /= 10;
            ++exponent;
        }
        while (value < 1.0) {
            value *= 10;
            --exponent;
        }
    }
    uint64_t digits = static_cast<uint64_t>(value * 1e5 + 0.5);
    if (digits >= 1000000) {
        digits /= 10;
        ++exponent;
    }
    char text[9];
    text[0] = static_cast<char>('0' + digits / 100000);
    text[1] = '.';
    for (int i = 6; i >= 2; --i) {
        text[i] = static_cast<char>('0' + digits % 10);
        digits /= 10;
    }
    text[7] = '\0';
    add(text);
    if (exponent != 0) {
        add("e");
        add(exponent);
    }
    return *this;
}

}  // namespace ax
