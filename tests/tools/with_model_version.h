// A copy of a .axm model with config key model_version set (re-serialized, so every offset stays valid),
// for tests that need versioned models before `auspex convert --model-version` exists.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "runtime/model_file.h"
#include "tools/common/aligned_buffer.h"
#include "tools/convert/axm_writer.h"

namespace ax::test {

inline std::vector<uint8_t> with_model_version(const std::vector<uint8_t>& bytes, uint32_t version) {
    tools::AlignedBuffer buffer(bytes);
    ModelFile file;
    const Status s = ModelFile::open(buffer.data(), buffer.size(), Checksum::verify, &file);
    if (!s) throw std::runtime_error(s.message());
    tools::AxmModel m;
    m.family = file.family();
    for (uint32_t i = 0; i < file.config_count(); ++i) {
        uint32_t key = 0, value = 0;
        file.config_record(i, &key, &value);
        if (key != static_cast<uint32_t>(format::ConfigKey::model_version))
            m.config.emplace_back(static_cast<format::ConfigKey>(key), value);
    }
    m.config.emplace_back(format::ConfigKey::model_version, version);
    for (uint32_t i = 0; i < file.tensor_count(); ++i) {
        const TensorView v = file.tensor(i);
        tools::AxmTensor t;
        t.role = v.role;
        t.layer = v.layer;
        t.dtype = v.dtype;
        t.dims.assign(v.dims, v.dims + v.rank);
        const uint8_t* data = static_cast<const uint8_t*>(v.data);
        t.data.assign(data, data + v.data_bytes);
        if (v.scales) t.scales.assign(v.scales, v.scales + v.dims[0]);
        t.input_absmax = v.input_absmax;
        m.tensors.push_back(std::move(t));
    }
    return tools::serialize_axm(m);
}

}  // namespace ax::test
