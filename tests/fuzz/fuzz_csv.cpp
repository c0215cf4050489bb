// Fuzzes the CSV reader (tools/text/csv.cpp) and checks that whatever it accepts writes back and reads back as
// the same table (header names, timestamps and float bit patterns). Bad input must end in a ToolError, nothing else.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

#include "fuzz_support.h"
#include "tools/text/csv.h"
#include "tools/common/tool_error.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace ax::tools;
    const std::string text(reinterpret_cast<const char*>(data), size);
    Table table;
    try {
        table = parse_csv(text, "fuzz.csv");
    } catch (const ToolError&) {
        return 0;
    }
    if (table.rows == 0 || table.cols == 0 || table.values.size() != table.rows * table.cols) __builtin_trap();
    if (!table.header.empty() && table.header.size() != table.cols) __builtin_trap();
    if (!table.times.empty() && table.times.size() != table.rows) __builtin_trap();

    std::string written;
    try {
        written = format_csv(table);
    } catch (const ToolError&) {
        return 0;  // e.g. a header name holding a bare '\r', which a CSV line cannot carry
    }
    Table again;
    try {
        again = parse_csv(written, "rewritten.csv");
    } catch (const ToolError& e) {
        std::fprintf(stderr, "a table the reader accepted does not read back after writing: %s\n", e.what());
        __builtin_trap();
    }
    const bool same = again.rows == table.rows && again.cols == table.cols && again.header == table.header &&
                      again.times == table.times && again.time_name == table.time_name &&
                      std::memcmp(again.values.data(), table.values.data(), table.values.size() * sizeof(float)) == 0;
    if (!same) {
        std::fprintf(stderr, "CSV round trip changed the table\n");
        __builtin_trap();
    }
    return 0;
}
