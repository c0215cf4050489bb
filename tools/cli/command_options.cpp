#include "tools/cli/command_options.h"

#include <cstring>

namespace ax::cli {

namespace {

struct CommandOptions {
    const char* command;
    const char* lines;
};

// The lengths inspect, bench and header size a session for, by family.
#define AX_LENGTH_OPTIONS                                                                                     \
    "  --window S --horizon H     forecaster: encoder rows and forecast steps (default the model's training " \
    "window, else 96; 24)\n"                                                                                  \
    "  --src-len S --tgt-len T    seq2seq: source and target tokens\n"                                        \
    "  --max-len L                classifier, tvae: the longest input\n"

const CommandOptions kOptions[] = {
    {"convert",
     "  -o, --output MODEL.axm     the model to write (written whole or not at all)\n"
     "  --config CONFIG.json       the architecture: nhead, activation, norm_first, window, ... "
     "(docs/importing-models.md); for MODEL.onnx only what the graph cannot show (docs/onnx.md)\n"
     "  --dtype f32|f16|int8|int4  weight storage (default f32); int8 is per-row symmetric, int4 has a half\n"
     "                             scale per 32 columns (4.5 bits a weight; narrower matrices take int8)\n"
     "  --kv-cache f32|int8        decoder key/value caches (default f32); int8 shrinks the session arena\n"
     "  --map RENAME.map           rename a hand-written module's tensors to the family's names\n"
     "  --state-dict-key KEY       the state_dict inside a checkpoint dict (default: found by its tensors)\n"
     "  --calib DATA.csv           record each weight matrix's input range (static scales; outputs unchanged)\n"
     "  --calib-window S, --calib-horizon H   the forecasts --calib runs (default the model's window; 24)\n"
     "  --check-input IN --check-output OUT [--check-target TGT]   prove the conversion against what "
     "PyTorch's forward returned; nothing is written when it differs\n"
     "  --find-config FOUND.json   with a check pair: search the configs the checkpoint allows for one that "
     "reproduces PyTorch\n"
     "  --model-name NAME, --model-version N   stored in the model (inspect, the device API)\n"
     "  --vocab FILE               a classifier's vocabulary, or both sides of a translator's: a token list "
     "(get_itos order), a torch.save'd torchtext Vocab or a SentencePiece .model (docs/text.md)\n"
     "  --src-vocab FILE --tgt-vocab FILE   a translator's vocabulary per side\n"
     "  --tokenizer basic_english|whitespace   how a word vocabulary splits text (default basic_english)\n"},
    {"inspect", AX_LENGTH_OPTIONS
     "  --board NAME               will it fit this board's flash and RAM (an unknown name lists the boards)\n"
     "  --flash SIZE --ram SIZE    will it fit these sizes (e.g. 1M, 128K)\n"
     "  MODEL.onnx: opsets, inputs and outputs, the op types left after constant and shape folding, and the nodes "
     "the host reference evaluator cannot compute\n"
     "  --dim NAME=N               (ONNX) fold for this size of a dynamic dimension (default 1 for a first axis, "
     "else 8)\n"},
    {"run",
     "  --src SRC.csv --tgt TGT.csv   forecaster: encoder and decoder inputs, raw units unless --model-space\n"
     "  --model-space              the inputs are in the model's (normalized) units, as PyTorch's forward sees\n"
     "  --src-tokens \"...\" --tgt-tokens \"...\"   seq2seq: token ids\n"
     "  --pad ID|none              seq2seq: the padding id masked in attention (default the model's)\n"
     "  -o, --output OUT.csv       write the outputs there (default stdout)\n"
     "  --input NAME=FILE.csv      (ONNX) feed a graph input by name, one column per value of its last dimension; "
     "repeat for each input\n"
     "  --output-name NAME         (ONNX) the graph output to write (default the first)\n"
     "  MODEL.onnx runs on the host reference evaluator (float32, op by op, for comparing with PyTorch), not the "
     "device path: convert does not take ONNX graphs yet\n"},
    {"forecast",
     "  --input HISTORY.csv        the history; its last rows are the encoder window\n"
     "  --horizon H                steps to forecast (default the model's: 24 for an autoregressive one)\n"
     "  --window S                 rows of history to read (default the model's training window, else all)\n"
     "  -o, --output OUT.csv       write the forecast there (default stdout), timestamps continued\n"
     "  --plot FC.svg              draw history, forecast (and truth) as SVG\n"
     "  --truth T.csv              the rows that followed: errors per output, and a line in the plot\n"
     "  --future F.csv             inputs known ahead (a planned setpoint, a weather forecast) for the\n"
     "                             forecast's steps, matched by timestamp; calendar features are computed\n"
     "  --recompute                recompute every step instead of caching keys and values (same values)\n"},
    {"verify",
     "  --against REF.axm          the reference: another conversion of the model (e.g. float32)\n"
     "  --expected OUT.csv         the reference: what PyTorch returned for --input (float32's tolerance)\n"
     "  --input IN                 the input: a data CSV (forecaster --against) or a check-pair input\n"
     "  --target TGT               the second input of a forecaster or seq2seq check pair\n"
     "  --window S --horizon H --stride N   forecaster --against on a data CSV: the forecasts compared\n"
     "  --public KEY.pub[,KEY.pub]   instead: is the model signed by one of these keys (auspex sign)\n"},
    {"bench", AX_LENGTH_OPTIONS
     "  --runs N                   timed runs (default 20); the median is reported\n"
     "  --json                     one JSON object instead of the table\n"
     "  --stages                   time every kernel call of one pass\n"
     "  --kernels                  no model: every kernel of every port this CPU runs\n"
     "  --threads N,M,...          a list of thread counts: the forward pass with each, runs "
     "interleaved, and the speed-ups over the first;\n"
     "                             with 1 in the list, the one-thread pass held on each core in turn "
     "(and the speed-ups over\n"
     "                             the fastest core's), and where the most threads' pass loses time\n"},
    {"translate",
     "  --tokens \"5 17 9 2\"        the source token ids\n"
     "  --text \"SENTENCE\"          a sentence, with the model's vocabularies: prints its translation\n"
     "  --text-file LINES.txt      one sentence per line, one translation per line\n"
     "  -o, --output OUT.txt       write the output lines there (default stdout)\n"
     "  --bos ID, --eos ID|none    decoding's start and stop ids (default the model's)\n"
     "  --pad ID|none              the padding id (default the model's)\n"
     "  --max-len N                ids to generate at most (default the source's length + 4)\n"},
    {"classify",
     "  --tokens \"5 17 9 2\"        the token ids of one input\n"
     "  --text \"SENTENCE\"          a sentence, encoded with the model's vocabulary\n"
     "  --text-file LINES.txt      one input per line, one row of probabilities per line\n"
     "  --pad ID|none              the padding id (default the model's)\n"
     "  -o, --output PROBS.csv     write the probabilities there (default stdout)\n"},
    {"reconstruct",
     "  --input SEQ.csv            the sequence to reconstruct\n"
     "  -o, --output OUT.csv       write the reconstruction there (default stdout)\n"
     "  --latent Z.csv             also write the latent mean and log-variance\n"
     "  --sample [--seed N]        decode a sample of the latent instead of its mean\n"},
    {"generate",
     "  --z \"0.1 -0.3 ...\"          the latent vector\n"
     "  --length L                 rows to decode\n"
     "  -o, --output OUT.csv       write them there (default stdout)\n"},
    {"header",
     "  -o, --output MODEL.h       the header to write\n"
     "  --name NAME                the array and macro prefix (default from -o's file name)\n" AX_LENGTH_OPTIONS
     "  --history HISTORY.csv      also write the rows a forecast reads (the last window of them) as floats\n"
     "  --history-output HIST.h    where (default MODEL_history.h beside -o)\n"
     "  --history-name NAME        their array and macro prefix (default NAME_history)\n"
     "  --future PLAN.csv          also write the inputs known ahead of the forecast's steps (the plan's columns\n"
     "                             matched by timestamp, calendar columns computed), for auspex_forecast_known\n"
     "  --future-output FUT.h      where (default MODEL_future.h beside -o); alone, for calendar columns only\n"
     "  --future-name NAME         their array and macro prefix (default NAME_future)\n"},
    {"keygen", "  -o, --output PREFIX        writes PREFIX.key (secret, mode 0600) and PREFIX.pub; never overwrites\n"},
    {"sign",
     "  --key PREFIX.key           the owner's secret key (auspex keygen)\n"
     "  -o, --output SIGNED.axm    where to write the signed model (default: the model itself)\n"},
};

#undef AX_LENGTH_OPTIONS

}  // namespace

const char* command_options(const char* command) {
    for (const CommandOptions& o : kOptions)
        if (std::strcmp(o.command, command) == 0) return o.lines;
    return "";
}

}  // namespace ax::cli
