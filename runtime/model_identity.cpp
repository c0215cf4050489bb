#include "runtime/model_identity.h"

#include <cmath>

#include "runtime/bytes.h"
#include "runtime/config_reader.h"
#include "runtime/format.h"
#include "runtime/text_records.h"

namespace ax {

const TextRules kModelNameRules{"model name", format::kMaxModelNameBytes, false};
const TextRules kConverterVersionRules{"converter version", format::kMaxConverterVersionBytes, false};
const TextRules kProofAgainstRules{"proof's check output", format::kMaxProofAgainstBytes, false};

namespace {

size_t copy_text(const ModelFile& f, uint32_t base_key, char* out, size_t capacity) {
    const size_t length = read_text_records(f, base_key, out, capacity > 0 ? capacity - 1 : 0);
    if (out != nullptr && capacity > 0) out[length < capacity - 1 ? length : capacity - 1] = '\0';
    return length;
}

Status bad_proof(const char* what) { return Status::error(StatusCode::bad_model, what); }

bool read_float(const ModelFile& f, format::ConfigKey key, float* out) {
    uint32_t bits = 0;
    if (!f.config(key, &bits)) return false;
    *out = bits_to_float(bits);
    return true;
}

Status check_proof(const ModelFile& f) {
    uint32_t v = 0;
    TextShape against;
    AX_RETURN_IF_ERROR(check_text_records(f, format::kProofAgainstKey, kProofAgainstRules, &against));
    const bool recorded = f.config(format::ConfigKey::proof, &v);
    format::Proof proof = format::Proof::unproven;
    if (recorded) AX_RETURN_IF_ERROR(read_config_enum(f, format::ConfigKey::proof, &proof));
    float diff = 0.0f, tolerance = 0.0f;
    const bool has_diff = read_float(f, format::ConfigKey::proof_max_diff, &diff);
    const bool has_tolerance = read_float(f, format::ConfigKey::proof_tolerance, &tolerance);
    const bool proven = recorded && proof == format::Proof::proven;
    if ((has_diff || has_tolerance || against.bytes != 0) && !proven)
        return bad_proof("config proof_max_diff, proof_tolerance and the proof's check output need proof proven");
    if (has_diff != has_tolerance) return bad_proof("config proof_max_diff and proof_tolerance go together");
    if (has_diff && (!std::isfinite(diff) || diff < 0.0f || !std::isfinite(tolerance) || tolerance < 0.0f))
        return bad_proof("config proof_max_diff and proof_tolerance must be finite and not negative");
    return Status::ok();
}

}  // namespace

Status check_model_identity(const ModelFile& f) {
    AX_RETURN_IF_ERROR(check_text_records(f, format::kModelNameKey, kModelNameRules, nullptr));
    AX_RETURN_IF_ERROR(check_text_records(f, format::kConverterVersionKey, kConverterVersionRules, nullptr));
    return check_proof(f);
}

ModelProof model_proof(const ModelFile& f) {
    ModelProof p;
    uint32_t v = 0;
    p.recorded = f.config(format::ConfigKey::proof, &v);
    if (!p.recorded) return p;
    p.proof = v == static_cast<uint32_t>(format::Proof::proven) ? format::Proof::proven : format::Proof::unproven;
    p.measured = read_float(f, format::ConfigKey::proof_max_diff, &p.max_diff) &&
                 read_float(f, format::ConfigKey::proof_tolerance, &p.tolerance);
    return p;
}

size_t proof_against(const ModelFile& f, char* out, size_t capacity) {
    return copy_text(f, format::kProofAgainstKey, out, capacity);
}

size_t model_name(const ModelFile& f, char* out, size_t capacity) {
    return copy_text(f, format::kModelNameKey, out, capacity);
}

size_t converter_version(const ModelFile& f, char* out, size_t capacity) {
    return copy_text(f, format::kConverterVersionKey, out, capacity);
}

bool model_version(const ModelFile& f, uint32_t* version) {
    return f.config(format::ConfigKey::model_version, version);
}

bool model_created_time(const ModelFile& f, uint32_t* unix_seconds) {
    return f.config(format::ConfigKey::created_time, unix_seconds);
}

}  // namespace ax
