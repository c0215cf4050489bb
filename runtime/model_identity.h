// Which model a file holds, for updates in the field (docs/FORMAT.md, "Model identity"): the name and version
// the user gave the converter, when it was converted and by which converter version, and whether a check pair
// proved the conversion against PyTorch. All optional: a file without them (every file written before them)
// is unnamed and unversioned, and does not say whether it was proven. Nothing the runtime computes
// depends on them; the accessors read the mapped file and allocate nothing.
#pragma once
#include <cstddef>
#include <cstdint>

#include "runtime/model_file.h"
#include "runtime/status.h"
#include "runtime/text_records.h"

namespace ax {

// The name and converter version, when present, are one line of printable UTF-8 of 1..64 bytes
// (runtime/text_records.h); the version and creation time are any u32; the proof is one of format::Proof,
// its difference and tolerance finite and not negative, and only a proven model names what proved it.
Status check_model_identity(const ModelFile& f);

// Copies the model's name into out[capacity] with a terminating zero (truncated to capacity - 1 bytes) and
// returns its length in bytes, 0 when the model has none. format::kMaxModelNameBytes + 1 always suffices.
size_t model_name(const ModelFile& f, char* out, size_t capacity);
// The same for the converter's version ("auspex 0.9.0"); format::kMaxConverterVersionBytes + 1 suffices.
size_t converter_version(const ModelFile& f, char* out, size_t capacity);
// False when the model states no version (unversioned). A newer model has a larger version.
bool model_version(const ModelFile& f, uint32_t* version);
// False when the file does not say when it was converted; else seconds since 1970-01-01 UTC.
bool model_created_time(const ModelFile& f, uint32_t* unix_seconds);

// What the converter recorded about its proof against PyTorch (format::ConfigKey::proof).
struct ModelProof {
    bool recorded = false;  // false: the file does not say (converted before auspex recorded it)
    format::Proof proof = format::Proof::unproven;
    bool measured = false;  // proven, with the check's difference and tolerance recorded
    float max_diff = 0.0f;  // the float32 model's largest |difference| from the check output
    float tolerance = 0.0f;
};
// Reads the record; check_model_identity validated it when the file opened.
ModelProof model_proof(const ModelFile& f);
// The check output's file name (format::kProofAgainstKey) into out[capacity] with a terminating zero, as
// model_name; 0 when not recorded. format::kMaxProofAgainstBytes + 1 suffices.
size_t proof_against(const ModelFile& f, char* out, size_t capacity);

// The rules of the texts, shared with the converter that checks what the user gives.
extern const TextRules kModelNameRules;
extern const TextRules kConverterVersionRules;
extern const TextRules kProofAgainstRules;

}  // namespace ax
