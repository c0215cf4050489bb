// The seq2seq model: source tokens in, logits per target token (teacher-forced) or a greedy translation out.
#include <algorithm>
#include <memory>

#include "tools/common/tool_error.h"
#include "tools/convert/conversion_check.h"
#include "tools/families/family_common.h"
#include "tools/host/family_sessions.h"
#include "tools/import/seq2seq_import.h"

namespace ax::tools {

namespace {

const Seq2SeqConfig& config(const LoadedModel& m) { return m.as<Seq2Seq>().config(); }

std::vector<std::string> inspect_lines(const LoadedModel& m) {
    const Seq2SeqConfig& c = config(m);
    std::vector<std::string> lines{"io:       src_vocab " + std::to_string(c.src_vocab) + ", tgt_vocab " +
                                       std::to_string(c.tgt_vocab) + ", pad " + token_text(c.pad_id) + ", bos " +
                                       token_text(c.bos_id) + ", eos " + token_text(c.eos_id) + ", decode_mask_pads " +
                                       (c.decode_mask_pads ? "true" : "false"),
                                   token_inputs_line(c.positional_encoding, c.max_positions, c.embed_scale)};
    const Seq2Seq& s = m.as<Seq2Seq>();
    if (s.src_vocabulary().present() || s.tgt_vocabulary().present())
        lines.push_back("vocab:    source " + vocabulary_text(s.src_vocabulary()) + "; target " +
                        vocabulary_text(s.tgt_vocabulary()));
    return lines;
}

ArenaFacts inspect_arena(const LoadedModel& m, const SessionSize& l, MemoryPlan* plan) {
    const Seq2SeqConfig& c = config(m);
    const size_t src = l.first, tgt = l.second;
    plan_seq2seq_arena(c, src, tgt, plan);
    ArenaFacts a;
    a.lengths = "source " + std::to_string(src) + ", target " + std::to_string(tgt) + " tokens";
    a.longest = "source for target " + std::to_string(tgt);
    a.longest_limit = position_limit(m);
    a.arena_for = arena_for(c, plan_seq2seq_arena, tgt);
    a.line = std::to_string(m.as<Seq2Seq>().arena_bytes(src, tgt)) + " bytes for source " + std::to_string(src) +
             " tokens, target/max-len " + std::to_string(tgt) + " (set with --src-len, --tgt-len)";
    return a;
}

Workload bench(const LoadedModel& m, const SessionSize& l, const Kernels& k) {
    const Seq2SeqConfig& c = config(m);
    Workload w;
    auto session = std::make_shared<HostSeq2Seq>(m, k, l.first, l.second);
    const std::vector<int32_t> src = bench_tokens(l.first, c.src_vocab, c.pad_id),
                               tgt = bench_tokens(l.second, c.tgt_vocab, c.pad_id);
    const size_t max_len = l.second;
    w.forward_label = "forward (teacher-forced, " + std::to_string(l.second) + " target tokens)";
    w.forward = [=] { session->run(src, tgt); };
    // No EOS: every step of max_len is decoded, whatever the model predicts.
    const uint32_t bos = c.bos_id == format::kNoToken ? 0 : c.bos_id;
    w.steps_label = "translate (" + std::to_string(max_len) + " greedy steps, KV cache)";
    w.steps_json = "translate_ms";
    w.steps = [=] { session->translate(src, bos, format::kNoToken, max_len); };
    w.arena = session->arena_bytes();
    return w;
}

void read_check_inputs(const CheckFiles& files, CheckPair* p) {
    if (files.target.empty())
        throw ToolError("a seq2seq check needs --check-target: the target tokens of forward(src, tgt)");
    p->src_tokens = read_token_lines(files.input, files.input_option);
    p->tgt_tokens = read_token_lines(files.target, files.target_option);
}

std::vector<float> run_check(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    if (p.src_tokens.size() != p.tgt_tokens.size())
        throw ToolError("check input has " + std::to_string(p.src_tokens.size()) + " source sequence(s), the target " +
                        std::to_string(p.tgt_tokens.size()) + ": they go in pairs, one per line");
    size_t max_src = 0, max_tgt = 0, rows = 0;
    for (size_t i = 0; i < p.src_tokens.size(); ++i) {
        max_src = std::max(max_src, p.src_tokens[i].size());
        max_tgt = std::max(max_tgt, p.tgt_tokens[i].size());
        rows += p.tgt_tokens[i].size();
    }
    expect_shape(p, rows, config(m).tgt_vocab, "one row of logits per target token");
    HostSeq2Seq session(m, k, max_src, max_tgt);
    std::vector<float> out;
    for (size_t i = 0; i < p.src_tokens.size(); ++i) {
        const std::vector<float> logits = session.run(p.src_tokens[i], p.tgt_tokens[i]);
        out.insert(out.end(), logits.begin(), logits.end());
    }
    return out;
}

// Greedy translations of every source line by both models: how many are the same ids.
std::string compare_translations(const LoadedModel& a, const LoadedModel& b, const CheckPair& pair, const Kernels& k) {
    const Seq2SeqConfig& c = config(a);
    if (c.bos_id == format::kNoToken) return "greedy translations: not compared (the model names no BOS id)";
    const size_t limit = position_limit(a);
    size_t same = 0;
    for (const std::vector<int32_t>& src : pair.src_tokens) {
        // translate's default length: at most n + 4 generated ids.
        const size_t max_len = std::min(src.size() + 4, limit);
        HostSeq2Seq sa(a, k, src.size(), max_len), sb(b, k, src.size(), max_len);
        sa.set_pad_id(c.pad_id);
        sb.set_pad_id(config(b).pad_id);
        same += sa.translate(src, c.bos_id, c.eos_id, max_len) == sb.translate(src, c.bos_id, c.eos_id, max_len);
    }
    return "greedy translations: " + std::to_string(same) + " of " + std::to_string(pair.src_tokens.size()) +
           " the same ids";
}

FamilyDescriptor describe() {
    FamilyDescriptor d;
    d.family = format::Family::seq2seq;
    d.commands = "translate, run, verify, bench, header";
    d.output_prefix = "logit";
    d.import = import_seq2seq;
    d.search_axes = stack_search_axes;
    d.open = open_as<Seq2Seq>;
    d.lengths[0] = token_length("src-len", "src_len", "MAX_SRC_LEN", "source tokens the arena is sized for");
    d.lengths[1] =
        token_length("tgt-len", "tgt_len", "MAX_TGT_LEN", "target tokens (or generated ids) the arena is sized for");
    d.lengths_text = [](const SessionSize& l) {
        return "source " + std::to_string(l.first) + ", target " + std::to_string(l.second) + " tokens";
    };
    d.arena_bytes = [](const LoadedModel& m, const SessionSize& l) {
        return m.as<Seq2Seq>().arena_bytes(l.first, l.second);
    };
    d.inspect_lines = inspect_lines;
    d.inspect_arena = inspect_arena;
    d.header_macros = [](const LoadedModel& m) -> std::vector<HeaderMacro> {
        std::vector<HeaderMacro> macros{macro("SRC_VOCAB", config(m).src_vocab, "source token ids are 0..SRC_VOCAB-1"),
                                        macro("TGT_VOCAB", config(m).tgt_vocab, "logits per target token")};
        add_vocabulary_macros(macros, m.as<Seq2Seq>().src_vocabulary(), "SRC_");
        return macros;
    };
    d.bench = bench;
    d.check_target = "the target token lines of forward(src, tgt)";
    d.read_check_inputs = read_check_inputs;
    d.run_check = run_check;
    d.output_cols = [](const LoadedModel& m) { return config(m).tgt_vocab; };
    d.compare_line = compare_translations;
    return d;
}

}  // namespace

const FamilyDescriptor& seq2seq_family() {
    static const FamilyDescriptor d = describe();
    return d;
}

}  // namespace ax::tools
