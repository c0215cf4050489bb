// Chronos-Bolt on the host straight from its published directory: the checkpoint's tensors
// (tools/import/chronos_bolt_import.h) viewed as the runtime's weights (models/forecaster/chronos_bolt.h), with
// heap buffers, for the tests and the converter's check.
#pragma once
#include <string>
#include <vector>

#include "models/forecaster/chronos_bolt.h"
#include "runtime/kernels.h"
#include "tools/import/chronos_bolt_import.h"

namespace ax::tools {

class ChronosBoltHost {
public:
    explicit ChronosBoltHost(ChronosBoltCheckpoint checkpoint);
    ChronosBoltHost(const ChronosBoltHost&) = delete;
    ChronosBoltHost& operator=(const ChronosBoltHost&) = delete;

    const ChronosBoltConfig& config() const { return checkpoint_.config; }
    const ChronosBoltWeights& weights() const { return weights_; }
    // [quantiles, horizon], row q the forecast of quantile level q; NaN in `context` = missing.
    std::vector<float> forecast(const Kernels& k, const std::vector<float>& context, size_t horizon) const;

private:
    ChronosBoltCheckpoint checkpoint_;
    std::vector<T5EncoderLayerWeights> encoder_;
    std::vector<T5DecoderLayerWeights> decoder_;
    ChronosBoltWeights weights_;
};

// [quantiles, horizon] from any bound weights (a published directory's or a .axm file's), with heap buffers.
std::vector<float> chronos_bolt_forecast_host(const Kernels& k, const ChronosBoltWeights& w,
                                              const std::vector<float>& context, size_t horizon);

// The runtime's shape of a checked config.
ChronosBoltShape chronos_bolt_shape(const ChronosBoltConfig& c);

}  // namespace ax::tools
