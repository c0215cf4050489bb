// The inputs a forecast takes beside the history's values: calendar columns computed from timestamps, and
// the values of inputs known ahead for the forecast's own steps (--future FILE).
#pragma once
#include <string>
#include <vector>

#include "tools/cli/args.h"
#include "tools/host/model_loader.h"
#include "tools/text/csv.h"

namespace ax::cli {

// The CSV of --`option` as rows of the model's input `columns` (indices into its features): the features read
// by name (read_data_csv; by position when the model stores no names), the calendar features the model names
// computed from the file's time column. `last_rows` (0: all) reads only the file's last rows. `on_grid`: the
// rows are a forecast's window, whose timestamps must be evenly spaced (settle_window_times: a gap refused or
// filled by --fill, duplicates and disorder refused).
tools::Table read_model_rows(const Args& args, const std::string& option, const tools::LoadedModel& m,
                             const std::vector<size_t>& columns, const std::vector<std::string>& features,
                             size_t last_rows, bool on_grid = false);

// --`option`'s last `last_rows` rows (0: all) as the model's n_features columns: the features read by name
// (read_data_csv), the calendar features the model names computed from the file's time column; a forecast's
// window (`on_grid`) with its timestamps evenly spaced (read_model_rows).
tools::Table read_history(const Args& args, const tools::LoadedModel& m, const std::vector<std::string>& features,
                          size_t last_rows, const std::string& option = "input", bool on_grid = true);

// What ForecastSession::forecast takes as `future` for a forecast of `horizon` steps (horizon - 1 rows of
// n_features; empty when the model's decoder reads no input it does not predict). `forecast` holds the
// forecast's timestamps when `timed`. Calendar columns are computed from those timestamps (or --future's);
// other known inputs are read from --future by name, its rows matched to the forecast's by timestamp (in UTC
// when they give offsets); in file order only when neither the input nor --future has a time column.
std::vector<float> read_future(const Args& args, const tools::LoadedModel& m, const std::vector<std::string>& features,
                               const tools::Table& forecast, bool timed, size_t horizon);

}  // namespace ax::cli
