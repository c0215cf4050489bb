#include "tools/text/json.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <set>
#include <system_error>

#include "tools/common/tool_error.h"
#include "tools/text/utf8.h"

namespace ax::tools {
namespace {

const char* type_name(JsonValue::Type type) {
    switch (type) {
        case JsonValue::Type::Null:
            return "null";
        case JsonValue::Type::Bool:
            return "a boolean";
        case JsonValue::Type::Number:
            return "a number";
        case JsonValue::Type::String:
            return "a string";
        case JsonValue::Type::Array:
            return "an array";
        case JsonValue::Type::Object:
            return "an object";
    }
    return "an unknown value";
}

[[noreturn]] void type_mismatch(const std::string& context, const char* expected, JsonValue::Type found) {
    throw ToolError(context + ": expected " + expected + ", found " + type_name(found));
}

// Shortest text that reads back as the same double, independent of the C locale.
std::string format_number(double d) {
    char buf[32];
    auto res = std::to_chars(buf, buf + sizeof buf, d);
    return std::string(buf, res.ptr);
}

// Keys end up in one-line error messages, so control characters are escaped and long keys shortened.
std::string quote_for_message(const std::string& s) {
    constexpr size_t kMaxShown = 40;
    std::string out = "\"";
    for (size_t i = 0; i < s.size() && i < kMaxShown; ++i) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x20 || c == 0x7F) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", c);
            out += buf;
        } else {
            out += static_cast<char>(c);
        }
    }
    if (s.size() > kMaxShown) out += "...";
    return out + "\"";
}

class Parser {
public:
    Parser(const std::string& text, const std::string& source, const JsonLimits& limits)
        : text_(text), source_(source), limits_(limits) {}

    JsonValue parse_document() {
        // RFC 8259 lets a parser ignore a byte order mark; Windows editors like to add one.
        if (text_.compare(0, 3, "\xEF\xBB\xBF") == 0) pos_ = 3;
        skip_whitespace();
        JsonValue value = parse_value(0);
        skip_whitespace();
        if (pos_ < text_.size()) fail("unexpected " + describe_current() + " after the JSON value");
        return value;
    }

private:
    const std::string& text_;
    const std::string& source_;
    const JsonLimits& limits_;
    size_t pos_ = 0;
    size_t values_ = 0;

    [[noreturn]] void fail(const std::string& what) const { fail_at(pos_, what); }

    [[noreturn]] void fail_at(size_t where, const std::string& what) const {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < where && i < text_.size(); ++i) {
            unsigned char c = static_cast<unsigned char>(text_[i]);
            if (c == '\n') {
                ++line;
                col = 1;
            } else if ((c & 0xC0) != 0x80) {  // columns count characters, not UTF-8 continuation bytes
                ++col;
            }
        }
        throw ToolError(source_ + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
    }

    std::string describe_current() const {
        if (pos_ >= text_.size()) return "end of input";
        unsigned char c = static_cast<unsigned char>(text_[pos_]);
        if (c > 0x20 && c < 0x7F) return std::string("character '") + static_cast<char>(c) + "'";
        char buf[16];
        std::snprintf(buf, sizeof buf, "byte 0x%02X", c);
        return buf;
    }

    bool at_end() const { return pos_ >= text_.size(); }
    char peek() const { return at_end() ? '\0' : text_[pos_]; }

