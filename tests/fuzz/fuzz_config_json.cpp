// Fuzzes the JSON reader (tools/text/json.cpp) and the converter's config on top of it
// (tools/import/convert_config.cpp). Bad input must end in a ToolError, nothing else.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz_support.h"
#include "tools/import/convert_config.h"
#include "tools/text/json.h"
#include "tools/common/tool_error.h"

namespace {

// Every accessor on every value, as a config reader might call them.
void walk(const ax::tools::JsonValue& v, int depth) {
    using ax::tools::ToolError;
    if (depth > 80) __builtin_trap();  // the parser promises at most 64 levels
    try {
        ax::fuzz::consume(v.as_bool("b"));
    } catch (const ToolError&) {
    }
    try {
        ax::fuzz::consume(static_cast<uint64_t>(v.as_int("i", -1000000, 1000000)));
    } catch (const ToolError&) {
    }
    try {
        ax::fuzz::consume(static_cast<uint64_t>(v.as_int("i", INT64_MIN, INT64_MAX)));
    } catch (const ToolError&) {
    }
    try {
        ax::fuzz::consume(v.as_string("s").size());
    } catch (const ToolError&) {
    }
    if (v.is_array())
        for (const auto& item : v.as_array("a")) walk(item, depth + 1);
    if (v.is_object()) {
        for (const auto& [key, item] : v.as_object("o")) {
            if (v.find(key) == nullptr) __builtin_trap();
            walk(item, depth + 1);
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ax::tools;
    const std::string text(reinterpret_cast<const char*>(data), size);
    JsonValue root;
    try {
        root = parse_json(text, "fuzz.json");
    } catch (const ToolError&) {
        return 0;
    }
    walk(root, 0);
    try {
        const ConvertConfig config = parse_convert_config(root, "fuzz.json");
        ax::fuzz::consume(static_cast<uint64_t>(config.arch) + static_cast<uint64_t>(config.nhead));
    } catch (const ToolError&) {
    }
    return 0;
}
