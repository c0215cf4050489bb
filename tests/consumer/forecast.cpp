// Forecasts with the C++ API (the forecaster family and the best port); same arguments and output as
// forecast.c, so the two programs must print the same numbers.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "models/forecaster/forecaster.h"
#include "ports/ports.h"

int main(int argc, char** argv) {
    if (argc != 5) return 2;
    std::ifstream in(argv[1], std::ios::binary);
    std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The model is read in place and must be 16-byte aligned: copy it into aligned storage once.
    std::vector<float> storage(bytes.size() / sizeof(float) + 1);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(storage.data()));
    const size_t rows = std::strtoul(argv[3], nullptr, 10), horizon = std::strtoul(argv[4], nullptr, 10);

    ax::ModelFile model;
    ax::Forecaster fc;
    ax::ForecastSession session;
    ax::Status s = ax::ModelFile::open(reinterpret_cast<const uint8_t*>(storage.data()), bytes.size(),
                                       ax::Checksum::verify, &model);
    if (s) s = ax::Forecaster::open(model, &fc);
    if (!s) {
        std::fprintf(stderr, "open: %s\n", s.message());
        return 1;
    }
    const size_t n_features = fc.config().n_features, n_outputs = fc.config().n_outputs;
    std::vector<float> history(rows * n_features), out(horizon * n_outputs);
    std::ifstream h(argv[2]);
    for (float& v : history)
        if (!(h >> v)) return 1;
    std::vector<double> arena((fc.arena_bytes(rows, horizon) + 7) / 8);
    s = session.init(fc, ax::best_kernels(), arena.data(), arena.size() * 8, rows, horizon);
    if (s) s = session.forecast(history.data(), rows, horizon, out.data());
    if (!s) {
        std::fprintf(stderr, "forecast: %s\n", s.message());
        return 1;
    }
    for (float v : out) std::printf("%.9g\n", v);
    return 0;
}
