// Reading a data CSV in every command that takes one (forecast, run, verify, reconstruct, convert --calib):
// the shared options --delimiter, --columns and --fill, matching the model's stored feature names, the
// timestamps written beside a forecast.
#pragma once
#include <set>
#include <string>
#include <vector>

#include "tools/cli/args.h"
#include "tools/text/csv.h"

namespace ax::cli {

// `options` plus delimiter, columns and fill.
std::set<std::string> with_csv_options(std::set<std::string> options);
tools::CsvOptions csv_options(const Args& args);

// The CSV of --`option` for a model of `n_features` inputs, picked by the stored `features` names when
// the file has a header and --columns is not given. Notes left-out columns and filled cells on stderr.
tools::Table read_data_csv(const Args& args, const std::string& option, size_t n_features,
                           const std::vector<std::string>& features);

// Gives `to` the time column (and separator, decimal mark) of `from`, whose rows it has.
void same_times(const tools::Table& from, tools::Table& to);

// The forecast's timestamps: the history's extrapolated, or step numbers 1..H with a note on stderr when
// the history's are not evenly spaced.
void forecast_times(const tools::Table& history, const std::string& source, tools::Table& forecast);

}  // namespace ax::cli