    void skip_whitespace() {
        while (!at_end() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
    }

    void expect(char c, const char* what) {
        if (peek() != c) fail(std::string("expected ") + what + ", found " + describe_current());
        ++pos_;
    }

    JsonValue parse_value(int depth) {
        if (++values_ > limits_.max_values)
            fail("too many values (more than " + std::to_string(limits_.max_values) + ")");
        switch (peek()) {
            case '{':
                return parse_object(depth + 1);
            case '[':
                return parse_array(depth + 1);
            case '"':
                return JsonValue::make_string(parse_string());
            case 't':
                parse_literal("true");
                return JsonValue::make_bool(true);
            case 'f':
                parse_literal("false");
                return JsonValue::make_bool(false);
            case 'n':
                parse_literal("null");
                return JsonValue::make_null();
            default:
                break;
        }
        if (peek() == '-' || (peek() >= '0' && peek() <= '9')) return parse_number();
        fail("expected a value, found " + describe_current());
    }

    void parse_literal(const char* word) {
        size_t len = std::strlen(word);
        if (text_.compare(pos_, len, word) != 0) fail(std::string("invalid literal, expected '") + word + "'");
        pos_ += len;
    }

    void enter(int depth) const {
        if (depth > limits_.max_depth) fail("nesting deeper than " + std::to_string(limits_.max_depth) + " levels");
    }

    JsonValue parse_array(int depth) {
        enter(depth);
        ++pos_;  // '['
        std::vector<JsonValue> items;
        skip_whitespace();
        if (peek() == ']') {
            ++pos_;
            return JsonValue::make_array(std::move(items));
        }
        for (;;) {
            skip_whitespace();
            items.push_back(parse_value(depth));
            skip_whitespace();
            if (peek() == ']') break;
            expect(',', "',' or ']' in array");
        }
        ++pos_;
        return JsonValue::make_array(std::move(items));
    }

    JsonValue parse_object(int depth) {
        enter(depth);
        ++pos_;  // '{'
        std::vector<std::pair<std::string, JsonValue>> members;
        std::set<std::string> seen;  // keeps duplicate detection O(log n) for large hostile objects
        skip_whitespace();
        if (peek() == '}') {
            ++pos_;
            return JsonValue::make_object(std::move(members));
        }
        for (;;) {
            skip_whitespace();
            if (peek() != '"') fail("expected a string key, found " + describe_current());
            size_t key_pos = pos_;
            std::string key = parse_string();
            if (!seen.insert(key).second) fail_at(key_pos, "duplicate key " + quote_for_message(key));
            skip_whitespace();
            expect(':', "':' after object key");
            skip_whitespace();
            members.emplace_back(std::move(key), parse_value(depth));
            skip_whitespace();
            if (peek() == '}') break;
            expect(',', "',' or '}' in object");
        }
        ++pos_;
        return JsonValue::make_object(std::move(members));
    }

    std::string parse_string() {
        ++pos_;  // opening quote
        std::string out;
        for (;;) {
            if (at_end()) fail("unterminated string");
            unsigned char c = static_cast<unsigned char>(text_[pos_]);
            if (c == '"') {
                ++pos_;
                return out;
            }
            if (c == '\\') {
                parse_escape(out);
            } else if (c < 0x20) {
                fail("unescaped control character (" + describe_current() + ") in string");
            } else {
                size_t len = utf8_sequence_length(text_, pos_);
                if (len == 0) fail("invalid UTF-8 in string");
                out.append(text_, pos_, len);
                pos_ += len;
            }
        }
    }

    void parse_escape(std::string& out) {
        ++pos_;  // backslash
        if (at_end()) fail("unterminated string");
        char e = text_[pos_++];
        switch (e) {
            case '"':
                out += '"';
                return;
            case '\\':
                out += '\\';
                return;
            case '/':
                out += '/';
                return;
            case 'b':
                out += '\b';
                return;
            case 'f':
                out += '\f';
                return;
            case 'n':
                out += '\n';
                return;
            case 'r':
                out += '\r';
                return;
            case 't':
                out += '\t';
                return;
            case 'u':
                break;
            default:
                --pos_;
                fail("invalid escape: backslash followed by " + describe_current());
        }
        size_t escape_pos = pos_ - 2;
        uint32_t cp = parse_hex4();
        if (cp >= 0xDC00 && cp <= 0xDFFF) fail_at(escape_pos, "lone low surrogate \\u" + hex4(cp));
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (text_.compare(pos_, 2, "\\u") != 0)
                fail_at(escape_pos, "high surrogate \\u" + hex4(cp) + " not followed by a low surrogate");
            pos_ += 2;
            uint32_t low = parse_hex4();
            if (low < 0xDC00 || low > 0xDFFF)
                fail_at(escape_pos, "high surrogate \\u" + hex4(cp) + " not followed by a low surrogate");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, cp);
    }

    static std::string hex4(uint32_t v) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "%04X", static_cast<unsigned>(v & 0xFFFF));
        return buf;
    }

    uint32_t parse_hex4() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) {
            char c = peek();
            uint32_t digit;
            if (c >= '0' && c <= '9')
                digit = static_cast<uint32_t>(c - '0');
            else if (c >= 'a' && c <= 'f')
                digit = static_cast<uint32_t>(c - 'a' + 10);
            else if (c >= 'A' && c <= 'F')
                digit = static_cast<uint32_t>(c - 'A' + 10);
            else
                fail("expected 4 hex digits after \\u");
            v = v * 16 + digit;
            ++pos_;
        }
        return v;
    }

    bool digit_here() const { return !at_end() && peek() >= '0' && peek() <= '9'; }

    void skip_digits(const char* after) {
        if (!digit_here()) fail(std::string("expected a digit ") + after + ", found " + describe_current());
        while (digit_here()) ++pos_;
    }

    // Checks the RFC grammar itself, because from_chars also takes forms JSON forbids ("1.", ".5", "inf").
    JsonValue parse_number() {
        size_t start = pos_;
        if (peek() == '-') ++pos_;
        if (peek() == '0') {
            ++pos_;
            if (digit_here()) fail("leading zeros are not allowed in numbers");
        } else {
            skip_digits("in number");
        }
        if (peek() == '.') {
            ++pos_;
            skip_digits("after the decimal point");
        }
        if (peek() == 'e' || peek() == 'E') {
            ++pos_;
            if (peek() == '+' || peek() == '-') ++pos_;
            skip_digits("in the exponent");
        }
        double d = 0.0;
        auto res = std::from_chars(text_.data() + start, text_.data() + pos_, d);
        if (res.ec == std::errc::result_out_of_range)
            fail_at(start, "number " + text_.substr(start, pos_ - start) + " is out of double range");
        if (res.ec != std::errc() || res.ptr != text_.data() + pos_) fail_at(start, "malformed number");
        uint64_t n = 0;
        const char* digits_end = text_.data() + pos_;
        auto exact = std::from_chars(text_.data() + start, digits_end, n);
        if (exact.ec == std::errc() && exact.ptr == digits_end) return JsonValue::make_integer(n);
        return JsonValue::make_number(d);
    }
};

}  // namespace

