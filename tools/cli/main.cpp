// auspex: the host CLI. One binary: convert, inspect, run, forecast, verify, bench, translate, classify,
// reconstruct, generate, ...
#include <cctype>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "tools/cli/command_options.h"
#include "tools/cli/commands.h"
#include "tools/host/ports_here.h"
#include "tools/common/tool_error.h"
#include "tools/convert/model_stamp.h"

namespace {

struct Command {
    const char* name;
    int (*run)(const ax::cli::Argv&);
    const char* usage;
    const char* summary;  // one line: what the command does
    bool reads_csv;       // takes --delimiter, --columns and --fill
};

const Command kCommands[] = {
    {"convert", ax::cli::cmd_convert,
     "convert CHECKPOINT(.pt|.safetensors) --config CONFIG.json -o MODEL.axm [--dtype f32|f16|int8|int4] [--kv-cache "
     "f32|int8] [--map RENAME.map] [--state-dict-key KEY] [--calib DATA.csv [--calib-window S] [--calib-horizon H]] "
     "[--check-input IN --check-output PYTORCH_OUT.csv [--check-target TGT] [--find-config FOUND.json]] "
     "[--model-name NAME] [--model-version N] [--vocab FILE | --src-vocab FILE --tgt-vocab FILE] "
     "[--tokenizer basic_english|whitespace]; or convert MODEL.onnx -o MODEL.axm [--config CONFIG.json] [...]",
     "turn a PyTorch checkpoint and its config, or a forecaster exported to ONNX, into an .axm model (optionally "
     "quantized), proved against PyTorch with a check pair (an ONNX graph also against itself)",
     true},
    {"inspect", ax::cli::cmd_inspect,
     "inspect MODEL.axm [--window S --horizon H | --src-len S --tgt-len T | --max-len L] "
     "[--board NAME | --flash SIZE --ram SIZE]  |  inspect MODEL.onnx [--dim NAME=N ...]",
     "print a model's family, config, tensors, identity and the arena its sessions need (and whether it fits a board)",
     false},
    {"run", ax::cli::cmd_run,
     "run MODEL.axm --src SRC.csv --tgt TGT.csv [-o OUT.csv] [--model-space] [--port P] [--threads N]  |  "
     "run SEQ2SEQ.axm --src-tokens \"...\" --tgt-tokens \"...\" [--pad ID|none] [-o LOGITS.csv]  |  "
     "run MODEL.onnx --input NAME=FILE.csv [--input ...] [--output-name NAME] [-o OUT.csv]",
     "one teacher-forced forward pass, as PyTorch's forward(src, tgt); for an .onnx graph, its outputs from the host "
     "reference evaluator",
     true},
    {"forecast", ax::cli::cmd_forecast,
     "forecast MODEL.axm --input HISTORY.csv [--horizon H] [--window S] [-o OUT.csv] [--truth T.csv] [--plot FC.svg] "
     "[--future F.csv] [--recompute] [--port P] [--threads N]",
     "forecast the next steps from a history CSV (its last window of rows); CSV out, an SVG plot, errors against the "
     "truth",
     true},
    {"verify", ax::cli::cmd_verify,
     "verify QUANT.axm --against F32.axm --input DATA.csv [--window S] [--horizon H] [--stride N] [--port P] "
     "[--threads N]  |  "
     "verify MODEL.axm --against REF.axm|--expected PYTORCH_OUT.csv --input IN [--target TGT] [--port P] [--threads N] "
     "(any family; "
     "inputs as convert's --check-*)  |  verify CHRONOS_BOLT.axm --against F32.axm|--expected QUANTILES.csv --input "
     "SERIES.csv [--window S] [--horizon H] [--stride N] (q0.1..q0.9 columns, as forecast writes)  |  "
     "verify MODEL.axm --public KEY.pub[,KEY.pub...]",
     "how far a model's outputs are from another conversion (--against) or from PyTorch's (--expected)", true},
    {"bench", ax::cli::cmd_bench,
     "bench MODEL.axm [--window S --horizon H | --src-len S --tgt-len T | --max-len L] [--runs N] [--json] [--stages] "
     "[--port P] [--threads N|N,M,...]  |  bench --kernels [--json]",
     "time a model's passes (or every kernel of each port) on this machine", false},
    {"translate", ax::cli::cmd_translate,
     "translate SEQ2SEQ.axm --tokens \"5 17 9 2\" | --text \"SENTENCE\" | --text-file LINES.txt [-o OUT.txt] [--bos "
     "ID] "
     "[--eos ID|none] [--pad ID|none] [--max-len N] [--port P]",
     "greedy-decode a token sequence, or translate sentences with the model's vocabularies", false},
    {"classify", ax::cli::cmd_classify,
     "classify CLASSIFIER.axm --tokens \"5 17 9 2\" | --text \"SENTENCE\" | --text-file LINES.txt [--pad ID|none] "
     "[-o PROBS.csv] [--port P]",
     "class probabilities for a token sequence or for each line of text with a classifier model", false},
    {"reconstruct", ax::cli::cmd_reconstruct,
     "reconstruct TVAE.axm --input SEQ.csv [-o OUT.csv] [--latent Z.csv] [--sample [--seed N]] [--port P]",
     "reconstruct a sequence with a Transformer-VAE and score it (anomaly detection)", true},
    {"generate", ax::cli::cmd_generate, "generate TVAE.axm --z \"0.1 -0.3 ...\" --length L [-o OUT.csv] [--port P]",
     "decode a sequence from a latent vector with a Transformer-VAE", false},
    {"header", ax::cli::cmd_header,
     "header MODEL.axm -o MODEL.h [--name NAME] [--window S --horizon H | --src-len S --tgt-len T | --max-len L] "
     "[--history HISTORY.csv [--history-output HISTORY.h] [--history-name NAME] [--future PLAN.csv] "
     "[--future-output FUTURE.h] [--future-name NAME]]  |  header KEY.pub -o KEY.h [--name NAME]",
     "write a model as a C header (an aligned byte array and its sizes) to compile into firmware; --history also "
     "writes the rows a forecast reads as a float array, --future the inputs known ahead of its steps; a KEY.pub "
     "in place of the model writes the trusted key",
     true},
    {"keygen", ax::cli::cmd_keygen, "keygen -o PREFIX",
     "make an owner's Ed25519 key pair for signing models: PREFIX.key (secret, mode 0600) and PREFIX.pub", false},
    {"sign", ax::cli::cmd_sign, "sign MODEL.axm --key PREFIX.key [-o SIGNED.axm]",
     "sign a model so that devices trusting the key run it (in place without -o)", false},
};

constexpr const char* kCsvOptions =
    "--delimiter ,|;|tab, --columns NAME,... (the columns to read, by header name or number) and --fill "
    "previous|linear (empty cells; in a forecast's window also missing rows) and --time-format dd/mm/yyyy|mm/dd/yyyy "
    "(ambiguous dates)";

// `auspex`, `auspex help`, `auspex --help`: every command with its line, then where to read more.
void print_overview(FILE* to) {
    std::fprintf(to,
                 "usage: auspex COMMAND [ARGS]\n\n"
                 "Converts PyTorch encoder-decoder Transformers to .axm models and runs them on this machine.\n\n"
                 "commands:\n");
    for (const Command& c : kCommands) std::fprintf(to, "  %-12s %s\n", c.name, c.summary);
    std::fprintf(to,
                 "\nauspex help COMMAND (or auspex COMMAND --help) prints a command's options.\n"
                 "auspex --version prints the version. The manual is README.md and docs/ in the source tree.\n");
}

void print_command_help(const Command& c) {
    std::string summary = c.summary;
    summary[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(summary[0])));
    std::printf("usage: auspex %s\n\n%s.\n\noptions:\n%s", c.usage, summary.c_str(), ax::cli::command_options(c.name));
    std::printf("\n");
    if (c.reads_csv) std::printf("Data CSVs: %s.\n", kCsvOptions);
    if (std::strstr(c.usage, "--port"))
        std::printf(
            "--port %s (the ports this build and CPU run; or the AUSPEX_PORT variable) picks the kernel port; the "
            "default is the fastest. Builds for other CPUs have others (neon on ARM, mcu on Cortex-M).\n",
            ax::tools::ports_here().c_str());
    if (std::strstr(c.usage, "--threads"))
        std::printf(
            "--threads N (or the AUSPEX_THREADS variable) splits the matrix products over N threads, with the same "
            "results to the bit; the default is 1.\n");
}

