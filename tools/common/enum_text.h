// The format enums as text in the tools (configs, options, inspect, messages). The names themselves live in
// one place, the tables next to each enum in runtime/format.h.
#pragma once
#include <string>

#include "runtime/format.h"
#include "tools/common/tool_error.h"

namespace ax::tools {

// "\"a\", \"b\", \"c\"": every spelling a value of E may take, for messages.
template <typename E>
std::string enum_choices() {
    std::string list;
    for (const format::EnumName<E>& row : format::names_of(E{}))
        list += (list.empty() ? "\"" : ", \"") + std::string(row.name) + "\"";
    return list;
}

// The value named `text`, or a ToolError "<context>: "<text>" is not one of <choices>".
template <typename E>
E parse_enum_text(const std::string& text, const std::string& context) {
    E value{};
    if (!format::parse_enum(text.c_str(), &value))
        throw ToolError(context + ": \"" + text + "\" is not one of " + enum_choices<E>());
    return value;
}

// The value's name, or "?" for a number that names nothing.
template <typename E>
std::string enum_text(E value) {
    const char* name = format::enum_name(value);
    return name ? name : "?";
}

}  // namespace ax::tools
