// Calendar features computed from timestamps, as forecasters feed them beside the series: the
// Time-Series-Library's time_features (each scaled to [-0.5, 0.5]), the raw fields pandas gives
// (timeenc=0), and sine/cosine pairs. A model says which of its input columns are which (config
// "calendar", stored as text records under format::kCalendarKey); forecast then computes them from the
// time column for the window and for the forecast's own timestamps.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "runtime/model_file.h"
#include "tools/axm/axm_writer.h"
#include "tools/text/csv.h"
#include "tools/text/csv_time.h"

namespace ax::tools {

// The names config "calendar" takes, each with the formula the docs state (docs/forecasting.md).
const std::vector<std::string>& calendar_feature_names();
bool is_calendar_feature(const std::string& name);

// The feature's value at an ISO timestamp (fields as written, in its own zone). `name` must be one of
// calendar_feature_names().
float calendar_value(const std::string& name, const TimePoint& when);

// Per input feature: its calendar feature's name, or "" (empty when the model stores none).
std::vector<std::string> calendar_of(const ModelFile& file);
// The same for a model being converted.
std::vector<std::string> calendar_of(const AxmModel& model);

// Fills column i of `rows` rows of `n` values (row-major `out`) with calendar feature kinds[i] (where not "")
// of source.times[r]; `path` names the source in errors (a time that is not a date or datetime).
void fill_calendar(const std::vector<std::string>& kinds, const Table& source, size_t rows, size_t n,
                   const std::string& path, float* out);

// A log as the model reads it: `read` holds the columns whose kind (kinds[i], one per model column) is "", in
// order; the others are computed from read's time column. `names` become the header. A log without a time
// column is refused when a column is computed. `read` is returned as it is when no kind is set.
Table with_calendar(const Table& read, const std::vector<std::string>& kinds, const std::vector<std::string>& names,
                    const std::string& path);

// Stores config "calendar" (feature name -> calendar feature) for `features`; throws ToolError for a name
// that is not a feature or not a calendar feature.
void store_calendar(AxmModel& model, const std::vector<std::string>& features,
                    const std::vector<std::pair<std::string, std::string>>& calendar);

}  // namespace ax::tools
