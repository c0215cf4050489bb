// auspex: the host CLI. One binary: convert, inspect, run, forecast, verify, bench, translate, classify,
// reconstruct, generate, ...
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include "tools/cli/commands.h"
#include "tools/common/tool_error.h"

namespace {

struct Command {
    const char* name;
    int (*run)(const ax::cli::Argv&);
    const char* usage;
};

const Command kCommands[] = {
    {"convert", ax::cli::cmd_convert,
     "convert CHECKPOINT(.pt|.safetensors) --config CONFIG.json -o MODEL.axm [--dtype f32|f16|int8] [--kv-cache "
     "f32|int8] [--map RENAME.map] [--state-dict-key KEY] [--calib DATA.csv [--calib-window S] [--calib-horizon H]] "
     "[--check-input IN --check-output PYTORCH_OUT.csv [--check-target TGT] [--find-config FOUND.json]] "
     "[--model-name NAME] [--model-version N]"},
    {"inspect", ax::cli::cmd_inspect,
     "inspect MODEL.axm [--window S --horizon H | --src-len S --tgt-len T | --max-len L] "
     "[--board NAME | --flash SIZE --ram SIZE]"},
    {"run", ax::cli::cmd_run,
     "run MODEL.axm --src SRC.csv --tgt TGT.csv [-o OUT.csv] [--model-space] [--port P]  |  "
     "run SEQ2SEQ.axm --src-tokens \"...\" --tgt-tokens \"...\" [--pad ID|none] [-o LOGITS.csv]"},
    {"forecast", ax::cli::cmd_forecast,
     "forecast MODEL.axm --input HISTORY.csv [--horizon H] [--window S] [-o OUT.csv] [--plot FC.svg [--truth T.csv]] "
     "[--recompute] [--port P]"},
    {"verify", ax::cli::cmd_verify,
     "verify QUANT.axm --against F32.axm --input DATA.csv [--window S] [--horizon H] [--stride N] [--port P]  |  "
     "verify MODEL.axm --against REF.axm|--expected PYTORCH_OUT.csv --input IN [--target TGT] [--port P] (any family; "
     "inputs as convert's --check-*)"},
    {"bench", ax::cli::cmd_bench,
     "bench MODEL.axm [--window S --horizon H | --src-len S --tgt-len T | --max-len L] [--runs N] [--json] [--stages] "
     "[--port P]  |  bench --kernels [--json]"},
    {"translate", ax::cli::cmd_translate,
     "translate SEQ2SEQ.axm --tokens \"5 17 9 2\" [--bos ID] [--eos ID|none] [--pad ID|none] [--max-len N] [--port P]"},
    {"classify", ax::cli::cmd_classify,
     "classify CLASSIFIER.axm --tokens \"5 17 9 2\" [--pad ID|none] [-o PROBS.csv] [--port P]"},
    {"reconstruct", ax::cli::cmd_reconstruct,
     "reconstruct TVAE.axm --input SEQ.csv [-o OUT.csv] [--latent Z.csv] [--sample [--seed N]] [--port P]"},
    {"generate", ax::cli::cmd_generate, "generate TVAE.axm --z \"0.1 -0.3 ...\" --length L [-o OUT.csv] [--port P]"},
    {"header", ax::cli::cmd_header,
     "header MODEL.axm -o MODEL.h [--name NAME] [--window S --horizon H | --src-len S --tgt-len T | --max-len L]"},
};

void print_usage(FILE* to) {
    std::fprintf(to, "usage: auspex COMMAND ...\n");
    for (const Command& c : kCommands) std::fprintf(to, "  auspex %s\n", c.usage);
    std::fprintf(to, "--port generic|avx2|neon (or AUSPEX_PORT) picks the kernel port.\n");
    std::fprintf(to,
                 "Commands reading a data CSV also take --delimiter ,|;|tab, --columns NAME,..., "
                 "--fill previous|linear and --time-format dd/mm/yyyy|mm/dd/yyyy.\n");
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "-h") == 0) {
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    for (const Command& c : kCommands) {
        if (std::strcmp(argv[1], c.name) != 0) continue;
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
    std::fprintf(stderr, "auspex: unknown command \"%s\"\n", argv[1]);
    print_usage(stderr);
    return 2;
}