const Command* find_command(const char* name) {
    for (const Command& c : kCommands)
        if (std::strcmp(name, c.name) == 0) return &c;
    return nullptr;
}

bool is_help(const char* arg) { return std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0; }

int unknown_command(const char* name) {
    std::fprintf(stderr, "auspex: unknown command \"%s\" (auspex help lists the commands)\n", name);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        print_overview(stderr);
        return 2;
    }
    if (is_help(argv[1]) || std::strcmp(argv[1], "help") == 0) {
        if (argc < 3) {
            print_overview(stdout);
            return 0;
        }
        const Command* c = find_command(argv[2]);
        if (!c) return unknown_command(argv[2]);
        print_command_help(*c);
        return 0;
    }
    if (std::strcmp(argv[1], "--version") == 0 || std::strcmp(argv[1], "version") == 0) {
        std::printf("%s\n", ax::tools::converter_version_text().c_str());
        return 0;
    }
    const Command* found = find_command(argv[1]);
    if (!found) return unknown_command(argv[1]);
    const Command& c = *found;
    for (int i = 2; i < argc; ++i)
        if (is_help(argv[i])) {
            print_command_help(c);
            return 0;
        }
    try {
        return c.run(ax::cli::Argv(argv + 2, argv + argc));
    } catch (const ax::cli::UsageError& e) {
        std::fprintf(stderr, "auspex %s: %s\nusage: auspex %s\n", c.name, e.message.c_str(), c.usage);
        return 2;
    } catch (const ax::tools::ToolError& e) {
        std::fprintf(stderr, "auspex %s: error: %s\n", c.name, e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "auspex %s: error: out of memory\n", c.name);
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "auspex %s: error: %s\n", c.name, e.what());
        return 1;
    }
}
