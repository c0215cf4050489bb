#include "tests/fixture_case.h"

#include <algorithm>
#include <filesystem>

#include <doctest/doctest.h>

#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/convert/converter.h"
#include "tools/host/host_session.h"
#include "tools/host/model_loader.h"
#include "tools/text/json.h"

namespace ax::test {

std::vector<std::string> fixture_cases(const std::string& kind) {
    std::vector<std::string> names;
    for (const std::filesystem::directory_entry& e : std::filesystem::directory_iterator(fixture_path(kind)))
        if (e.is_directory()) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    REQUIRE_MESSAGE(!names.empty(), "no case folders in " << fixture_path(kind));
    return names;
}

ForecastCase load_forecast_case(const std::string& kind, const std::string& name) {
    ForecastCase c;
    c.name = kind + "/" + name;
    c.dir = fixture_path(c.name);
    const tools::JsonValue meta = tools::parse_json_file(c.dir + "/case.json");
    c.window = static_cast<size_t>(meta.find("window")->as_int("window", 1, 1000));
    c.horizon = static_cast<size_t>(meta.find("horizon")->as_int("horizon", 1, 1000));
    c.history = tools::read_csv(c.dir + "/history.csv");
    c.forecast = tools::read_csv(c.dir + "/forecast.csv");
    INFO("fixture " << c.name);
    REQUIRE(c.history.rows == c.window);
    REQUIRE(c.forecast.rows == c.horizon);
    return c;
}

std::vector<uint8_t> convert_forecast_case(const ForecastCase& c, const CaseConversion& how) {
    tools::ConvertOptions o;
    o.checkpoint_path = c.dir + "/model.pt";
    if (how.config_text.empty()) {
        o.config_path = c.dir + "/config.json";
    } else {
        std::string file = c.name + "_config.json";
        std::replace(file.begin(), file.end(), '/', '_');
        o.config_path = write_file(file, how.config_text);
    }
    o.dtype = how.dtype;
    o.map_path = how.map_path;
    return tools::convert_model(o);
}

std::vector<float> forecast_case(const ForecastCase& c, const Kernels& k, const CaseConversion& how) {
    const auto model = tools::load_model_bytes(convert_forecast_case(c, how), c.name);
    tools::HostSession s(*model, k, c.history.rows, c.horizon);
    return s.forecast(c.history.values.data(), c.history.rows, c.horizon);
}

}  // namespace ax::test
