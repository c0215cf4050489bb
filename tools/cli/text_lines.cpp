#include "tools/cli/text_lines.h"

#include <cstdio>
#include <fstream>
#include <iterator>

#include "runtime/tokenizer.h"
#include "tools/common/file_io.h"
#include "tools/common/split_text.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

namespace {

void require_vocabulary(const Vocabulary& v, const char* what) {
    if (!v.present())
        throw tools::ToolError(std::string("the model stores no ") + what +
                               ": convert it with --vocab FILE (a translator: --src-vocab and --tgt-vocab), or give "
                               "--tokens");
}

}  // namespace

std::vector<std::string> text_lines(const Args& args) {
    if (args.has("text") && args.has("text-file")) throw UsageError{"--text or --text-file, not both"};
    if (args.has("text")) return {args.get("text")};
    const std::string path = args.get("text-file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw tools::ToolError(path + ": cannot open the text file");
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::vector<std::string> lines = tools::split_lines(all);
    if (lines.empty()) throw tools::ToolError(path + ": no lines to read");
    return lines;
}

std::vector<int32_t> encode_line(const Vocabulary& v, const std::string& line, const char* what) {
    require_vocabulary(v, what);
    std::vector<uint8_t> scratch(encode_scratch_bytes(v, line.size()));
    std::vector<int32_t> ids(encode_max_ids(v, line.size()) + 1);
    size_t n = 0;
    const Status s =
        encode_text(v, line.data(), line.size(), scratch.data(), scratch.size(), ids.data(), ids.size(), &n);
    if (!s.is_ok()) throw tools::ToolError(std::string(what) + ": " + s.message());
    ids.resize(n);
    return ids;
}

std::string decode_line(const Vocabulary& v, const std::vector<int32_t>& ids, const char* what) {
    require_vocabulary(v, what);
    size_t n = 0;
    decode_ids(v, ids.data(), ids.size(), nullptr, 0, &n);
    std::string out(n, '\0');
    const Status s = decode_ids(v, ids.data(), ids.size(), out.data(), out.size(), &n);
    if (!s.is_ok()) throw tools::ToolError(std::string(what) + ": " + s.message());
    return out;
}

void write_lines(const Args& args, const std::vector<std::string>& lines) {
    std::string all;
    for (const std::string& l : lines) all += l + "\n";
    if (args.has("output")) {
        tools::write_file_atomic(args.get("output"), all);
        return;
    }
    std::fputs(all.c_str(), stdout);
}

}  // namespace ax::cli
