// Reading a data CSV in every command that takes one (forecast, run, verify, reconstruct, convert --calib):
// the shared options --delimiter, --columns and --fill, matching the model's stored feature names, the
// timestamps written beside a forecast.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/cli/args.h"
#include "tools/text/csv.h"

namespace ax::cli {

// `options` plus delimiter, columns, fill and time-format.
std::set<std::string> with_csv_options(std::set<std::string> options);
tools::CsvOptions csv_options(const Args& args);

// The CSV of --`option` for a model of `n_features` inputs, picked by the stored `features` names when
// the file has a header and --columns is not given. --columns that name the stored features are read in the
// model's order; names that are none of them feed the features in the order given (noted); a feature named
// in another feature's place beside other names is a UsageError. Notes left-out columns and filled cells on
// stderr.
// `last_rows` (0: all) reads only the file's last rows (tools::CsvOptions::last_rows).
tools::Table read_data_csv(const Args& args, const std::string& option, size_t n_features,
                           const std::vector<std::string>& features, size_t last_rows = 0);

// The header convention of every CSV a command writes (docs/forecasting.md, "CSV"). Columns that are the model's
// features are named as the input CSV names them, else by the names stored in the model; with neither,
// the output has no header line, like its input. Columns that are not features are always named by what
// they are: numbered_names(output_prefix(family), n) = "output_0".. (forecaster outputs), "logit_0".. (a
// seq2seq model's logits, by token id), "label_0".. (a classifier's outputs). The input's time column, when
// it has one, is written first (same_times; a teacher-forced pass's shifted to the step each row predicts,
// predicted_times; a forecast's extrapolated, forecast_times).
std::vector<std::string> feature_header(const tools::Table& input, const std::vector<std::string>& stored);
std::vector<std::string> numbered_names(const std::string& prefix, size_t n);
const char* output_prefix(format::Family family);

// Gives `to` the separator, decimal mark and line ends of `from`: every written CSV keeps its input's.
void same_style(const tools::Table& from, tools::Table& to);

// Gives `to` the time column (and style) of `from`, whose rows it has.
void same_times(const tools::Table& from, tools::Table& to);

// The timestamps of a teacher-forced pass's output: row i predicts the step after decoder input row i, so
// it gets input row i + 1's time (the last row the time after the input's last), or step numbers 1..N with
// a note on stderr when the input's are not evenly spaced.
void predicted_times(const tools::Table& decoder_input, const std::string& source, tools::Table& out);

// The forecast's timestamps (and style): the history's extrapolated, or step numbers 1..H with a note on stderr when
// the history's are not evenly spaced. True when the rows got timestamps (not numbers or nothing).
bool forecast_times(const tools::Table& history, const std::string& source, tools::Table& forecast);

}  // namespace ax::cli
