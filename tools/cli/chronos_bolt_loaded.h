// A Chronos-Bolt model as the CLI's commands read it: a converted .axm run in the forecaster's session, or the
// published directory run on heap buffers (forecast, inspect, bench and verify take either).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/forecaster/chronos_bolt_file.h"
#include "runtime/model_file.h"
#include "tools/common/aligned_buffer.h"
#include "tools/host/chronos_bolt_host.h"

namespace ax::cli {

// "q0.1": a level as the forecast's header names it (shortest form that reads back as the same float).
std::string level_name(float q);

// The weights of a converted file, or of the published directory read directly.
class LoadedBolt {
public:
    explicit LoadedBolt(const std::string& path);
    const ChronosBoltWeights& weights() const { return directory_ ? directory_->weights() : opened_.weights; }
    bool is_file() const { return directory_ == nullptr; }
    const ModelFile& file() const { return file_; }
    const ForecasterConfig& config() const { return opened_.model.config(); }  // a file's description
    // A converted file runs in the forecaster's session, in an arena of exactly the size its blocks plan for
    // this context and horizon; the directory on heap buffers.
    size_t arena_bytes(size_t context, size_t horizon) const;
    // [quantiles, horizon].
    std::vector<float> forecast(const Kernels& k, const std::vector<float>& context, size_t horizon) const;

private:
    std::unique_ptr<tools::ChronosBoltHost> directory_;
    tools::AlignedBuffer bytes_;
    ModelFile file_;
    ChronosBoltModel opened_;
};

}  // namespace ax::cli
