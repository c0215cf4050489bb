// translate: greedy decoding of a seq2seq model; prints the output ids on one line.
#include <cstdio>

#include "tools/cli/commands.h"
#include "tools/host/family_sessions.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

namespace {

// A token id option (--bos/--eos/--pad) or the model's own; "none" turns it off.
uint32_t token_option(const Args& args, const std::string& name, uint32_t fallback, size_t vocab) {
    if (!args.has(name)) return fallback;
    if (args.get(name) == "none") return format::kNoToken;
    return static_cast<uint32_t>(args.get_size(name, 0, 0, vocab - 1));
}

}  // namespace

int cmd_translate(const Argv& argv) {
    const Args args(argv, {"tokens", "bos", "eos", "pad", "max-len", "port"}, {});
    args.expect_positionals(1, "one seq2seq model (.axm)");
    const auto m = tools::open_model(args.positionals()[0]);
    tools::require_family(*m, format::Family::seq2seq);
    const Seq2SeqConfig& c = m->as<Seq2Seq>().config();
    const std::vector<int32_t> src = tools::parse_token_list(args.require("tokens"), "--tokens");
    const uint32_t bos = token_option(args, "bos", c.bos_id, c.tgt_vocab);
    const uint32_t eos = token_option(args, "eos", c.eos_id, c.tgt_vocab);
    const uint32_t pad = token_option(args, "pad", c.pad_id, c.src_vocab < c.tgt_vocab ? c.src_vocab : c.tgt_vocab);
    if (bos == format::kNoToken) throw UsageError{"the model names no BOS id: give --bos"};
    // --max-len counts generated ids, BOS not included. The default is the translation tutorial's:
    // greedy_decode(max_len = n + 5) counts BOS in its max_len, so it generates at most n + 4 ids.
    size_t limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    const size_t max_len = args.get_size("max-len", std::min(src.size() + 4, limit), 1, limit);
    tools::HostSeq2Seq session(*m, choose_kernels(args), src.size(), max_len);
    session.set_pad_id(pad);
    std::printf("%s\n", tools::format_token_list(session.translate(src, bos, eos, max_len)).c_str());
    return 0;
}

}  // namespace ax::cli
