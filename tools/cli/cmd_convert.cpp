#include <cstdio>

#include "runtime/config_reader.h"
#include "tools/cli/chronos_bolt_cli.h"
#include "tools/cli/commands.h"
#include "tools/cli/data_csv.h"
#include "tools/cli/unchecked_notes.h"
#include "tools/convert/config_search.h"
#include "tools/convert/conversion_check.h"
#include "tools/convert/converter.h"
#include "tools/convert/model_stamp.h"
#include "tools/convert/quantize.h"
#include "tools/common/file_io.h"
#include "tools/common/tool_error.h"
#include "tools/host/model_loader.h"
#include "tools/import/chronos_bolt_import.h"
#include "tools/import/config_keys.h"
#include "tools/onnx_import/onnx_convert.h"
#include "tools/text/json_writer.h"

namespace ax::cli {

namespace {

// "1e-05, 1e-06".
std::string eps_values(const std::vector<double>& values) {
    std::string out;
    for (double v : values) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", v);
        out += (out.empty() ? "" : ", ") + std::string(text);
    }
    return out;
}

// --find-config: the search's report on stdout, the found config to `path`; throws when nothing matches.
tools::ConvertConfig find_config(const tools::TensorMap& tensors, const tools::ConvertOptions& options,
                                 const tools::CheckFiles& check, const std::string& path) {
    const tools::ConfigSearch s = tools::search_config(tensors, options.config_path, check);
    if (!s.found)
        throw tools::ToolError("no config the checkpoint allows reproduces " + check.output + " (" +
                               std::to_string(s.tried) + " tried); the closest, " + s.description + ", has its " +
                               tools::describe_difference(s.result) +
                               "; is the check pair from this checkpoint, in eval mode? Not searched, so taken from "
                               "your config as it is: embed_scale, normalization, window, one-pass decoding "
                               "(decoding, label_len, horizon, placeholder), an encoder-only model's head, outputs, "
                               "decoder_features, calendar, encoder_residual, decoder_residual, "
                               "and the encoder-decoder's layer counts and sizes read off the tensors. Nothing "
                               "written");
    std::printf("find-config: %zu config(s) tried, %zu matched PyTorch\n", s.tried, s.matches.size());
    if (s.varying == tools::config_key_name(format::ConfigKey::layer_norm_eps)) {
        std::printf(
            "find-config: layer_norm_eps is not told apart by this check pair (these match: %s); kept "
            "%s\n",
            eps_values(s.matched_eps).c_str(), s.config_stated_eps ? "your config's" : "PyTorch's default, 1e-05");
    } else if (s.matches.size() > 1) {
        std::printf(
            "find-config: %zu configs match, differing in %s: this check pair does not tell them apart "
            "(a longer input may). Picked the first that changes the fewest keys of %s (your values "
            "first). Matches:\n",
            s.matches.size(), s.varying.c_str(),
            options.config_path.empty() ? "PyTorch's defaults" : options.config_path.c_str());
        for (const std::string& m : s.matches) std::printf("  %s\n", m.c_str());
    }
    tools::write_file_atomic(path, tools::format_json(s.json));
    std::printf("find-config: wrote %s: %s\n", path.c_str(), s.description.c_str());
    return s.config;
}

// What --calib changes and what it does not, so no one expects it to move a forecast.
constexpr const char* kCalibNote =
    "--calib recorded each weight matrix's largest input (inspect lists them): static activation scales for an "
    "integer-only runtime. auspex's own kernels do not read them: the weights, their quantization and every "
    "forecast are the same as without --calib";
// With --integer-only the ranges are what the model runs on.
constexpr const char* kIntegerNote =
    "--integer-only: every activation scale comes from --calib's data; forecasts run integer-only "
    "(docs/integer-only.md)";

// Printed once when no check pair ran: nothing compared the result with PyTorch.
std::string unproven_note(const std::vector<uint8_t>& bytes, const std::string& output) {
    const auto model = tools::open_model_bytes(bytes, output);
    return "the config is unproven (recorded in the file; forecast, verify and inspect say so): nothing "
           "compared this model with PyTorch, and a config that loads can still compute something else "
           "(nhead, activation, norm_first, layer_norm_eps, ...). Prove it by converting with " +
           check_pair_options(*model) +
           ", the input and output of one forward call of the trained module in eval mode (see \"Proving a "
           "conversion against PyTorch\" in docs/importing-models.md)";
}

// Notes go to stderr: stdout is for what the user asked for (the summary, the check's result, the search's
// report), and a note between them would be read as one of those by a script.
void print_notes(const std::vector<std::string>& notes) {
    for (const std::string& note : notes) std::fprintf(stderr, "note: %s\n", note.c_str());
}

// Writes the model and says what was written; the notes (with --calib's) follow on stderr.
int write_converted(const std::string& output, const std::vector<uint8_t>& bytes, const tools::ConvertOptions& options,
                    std::vector<std::string>& notes) {
    tools::write_file_atomic(output, bytes.data(), bytes.size());
    std::printf("wrote %s: %zu bytes, weights %s%s%s\n", output.c_str(), bytes.size(), tools::dtype_name(options.dtype),
                options.kv_cache == format::CacheType::i8 ? ", int8 kv cache" : "",
                options.calib_path.empty() ? "" : ", calibrated input ranges");
    if (!options.calib_path.empty()) notes.push_back(options.integer_only ? kIntegerNote : kCalibNote);
    print_notes(notes);
    return 0;
}

// An ONNX graph: lowered, proven against the graph by the host reference evaluator and, when a check pair is
// given, against PyTorch too (exporters have bugs a graph alone cannot show).
int convert_onnx_graph(tools::ConvertOptions options, const tools::CheckFiles& check, const std::string& output,
                       std::vector<std::string>& notes) {
    onnx_import::OnnxImport imported = onnx_import::import_onnx(options);
    notes.insert(notes.end(), imported.model.notes.begin(), imported.model.notes.end());
    const tools::ConversionProof graph = onnx_import::prove_against_graph(imported, options.checkpoint_path);
    char proof_line[200];
    std::snprintf(proof_line, sizeof proof_line,
                  "proof: the lowered model reproduces the ONNX graph (host reference evaluator, %zu-row input): max "
                  "difference %.3g (tolerance %.3g)",
                  imported.tokens.empty() ? imported.src.rows : imported.tokens.size(), graph.max_diff,
                  graph.tolerance);
    std::string check_line;
    options.proof = graph;
    tools::CheckPair pair;
    if (check.given()) {
        pair = tools::read_check_pair(check, imported.model.family);
        const tools::CheckResult result = tools::check_model(imported.model, pair);
        if (!result.passed)
            throw tools::ToolError("the model lowered from the ONNX graph does not reproduce PyTorch's output " +
                                   check.output + ": " + tools::describe_difference(result) +
                                   "; the graph reproduces itself, so the export differs from the PyTorch module "
                                   "(an exporter bug: see docs/onnx.md) or the check pair is from another model; "
                                   "nothing written");
        char numbers[96];
        std::snprintf(numbers, sizeof numbers, ": max difference %.3g (tolerance %.3g)", result.max_diff,
                      result.tolerance);
        check_line = "check: the conversion matches PyTorch on " + check.output + numbers;
        options.proof = tools::ConversionProof{true, result.max_diff, result.tolerance, check.output};
        options.check_input = &pair.src;
    }
    const std::vector<uint8_t> bytes = tools::finish_model(std::move(imported.model), options);
    std::printf("%s\n", proof_line);
    if (!check_line.empty()) std::printf("%s\n", check_line.c_str());
    return write_converted(output, bytes, options, notes);
}

}  // namespace

