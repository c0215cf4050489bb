// The auspex subcommands. Each takes the arguments after its name and returns the exit status; errors
// are thrown as ToolError (exit 1) or UsageError (exit 2) and printed by main.
#pragma once
#include <string>
#include <vector>

#include "runtime/kernels.h"
#include "tools/cli/args.h"
#include "tools/text/csv.h"

namespace ax::cli {

using Argv = std::vector<std::string>;

int cmd_convert(const Argv& argv);
int cmd_inspect(const Argv& argv);
int cmd_run(const Argv& argv);
int cmd_forecast(const Argv& argv);
int cmd_verify(const Argv& argv);
int cmd_bench(const Argv& argv);
int cmd_translate(const Argv& argv);
int cmd_classify(const Argv& argv);
int cmd_reconstruct(const Argv& argv);
int cmd_generate(const Argv& argv);
int cmd_header(const Argv& argv);
int cmd_keygen(const Argv& argv);
int cmd_sign(const Argv& argv);

// inspect and run of an ONNX graph (tools/cli/cmd_onnx.cpp): taken when an argument names an .onnx file.
bool is_onnx_command(const Argv& argv);
int cmd_inspect_onnx(const Argv& argv);
int cmd_run_onnx(const Argv& argv);

// The kernel port from --port or AUSPEX_PORT, else the best this CPU runs.
const Kernels& choose_kernels(const Args& args);
// --threads N (or AUSPEX_THREADS): the threads the sessions opened afterwards split their work over; 1 by default.
void choose_threads(const Args& args);

// The table as CSV to the file of -o/--output, or to stdout without one; true when it went to a file.
bool write_output(const Args& args, const tools::Table& table);

}  // namespace ax::cli
