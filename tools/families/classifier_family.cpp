// The classifier: token ids in, one row of label scores out (pooled encoder, or a decoder fed a start token).
#include <algorithm>
#include <memory>

#include "tools/common/enum_text.h"
#include "tools/common/tool_error.h"
#include "tools/convert/conversion_check.h"
#include "tools/families/family_common.h"
#include "tools/host/family_sessions.h"
#include "tools/import/classifier_import.h"

namespace ax::tools {

namespace {

const ClassifierConfig& config(const LoadedModel& m) { return m.as<Classifier>().config(); }

std::vector<std::string> inspect_lines(const LoadedModel& m) {
    const ClassifierConfig& c = config(m);
    const std::string fed = c.stack.decoder_layers ? "decoder fed start token " + token_text(c.start_id)
                                                   : "pooling " + enum_text(c.pooling);
    std::vector<std::string> lines{"io:       vocab " + std::to_string(c.vocab) + ", labels " +
                                       std::to_string(c.n_labels) + ", pad " + token_text(c.pad_id) + ", output " +
                                       enum_text(c.output_activation) + ", " + fed,
                                   token_inputs_line(c.positional_encoding, c.max_positions, c.embed_scale)};
    if (m.as<Classifier>().vocabulary().present())
        lines.push_back("vocab:    " + vocabulary_text(m.as<Classifier>().vocabulary()));
    return lines;
}

Workload bench(const LoadedModel& m, const SessionSize& l, const Kernels& k) {
    const ClassifierConfig& c = config(m);
    Workload w;
    auto session = std::make_shared<HostClassifier>(m, k, l.first);
    const std::vector<int32_t> tokens = bench_tokens(l.first, c.vocab, c.pad_id);
    w.forward_label = "classify (" + std::to_string(l.first) + " tokens)";
    w.forward = [=] { session->classify(tokens); };
    w.arena = session->arena_bytes();
    return w;
}

std::vector<float> run_check(const LoadedModel& m, const CheckPair& p, const Kernels& k) {
    size_t max_len = 0;
    for (const auto& seq : p.src_tokens) max_len = std::max(max_len, seq.size());
    expect_shape(p, p.src_tokens.size(), config(m).n_labels, "one row per input sequence");
    HostClassifier session(m, k, max_len);
    std::vector<float> out;
    for (const auto& seq : p.src_tokens) {
        const std::vector<float> row = session.classify(seq);
        out.insert(out.end(), row.begin(), row.end());
    }
    return out;
}

FamilyDescriptor describe() {
    FamilyDescriptor d;
    d.family = format::Family::classifier;
    d.commands = "classify, verify, bench, header";
    d.output_prefix = "label";
    d.import = import_classifier;
    d.search_axes = stack_search_axes;
    d.open = open_as<Classifier>;
    d.lengths[0] = token_length("max-len", "max_len", "MAX_LEN", "input tokens the arena is sized for");
    d.lengths_text = [](const SessionSize& l) { return "inputs up to " + std::to_string(l.first) + " tokens"; };
    d.arena_bytes = [](const LoadedModel& m, const SessionSize& l) { return m.as<Classifier>().arena_bytes(l.first); };
    d.inspect_lines = inspect_lines;
    d.inspect_arena = [](const LoadedModel& m, const SessionSize& l, MemoryPlan* plan) {
        return one_length_arena(m.as<Classifier>(), plan_classifier_arena, l.first, position_limit(m), "input",
                                "tokens", plan);
    };
    d.header_macros = [](const LoadedModel& m) -> std::vector<HeaderMacro> {
        std::vector<HeaderMacro> macros{macro("VOCAB", config(m).vocab, "token ids are 0..VOCAB-1"),
                                        macro("N_LABELS", config(m).n_labels, "outputs per input")};
        add_vocabulary_macros(macros, m.as<Classifier>().vocabulary(), "");
        return macros;
    };
    d.bench = bench;
    d.read_check_inputs = [](const CheckFiles& files, CheckPair* p) {
        refuse_second_input(files, "classifier");
        p->src_tokens = read_token_lines(files.input, files.input_option);
    };
    d.run_check = run_check;
    d.output_cols = [](const LoadedModel& m) { return config(m).n_labels; };
    return d;
}

}  // namespace

const FamilyDescriptor& classifier_family() {
    static const FamilyDescriptor d = describe();
    return d;
}

}  // namespace ax::tools
