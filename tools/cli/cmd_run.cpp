
#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/cli/known_inputs.h"
#include "tools/host/column_names.h"
#include "tools/text/csv.h"
#include "tools/host/family_sessions.h"
#include "tools/host/host_session.h"
#include "tools/common/tool_error.h"

namespace ax::cli {

namespace {

// seq2seq: one teacher-forced pass over --src-tokens and --tgt-tokens; one row of logits per target token.
int run_seq2seq(const Args& args, const tools::LoadedModel& m) {
    if (args.has("src") || args.has("tgt") || args.has("model-space"))
        throw UsageError{"a seq2seq model takes --src-tokens and --tgt-tokens (not --src/--tgt CSV files)"};
    const Seq2SeqConfig& c = m.as<Seq2Seq>().config();
    const std::vector<int32_t> src = tools::parse_token_list(args.require("src-tokens"), "--src-tokens");
    const std::vector<int32_t> tgt = tools::parse_token_list(args.require("tgt-tokens"), "--tgt-tokens");
    tools::HostSeq2Seq session(m, choose_kernels(args), src.size(), tgt.size());
    if (args.has("pad"))
        session.set_pad_id(args.get("pad") == "none"
                               ? format::kNoToken
                               : static_cast<uint32_t>(args.get_size("pad", 0, 0, kMaxModelWidth)));
    tools::Table out;
    out.rows = tgt.size();
    out.cols = c.tgt_vocab;
    out.values = session.run(src, tgt);
    out.header = numbered_names(output_prefix(format::Family::seq2seq), c.tgt_vocab);
    write_output(args, out);
    return 0;
}

}  // namespace

int cmd_run(const Argv& argv) {
    if (is_onnx_command(argv)) return cmd_run_onnx(argv);
    const Args args(argv,
                    with_csv_options({"src", "tgt", "output", "port", "threads", "src-tokens", "tgt-tokens", "pad"}),
                    {"model-space"});
    args.expect_positionals(1, "one model (.axm)");
    choose_threads(args);
    const auto m = tools::open_model(args.positionals()[0]);
    if (m->family == format::Family::seq2seq) return run_seq2seq(args, *m);
    tools::require_family(*m, format::Family::forecaster);
    if (args.has("src-tokens") || args.has("tgt-tokens") || args.has("pad"))
        throw UsageError{"--src-tokens, --tgt-tokens and --pad are for seq2seq models"};
    const ForecasterConfig& c = m->as<Forecaster>().config();
    const std::vector<std::string> features = tools::feature_names(m->file);
    // The decoder's rows hold its own columns (the outputs, inputs known ahead), picked from tgt by name.
    std::vector<size_t> all(c.n_features), decoder(c.decoder_features);
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    for (size_t j = 0; j < decoder.size(); ++j) decoder[j] = m->as<Forecaster>().decoder_column(j);
    const tools::Table src = read_model_rows(args, "src", *m, all, features, 0);
    const tools::Table tgt = read_model_rows(args, "tgt", *m, decoder, features, 0);
    tools::HostSession session(*m, choose_kernels(args), src.rows, c.run_horizon(tgt.rows));
    const InputSpace space = args.has("model-space") ? InputSpace::model : InputSpace::raw;
    tools::Table out;
    out.rows = c.run_rows(src.rows, tgt.rows);
    out.cols = c.n_outputs;
    out.values = session.run(src.values.data(), src.rows, tgt.values.data(), tgt.rows, space);
    out.header = c.n_outputs == c.n_features && tools::output_names(m->file).empty()
                     ? feature_header(tgt, features)
                     : tools::output_header(m->file, {}, c.n_features, c.n_outputs);
    if (out.rows == tgt.rows) predicted_times(tgt, args.get("tgt"), out);
    write_output(args, out);
    return 0;
}

}  // namespace ax::cli
