// A small strict JSON reader (RFC 8259) for config files and rename maps. Errors name line and column.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ax::tools {

class JsonValue {
public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::Null; }
    bool is_bool() const { return type_ == Type::Bool; }
    bool is_number() const { return type_ == Type::Number; }
    bool is_string() const { return type_ == Type::String; }
    bool is_array() const { return type_ == Type::Array; }
    bool is_object() const { return type_ == Type::Object; }

    // Accessors throw ToolError("<context>: expected a number, found a string") on a type mismatch.
    bool as_bool(const std::string& context) const;
    double as_number(const std::string& context) const;
    // A number that must be an exact integer within [lo, hi].
    int64_t as_int(const std::string& context, int64_t lo, int64_t hi) const;
    const std::string& as_string(const std::string& context) const;
    const std::vector<JsonValue>& as_array(const std::string& context) const;
    const std::vector<std::pair<std::string, JsonValue>>& as_object(const std::string& context) const;

    // A number written as a plain non-negative integer that fits in 64 bits (no sign, fraction or exponent):
    // true, with its exact value, which a double cannot hold above 2^53 (safetensors byte offsets).
    bool exact_u64(uint64_t* out) const;

    // Object lookup; nullptr when absent (or when this is not an object).
    const JsonValue* find(const std::string& key) const;

    static JsonValue make_null();
    static JsonValue make_bool(bool b);
    static JsonValue make_number(double d);
    static JsonValue make_integer(uint64_t n);  // a number that also keeps its exact value
    static JsonValue make_string(std::string s);
    static JsonValue make_array(std::vector<JsonValue> items);
    static JsonValue make_object(std::vector<std::pair<std::string, JsonValue>> members);

private:
    Type type_ = Type::Null;
    bool bool_ = false;
    double number_ = 0.0;
    bool has_u64_ = false;
    uint64_t u64_ = 0;
    std::string string_;
    std::vector<JsonValue> array_;
    std::vector<std::pair<std::string, JsonValue>> object_;  // insertion order; duplicate keys refused
};

// Bounds on what a document may hold, so hostile input can exhaust neither the stack nor memory.
struct JsonLimits {
    size_t max_bytes = size_t{16} << 20;
    int max_depth = 64;
    size_t max_values = SIZE_MAX;  // values of any kind, containers included
};

// Parses a whole document; throws ToolError "<source>:<line>:<col>: <what>" on malformed input or input
// beyond the limits.
JsonValue parse_json(const std::string& text, const std::string& source_name, const JsonLimits& limits = {});
JsonValue parse_json_file(const std::string& path);

}  // namespace ax::tools
