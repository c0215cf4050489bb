// Helpers of the token and latent family suites (seq2seq, classifier, tvae): fixture cases and their
// conversion (the error measures are test_support.h's, the forecaster cases fixture_case.h's).
#pragma once
#include <cmath>
#include <string>
#include <vector>

#include "tests/test_support.h"
#include "tools/convert/converter.h"
#include "tools/text/json.h"
#include "tools/host/model_loader.h"

namespace ax::test {

inline std::vector<int32_t> json_ids(const tools::JsonValue& v, const std::string& what) {
    std::vector<int32_t> out;
    for (const tools::JsonValue& x : v.as_array(what)) out.push_back(static_cast<int32_t>(x.as_int(what, 0, 1 << 30)));
    return out;
}

inline tools::JsonValue case_json(const std::string& dir) { return tools::parse_json_file(dir + "/case.json"); }

// Converts DIR/checkpoint with DIR/config.json (convert --dtype, --kv-cache, --map).
inline std::vector<uint8_t> convert_case(const std::string& dir, format::DType dtype, format::CacheType kv_cache,
                                         const std::string& checkpoint = "model.pt", const std::string& map = "") {
    tools::ConvertOptions o;
    o.checkpoint_path = dir + "/" + checkpoint;
    o.config_path = dir + "/config.json";
    o.dtype = dtype;
    o.kv_cache = kv_cache;
    o.map_path = map;
    return tools::convert_model(o);
}

inline std::vector<uint8_t> convert_case(const std::string& dir, format::DType dtype = format::DType::f32,
                                         const std::string& checkpoint = "model.pt", const std::string& map = "") {
    return convert_case(dir, dtype, format::CacheType::f32, checkpoint, map);
}

// Defined by the family suites, shared with the rename-map suite: check every output of a fixture case in
// `dir` against a converted model, on every port; return the worst mixed error.
double check_seq2seq_model(const std::string& dir, const std::vector<uint8_t>& bytes, const std::string& label);
double check_tvae_model(const std::string& dir, const std::vector<uint8_t>& bytes, const std::string& label);

}  // namespace ax::test
