// translate: greedy decoding of a seq2seq model; prints the output ids on one line (--tokens), or the
// translation of each line of text (--text, --text-file) with the model's vocabularies.
#include <cstdio>

#include "tools/cli/text_lines.h"

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
    const Args args(argv, {"tokens", "bos", "eos", "pad", "max-len", "port", "text", "text-file", "output"}, {});
    args.expect_positionals(1, "one seq2seq model (.axm)");
    const auto m = tools::open_model(args.positionals()[0]);
    tools::require_family(*m, format::Family::seq2seq);
    const Seq2Seq& model = m->as<Seq2Seq>();
    const Seq2SeqConfig& c = model.config();
    const bool text = args.has("text") || args.has("text-file");
    if (text == args.has("tokens"))
        throw UsageError{"give --tokens \"IDS\", or --text \"SENTENCE\" / --text-file FILE"};
    const uint32_t bos = token_option(args, "bos", c.bos_id, c.tgt_vocab);
    const uint32_t eos = token_option(args, "eos", c.eos_id, c.tgt_vocab);
    const uint32_t pad = token_option(args, "pad", c.pad_id, c.src_vocab < c.tgt_vocab ? c.src_vocab : c.tgt_vocab);
    if (bos == format::kNoToken) throw UsageError{"the model names no BOS id: give --bos"};
    const Kernels& kernels = choose_kernels(args);
    // --max-len counts generated ids, BOS not included. The default is the translation tutorial's:
    // greedy_decode(max_len = n + 5) counts BOS in its max_len, so it generates at most n + 4 ids.
    const size_t limit = c.max_positions ? c.max_positions : kMaxSequenceLength;
    auto run = [&](const std::vector<int32_t>& src) {
        if (src.empty()) throw tools::ToolError("the source is empty");
        if (src.size() > limit)
            throw tools::ToolError("the source has " + std::to_string(src.size()) + " ids, the model takes " +
                                   std::to_string(limit));
        const size_t max_len = args.get_size("max-len", std::min(src.size() + 4, limit), 1, limit);
        tools::HostSeq2Seq session(*m, kernels, src.size(), max_len);
        session.set_pad_id(pad);
        return session.translate(src, bos, eos, max_len);
    };
    std::vector<std::string> out;
    if (!text) {
        out.push_back(tools::format_token_list(run(tools::parse_token_list(args.require("tokens"), "--tokens"))));
    } else {
        // The tutorial's text_transform: the tokenizer's ids between BOS and EOS; its translate() prints the
        // target tokens without <bos> and <eos>.
        for (const std::string& line : text_lines(args)) {
            std::vector<int32_t> src{static_cast<int32_t>(bos)};
            for (const int32_t id : encode_line(model.src_vocabulary(), line, "source vocabulary")) src.push_back(id);
            if (eos != format::kNoToken) src.push_back(static_cast<int32_t>(eos));
            out.push_back(decode_line(model.tgt_vocabulary(), run(src), "target vocabulary"));
        }
    }
    write_lines(args, out);
    return 0;
}

}  // namespace ax::cli
