#include "tools/convert/model_stamp.h"

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <ctime>

#include "runtime/bytes.h"
#include "runtime/model_identity.h"
#include "runtime/text_records.h"
#include "tools/common/tool_error.h"
#include "tools/axm/text_record_store.h"

#ifndef AUSPEX_VERSION
#error "AUSPEX_VERSION (the project version) is set by CMakeLists.txt for auspex_tools"
#endif

namespace ax::tools {

namespace {

void check_text_for(const std::string& option, const std::string& text, const TextRules& rules) {
    if (text.empty()) throw ToolError(option + " is empty");
    const Status s = check_text(text.data(), text.size(), rules, nullptr);
    // The text itself is not repeated: it may hold the line break that is refused.
    if (!s) throw ToolError(option + " is refused: " + s.message());
}

// The file name of a path, cut to the record's limit at a character boundary (a folder is the user's machine's,
// and the bytes of a model should not depend on where its check pair lay).
std::string stored_file_name(const std::string& path) {
    const size_t slash = path.find_last_of("/\\");
    std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
    if (name.size() > format::kMaxProofAgainstBytes) {
        size_t end = format::kMaxProofAgainstBytes;
        while (end > 0 && (static_cast<unsigned char>(name[end]) & 0xC0) == 0x80) --end;
        name.resize(end);
    }
    return name;
}

void stamp_proof(AxmModel& model, const ConversionProof& proof) {
    model.config.emplace_back(format::ConfigKey::proof,
                              static_cast<uint32_t>(proof.proven ? format::Proof::proven : format::Proof::unproven));
    if (!proof.proven) return;
    model.config.emplace_back(format::ConfigKey::proof_max_diff, float_to_bits(static_cast<float>(proof.max_diff)));
    model.config.emplace_back(format::ConfigKey::proof_tolerance, float_to_bits(static_cast<float>(proof.tolerance)));
    const std::string name = stored_file_name(proof.against);
    // A name the text rules refuse (a control character) is left out: what proved the model still stands.
    if (!name.empty() && check_text(name.data(), name.size(), kProofAgainstRules, nullptr))
        store_text_records(model, format::kProofAgainstKey, name, "the check output's name");
}

}  // namespace

std::string converter_version_text() { return std::string("auspex ") + AUSPEX_VERSION; }

uint32_t conversion_time() {
    if (const char* epoch = std::getenv("SOURCE_DATE_EPOCH")) {
        const std::string text = epoch;
        uint32_t seconds = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seconds);
        if (text.empty() || ec != std::errc() || end != text.data() + text.size())
            throw ToolError("SOURCE_DATE_EPOCH=\"" + text +
                            "\" is not a whole number of seconds since 1970 in 0..4294967295");
        return seconds;
    }
    const std::time_t now = std::time(nullptr);
    if (now < 0 || static_cast<uint64_t>(now) > 0xFFFFFFFFull)
        throw ToolError("the clock's time does not fit the model's u32 creation time; set SOURCE_DATE_EPOCH");
    return static_cast<uint32_t>(now);
}

void check_model_name(const std::string& name) { check_text_for("--model-name", name, kModelNameRules); }

void stamp_model(AxmModel& model, const std::string& name, std::optional<uint32_t> version,
                 const ConversionProof& proof) {
    if (!name.empty()) {
        check_model_name(name);
        store_text_records(model, format::kModelNameKey, name, "--model-name");
    }
    if (version) model.config.emplace_back(format::ConfigKey::model_version, *version);
    model.config.emplace_back(format::ConfigKey::created_time, conversion_time());
    const std::string converter = converter_version_text();
    check_text_for("the converter version", converter, kConverterVersionRules);
    store_text_records(model, format::kConverterVersionKey, converter, "the converter version");
    stamp_proof(model, proof);
}

}  // namespace ax::tools
