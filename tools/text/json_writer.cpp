#include "tools/text/json_writer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "tools/common/tool_error.h"

namespace ax::tools {

namespace {

std::string number_text(double d) {
    if (!std::isfinite(d)) throw ToolError("internal error: JSON has no form for a non-finite number");
    if (d == std::floor(d) && std::fabs(d) < 9007199254740992.0) {
        char text[32];
        std::snprintf(text, sizeof text, "%.0f", d);
        return text;
    }
    char text[40];
    for (int digits = 1; digits <= 17; ++digits) {
        std::snprintf(text, sizeof text, "%.*g", digits, d);
        if (std::strtod(text, nullptr) == d) break;
    }
    return text;
}

std::string string_text(const std::string& s) {
    std::string out = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += static_cast<char>(c);
        } else if (c < 0x20) {
            char esc[8];
            std::snprintf(esc, sizeof esc, "\\u%04x", c);
            out += esc;
        } else {
            out += static_cast<char>(c);
        }
    }
    return out + "\"";
}

bool is_scalar(const JsonValue& v) { return !v.is_array() && !v.is_object(); }

void write(const JsonValue& v, int depth, std::string& out) {
    const std::string indent(static_cast<size_t>(depth + 1) * 2, ' ');
    const std::string close_indent(static_cast<size_t>(depth) * 2, ' ');
    switch (v.type()) {
        case JsonValue::Type::Null:
            out += "null";
            break;
        case JsonValue::Type::Bool:
            out += v.as_bool("") ? "true" : "false";
            break;
        case JsonValue::Type::Number: {
            uint64_t exact = 0;
            out += v.exact_u64(&exact) ? std::to_string(exact) : number_text(v.as_number(""));
            break;
        }
        case JsonValue::Type::String:
            out += string_text(v.as_string(""));
            break;
        case JsonValue::Type::Array: {
            const auto& items = v.as_array("");
            bool flat = true;
            for (const JsonValue& item : items) flat = flat && is_scalar(item);
            out += "[";
            for (size_t i = 0; i < items.size(); ++i) {
                out += i ? (flat ? ", " : ",\n" + indent) : (flat ? "" : "\n" + indent);
                write(items[i], depth + 1, out);
            }
            out += flat || items.empty() ? "]" : "\n" + close_indent + "]";
            break;
        }
        case JsonValue::Type::Object: {
            const auto& members = v.as_object("");
            out += "{";
            for (size_t i = 0; i < members.size(); ++i) {
                out += (i ? ",\n" : "\n") + indent + string_text(members[i].first) + ": ";
                write(members[i].second, depth + 1, out);
            }
            out += members.empty() ? "}" : "\n" + close_indent + "}";
            break;
        }
    }
}

}  // namespace

std::string format_json(const JsonValue& value) {
    std::string out;
    write(value, 0, out);
    return out + "\n";
}

}  // namespace ax::tools