int cmd_convert(const Argv& argv) {
    const Args args(
        argv,
        with_csv_options({"config", "output", "dtype", "kv-cache", "map", "calib", "calib-window", "calib-horizon",
                          "state-dict-key", "check-input", "check-target", "check-output", "find-config", "model-name",
                          "model-version", "vocab", "src-vocab", "tgt-vocab", "tokenizer"}),
        {"integer-only"});
    args.expect_positionals(
        1, "one checkpoint (.pt or .safetensors), an exported ONNX graph (.onnx) or a Chronos-Bolt directory");
    if (tools::is_chronos_bolt_directory(args.positionals()[0])) return convert_chronos_bolt(args);
    tools::ConvertOptions options;
    options.checkpoint_path = args.positionals()[0];
    const std::string found_path = args.get("find-config");
    const bool onnx_graph = is_onnx_command(args.positionals());
    if (onnx_graph && !found_path.empty())
        throw UsageError{"--find-config searches a checkpoint's config; an ONNX graph shows its own (drop it)"};
    options.config_path = found_path.empty() && !onnx_graph ? args.require("config") : args.get("config");
    options.dtype = tools::parse_dtype(args.get("dtype", "f32"));
    options.kv_cache = tools::parse_kv_cache(args.get("kv-cache", "f32"));
    options.integer_only = args.has("integer-only");
    options.map_path = args.get("map");
    options.calib_path = args.get("calib");
    options.calib_window = args.get_size("calib-window", 0, 1, kMaxSequenceLength);
    options.calib_horizon = args.get_size("calib-horizon", options.calib_horizon, 1, kMaxSequenceLength);
    if (options.calib_path.empty() && (args.has("calib-window") || args.has("calib-horizon")))
        throw tools::ToolError("--calib-window and --calib-horizon go with --calib data.csv");
    options.calib_csv = csv_options(args);
    if (options.calib_path.empty() &&
        (args.has("delimiter") || args.has("columns") || args.has("fill") || args.has("time-format")))
        throw tools::ToolError("--delimiter, --columns, --fill and --time-format go with --calib data.csv");
    options.state_dict_key = args.get("state-dict-key");
    if (args.has("vocab") && (args.has("src-vocab") || args.has("tgt-vocab")))
        throw UsageError{
            "--vocab (a classifier's, or both sides of a translator) or --src-vocab/--tgt-vocab, not both"};
    options.vocab.src = args.has("vocab") ? args.get("vocab") : args.get("src-vocab");
    options.vocab.tgt = args.get("tgt-vocab");
    options.vocab.shared = args.has("vocab");
    if (args.has("tokenizer")) {
        if (!format::parse_enum(args.get("tokenizer").c_str(), &options.vocab.words) ||
            (options.vocab.words != format::Tokenizer::words &&
             options.vocab.words != format::Tokenizer::basic_english))
            throw UsageError{"--tokenizer is basic_english or whitespace (a SentencePiece .model brings its own)"};
        if (options.vocab.src.empty() && options.vocab.tgt.empty())
            throw UsageError{"--tokenizer goes with --vocab, --src-vocab or --tgt-vocab"};
    }
    if (args.has("model-name")) {
        options.model_name = args.get("model-name");
        tools::check_model_name(options.model_name);
    }
    if (args.has("model-version"))
        options.model_version = static_cast<uint32_t>(args.get_size("model-version", 0, 0, 0xFFFFFFFFu));
    tools::conversion_time();  // a malformed SOURCE_DATE_EPOCH fails before the checkpoint is read
    // What the user should know about choices made (a state_dict picked, keys ignored, defaults assumed,
    // layers left out): printed after the summary line.
    std::vector<std::string> notes;
    options.notes = &notes;
    const tools::CheckFiles check{args.get("check-input"), args.get("check-target"), args.get("check-output")};
    if (!found_path.empty() && !check.given())
        throw UsageError{
            "--find-config needs a check pair from PyTorch: --check-input, --check-output "
            "(and --check-target for a forecaster or seq2seq)"};
    const std::string output = args.require("output");

    if (is_onnx_command(args.positionals())) return convert_onnx_graph(options, check, output, notes);
    if (!check.given()) {
        const std::vector<uint8_t> bytes = tools::convert_model(options);
        tools::write_file_atomic(output, bytes.data(), bytes.size());
        std::printf("wrote %s: %zu bytes, weights %s%s%s\n", output.c_str(), bytes.size(),
                    tools::dtype_name(options.dtype),
                    options.kv_cache == format::CacheType::i8 ? ", int8 kv cache" : "",
                    options.calib_path.empty() ? "" : ", calibrated input ranges");
        if (!options.calib_path.empty()) notes.push_back(options.integer_only ? kIntegerNote : kCalibNote);
        notes.push_back(unproven_note(bytes, output));
        print_notes(notes);
        return 0;
    }

    std::vector<std::string> unmatched;
    const tools::TensorMap tensors = tools::read_model_tensors(options, &unmatched);
    const tools::ConvertConfig config = found_path.empty() ? tools::read_convert_config(options.config_path)
                                                           : find_config(tensors, options, check, found_path);
    tools::AxmModel model = tools::import_model(tensors, config, unmatched);
    notes.insert(notes.end(), model.notes.begin(), model.notes.end());
    // The check runs the float32 model: it proves the config, which quantization does not change.
    const tools::CheckPair pair = tools::read_check_pair(check, model.family);
    const tools::CheckResult result = tools::check_model(model, pair);
    if (!result.passed)
        throw tools::ToolError(
            "the converted model does not reproduce PyTorch's output " + check.output + ": " +
            tools::describe_difference(result) + "; the config does not describe the trained module (" +
            tools::searched_keys_text(model) + "): --find-config FILE searches for one that does; nothing written");
    options.proof = tools::ConversionProof{true, result.max_diff, result.tolerance, check.output};
    options.check_input = &pair.src;
    const std::vector<uint8_t> bytes = tools::finish_model(std::move(model), options);
    std::string quantized;
    if (options.dtype != format::DType::f32) {
        const tools::CheckResult q = tools::check_model_bytes(bytes, pair);
        char text[160];
        std::snprintf(text, sizeof text, "; the %s model's max difference is %.3g (quantization, not checked)",
                      tools::dtype_name(options.dtype), q.max_diff);
        quantized = text;
    }
    std::printf("check: the conversion matches PyTorch on %s: max difference %.3g (tolerance %.3g%s)%s\n",
                check.output.c_str(), result.max_diff, result.tolerance,
                options.dtype == format::DType::f32 ? "" : ", float32 model checked before quantizing",
                quantized.c_str());
    return write_converted(output, bytes, options, notes);
}

}  // namespace ax::cli
