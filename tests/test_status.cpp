// Status messages: integers of every type and floating-point values are appended without casts at the call.
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>

#include "runtime/status.h"

namespace {

using ax::Status;
using ax::StatusCode;

template <typename T, typename = void>
struct appendable : std::false_type {};
template <typename T>
struct appendable<T, decltype(void(std::declval<Status&>().add(std::declval<T>())))> : std::true_type {};

enum Unscoped { unscoped_one = 1 };

std::string message_of(const Status& s) { return s.message(); }

}  // namespace

TEST_CASE("status: every integer type is appended in decimal") {
    Status s = Status::error(StatusCode::bad_model, "");
    s.add(int8_t{-128}).add(" ").add(uint8_t{255}).add(" ").add(int16_t{-300}).add(" ").add(uint16_t{65535});
    s.add(" ").add(-7).add(" ").add(7u).add(" ").add(size_t{123456789}).add(" ").add(uint32_t{4294967295u});
    s.add(" ").add(std::numeric_limits<int64_t>::min()).add(" ").add(std::numeric_limits<uint64_t>::max());
    s.add(" ").add(0).add(" ").add(-1L).add(" ").add(42LL);
    CHECK(message_of(s) ==
          "-128 255 -300 65535 -7 7 123456789 4294967295 -9223372036854775808 18446744073709551615 0 -1 42");
}

TEST_CASE("status: floating-point values and what does not compile") {
    Status s = Status::error(StatusCode::bad_input, "");
    s.add(1.5f).add(" ").add(-0.000123).add(" ").add(0.0);
    CHECK(message_of(s) == "1.50000 -1.23000e-4 0.00000");
    static_assert(appendable<unsigned long long>::value && appendable<signed char>::value, "integers");
    static_assert(appendable<float>::value && appendable<const char*>::value, "floats and text");
    static_assert(!appendable<bool>::value && !appendable<char>::value && !appendable<Unscoped>::value,
                  "bool, char and enums are not numbers to a message");
}
