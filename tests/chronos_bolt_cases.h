// The PyTorch reference's Chronos-Bolt cases (tests/fixtures/chronos_bolt/cases/, written by
// tests/fixtures/gen_chronos_bolt_fixtures.py): a context, a horizon and the [quantiles, horizon] forecast, and
// the check every Chronos-Bolt test holds a forecast to (within 1e-5 x max(1, max |out|)).
#pragma once
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "tests/test_support.h"

namespace ax::test {

struct ChronosBoltCase {
    size_t length = 0, horizon = 0, quantiles = 0;
    std::vector<float> context, want;
};

inline ChronosBoltCase read_chronos_bolt_case(const std::string& name) {
    std::ifstream in(fixture_path("chronos_bolt/cases/" + name + ".txt"));
    REQUIRE_MESSAGE(in.good(), "missing fixture chronos_bolt/cases/" << name << ".txt");
    ChronosBoltCase c;
    in >> c.length >> c.horizon >> c.quantiles;
    const auto read = [&](size_t n, std::vector<float>* to) {
        for (size_t i = 0; i < n; ++i) {
            std::string word;
            in >> word;
            REQUIRE_MESSAGE(!in.fail(), name << " is shorter than its sizes say");
            to->push_back(word == "nan" ? std::nanf("") : std::stof(word));
        }
    };
    read(c.length, &c.context);
    read(c.quantiles * c.horizon, &c.want);
    return c;
}

// got against the case's reference, both divided by max(1, max |want|) (check_close's error is per value).
inline void check_chronos_bolt_case(const std::vector<float>& got, const ChronosBoltCase& c, const std::string& what) {
    float scale = 1.0f;
    for (float v : c.want) scale = std::max(scale, std::fabs(v));
    std::vector<float> got_scaled(got.size()), want_scaled(c.want.size());
    for (size_t i = 0; i < got.size(); ++i) got_scaled[i] = got[i] / scale;
    for (size_t i = 0; i < c.want.size(); ++i) want_scaled[i] = c.want[i] / scale;
    check_close(got_scaled, want_scaled, 1e-5, what);
}

}  // namespace ax::test
