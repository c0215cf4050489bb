// One harness for the forecaster fixture cases: tests/fixtures/<kind>/<case>/ holds model.pt, config.json,
// case.json (window, horizon), history.csv (the window the author's loop forecast from) and forecast.csv (its
// forecast), made by the gen_*.py scripts beside them. A suite runs every case folder of its kind, converts a
// case and forecasts with it through these functions instead of a copy of its own.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "runtime/kernels.h"
#include "tools/text/csv.h"

namespace ax::test {

// The case folders of tests/fixtures/<kind>, sorted by name: a new case is a new folder, not a new list entry.
std::vector<std::string> fixture_cases(const std::string& kind);

struct ForecastCase {
    std::string name;  // "<kind>/<case>", for messages
    std::string dir;
    size_t window = 0, horizon = 0;  // case.json
    tools::Table history, forecast;
};

ForecastCase load_forecast_case(const std::string& kind, const std::string& name);

// How a case is converted: convert --dtype, its config (empty: the case's config.json; else this text, written
// to a scratch file), convert --map.
struct CaseConversion {
    format::DType dtype = format::DType::f32;
    std::string config_text;
    std::string map_path;
};

std::vector<uint8_t> convert_forecast_case(const ForecastCase& c, const CaseConversion& how = {});

// The forecast of the case's whole history for its horizon, by a host session on `k` of the case converted
// as `how` says.
std::vector<float> forecast_case(const ForecastCase& c, const Kernels& k, const CaseConversion& how = {});

}  // namespace ax::test
