// Serialises a model into the .axm format (docs/FORMAT.md): header, config records, tensor table,
// 64-byte aligned data, checksum.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/format.h"

namespace ax::tools {

struct AxmTensor {
    format::Role role{};
    uint16_t layer = format::kNoLayer;
    format::DType dtype = format::DType::f32;
    std::vector<uint32_t> dims;
    std::vector<uint8_t> data;           // little-endian element bytes
    std::vector<float> scales;           // int8 only: one per row
    std::vector<uint16_t> group_scales;  // int4 only: one IEEE half per group of 32 columns, [rows, cols / 32]
    float input_absmax = 0.0f;  // calibration (tools/convert/calibrate.h): max |input| seen by this matrix, 0 = none
    std::string source_name;    // checkpoint name, for messages only (not stored)
};

struct AxmModel {
    format::Family family = format::Family::forecaster;
    std::vector<std::pair<format::ConfigKey, uint32_t>> config;
    std::vector<AxmTensor> tensors;
    // What the importer assumed or left out, one line each, for convert to print (not serialized).
    std::vector<std::string> notes;
    // Config statements the weights cannot confirm and their layout argues against, one sentence each: convert
    // refuses them unless a check pair proves the conversion (not serialized).
    std::vector<std::string> unproven;
};

std::vector<uint8_t> serialize_axm(const AxmModel& model);

// Recomputes and stores the checksum of a serialized model (for tests that patch bytes on purpose).
void reseal_axm(std::vector<uint8_t>& bytes);

}  // namespace ax::tools
