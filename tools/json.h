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

    // Object lookup; nullptr when absent (or when this is not an object).
    const JsonValue* find(const std::string& key) const;

    static JsonValue make_null();
    static JsonValue make_bool(bool b);
    static JsonValue make_number(double d);
    static JsonValue make_string(std::string s);
    static JsonValue make_array(std::vector<JsonValue> items);
    static JsonValue make_object(std::vector<std::pair<std::string, JsonValue>> members);

private:
    Type type_ = Type::Null;
    bool bool_ = false;
    double number_ = 0.0;
    std::string string_;
    std::vector<JsonValue> array_;
    std::vector<std::pair<std::string, JsonValue>> object_;  // insertion order; duplicate keys refused
};

// Parses a whole document; throws ToolError "<source>:<line>:<col>: <what>" on malformed input.
// Nesting depth is limited (64) so hostile input cannot exhaust the stack.
JsonValue parse_json(const std::string& text, const std::string& source_name);
JsonValue parse_json_file(const std::string& path);

}  // namespace ax::tools