bool JsonValue::as_bool(const std::string& context) const {
    if (type_ != Type::Bool) type_mismatch(context, "a boolean", type_);
    return bool_;
}

double JsonValue::as_number(const std::string& context) const {
    if (type_ != Type::Number) type_mismatch(context, "a number", type_);
    return number_;
}

int64_t JsonValue::as_int(const std::string& context, int64_t lo, int64_t hi) const {
    double d = as_number(context);
    if (std::trunc(d) != d) throw ToolError(context + ": expected an integer, found " + format_number(d));
    // 2^63 bounds are exact doubles; checking them first keeps the cast to int64_t defined.
    constexpr double kTwo63 = 9223372036854775808.0;
    bool fits = d >= -kTwo63 && d < kTwo63;
    int64_t v = fits ? static_cast<int64_t>(d) : 0;
    if (!fits || v < lo || v > hi) {
        throw ToolError(context + ": " + format_number(d) + " is out of range [" + std::to_string(lo) + ", " +
                        std::to_string(hi) + "]");
    }
    return v;
}

bool JsonValue::exact_u64(uint64_t* out) const {
    if (!has_u64_) return false;
    *out = u64_;
    return true;
}

const std::string& JsonValue::as_string(const std::string& context) const {
    if (type_ != Type::String) type_mismatch(context, "a string", type_);
    return string_;
}

const std::vector<JsonValue>& JsonValue::as_array(const std::string& context) const {
    if (type_ != Type::Array) type_mismatch(context, "an array", type_);
    return array_;
}

const std::vector<std::pair<std::string, JsonValue>>& JsonValue::as_object(const std::string& context) const {
    if (type_ != Type::Object) type_mismatch(context, "an object", type_);
    return object_;
}

const JsonValue* JsonValue::find(const std::string& key) const {
    for (const auto& member : object_)
        if (member.first == key) return &member.second;
    return nullptr;
}

JsonValue JsonValue::make_null() { return JsonValue(); }

JsonValue JsonValue::make_bool(bool b) {
    JsonValue v;
    v.type_ = Type::Bool;
    v.bool_ = b;
    return v;
}

JsonValue JsonValue::make_number(double d) {
    JsonValue v;
    v.type_ = Type::Number;
    v.number_ = d;
    return v;
}

JsonValue JsonValue::make_integer(uint64_t n) {
    JsonValue v = make_number(static_cast<double>(n));
    v.has_u64_ = true;
    v.u64_ = n;
    return v;
}

JsonValue JsonValue::make_string(std::string s) {
    JsonValue v;
    v.type_ = Type::String;
    v.string_ = std::move(s);
    return v;
}

JsonValue JsonValue::make_array(std::vector<JsonValue> items) {
    JsonValue v;
    v.type_ = Type::Array;
    v.array_ = std::move(items);
    return v;
}

JsonValue JsonValue::make_object(std::vector<std::pair<std::string, JsonValue>> members) {
    JsonValue v;
    v.type_ = Type::Object;
    v.object_ = std::move(members);
    return v;
}

JsonValue parse_json(const std::string& text, const std::string& source_name, const JsonLimits& limits) {
    if (text.size() > limits.max_bytes) {
        throw ToolError(source_name + ": input is larger than the " + std::to_string(limits.max_bytes >> 20) +
                        " MiB limit for JSON");
    }
    return Parser(text, source_name, limits).parse_document();
}

JsonValue parse_json_file(const std::string& path) {
    std::FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) throw ToolError("cannot open '" + path + "': " + std::strerror(errno));
    // Reads at most one byte past the limit so an oversized file is refused without loading all of it.
    std::string text;
    char buf[65536];
    size_t n;
    while (text.size() <= JsonLimits{}.max_bytes && (n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
    bool failed = std::ferror(f) != 0;
    int read_errno = errno;
    std::fclose(f);
    if (failed) throw ToolError("cannot read '" + path + "': " + std::strerror(read_errno));
    return parse_json(text, path);
}

}  // namespace ax::tools
