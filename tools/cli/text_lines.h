// translate and classify on text: the lines to read (--text, --text-file), the model's vocabulary turning
// them into ids and ids back into text (runtime/tokenizer.h), and the lines written (stdout or -o).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/vocabulary.h"
#include "tools/cli/args.h"

namespace ax::cli {

// The lines of --text (one) or --text-file (each line; a final newline ends the last one, CR before it dropped).
std::vector<std::string> text_lines(const Args& args);

// The ids of one line; `what` names the vocabulary in errors ("source vocabulary"). Throws ToolError when the
// model has no vocabulary (convert with --vocab) or the text cannot be encoded.
std::vector<int32_t> encode_line(const Vocabulary& v, const std::string& line, const char* what);
std::string decode_line(const Vocabulary& v, const std::vector<int32_t>& ids, const char* what);

// Writes one output line per input line to -o (atomically) or stdout.
void write_lines(const Args& args, const std::vector<std::string>& lines);

}  // namespace ax::cli
