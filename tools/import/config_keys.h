// The converter's config keys, one row each: its name, what it takes, the families it applies to, its
// default, one line of documentation, how it is read into ConvertConfig and which model config record its
// value lands in. The config reader, the scope check, the assumed-defaults notes, --find-config and
// docs/config-keys.md all come from this table: a new key is a row here plus the code that uses its value.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/format.h"
#include "tools/import/convert_config.h"

namespace ax::tools {

class JsonValue;

// A set of families, one bit per format::Family.
using FamilySet = uint32_t;
constexpr FamilySet family_bit(format::Family f) { return 1u << static_cast<uint32_t>(f); }
// Every family, a new one included: the keys of the Transformer stack itself.
constexpr FamilySet kAllFamilies = ~FamilySet{0};

struct ConfigKeySpec {
    std::string name;
    std::string kind;          // what it takes, for the docs: "integer 1..1048576", "\"relu\" or \"gelu\"", ...
    FamilySet families = 0;    // the families it applies to; 0: accepted by every family and ignored
    std::string default_text;  // what is taken when it is absent, for the docs
    std::string doc;           // one line
    const char* missing = "";  // required when set: what the error for its absence adds
    std::optional<format::ConfigKey> record;  // the model config record its value lands in
    bool noted_when_assumed = false;          // taken by default: noted by convert, recorded for inspect
    std::string assumed_note;                 // said after the value taken by default
    // A value a family without the key behaves as anyway: ignored there rather than refused (null: none).
    bool (*neutral)(const ConvertConfig& c) = nullptr;
    // Reads the value into the config; throws ToolError naming `where` for a wrong type or range.
    std::function<void(const JsonValue& v, const std::string& where, ConvertConfig* c)> read;
    // Whether a config built in code (not read from a file) holds a value for the key (null: cannot tell).
    std::function<bool(const ConvertConfig& c)> is_set;
    // The record's value as the config file writes it ("\"relu\"", "1e-05", "none").
    std::function<std::string(uint32_t value)> record_text;
    // The record's value for a JSON value of the key (an enum's number, 0/1, an integer, a float's bits), null
    // for a key whose value does not land in a record as it is.
    std::function<uint32_t(const JsonValue& v, const std::string& where)> record_value;
    // A value the importers leave unwritten, a file without the record reading as it (none: always written).
    std::optional<uint32_t> unwritten;
    // A record the importers leave unwritten when it equals this one's (the decoder's positions, the encoder's).
    std::optional<format::ConfigKey> unwritten_same_as;

    bool applies_to(format::Family f) const { return (families & family_bit(f)) != 0; }
    bool ignored() const { return families == 0; }
};

// Every key, in the order the docs list them.
const std::vector<ConfigKeySpec>& config_keys();

// The key named `name`, or nullptr.
const ConfigKeySpec* find_config_key(const std::string& name);

// The key whose value lands in `record` ("layer_norm_eps" for ConfigKey::layer_norm_eps); throws ToolError
// for a record no key sets.
const std::string& config_key_name(format::ConfigKey record);

// docs/config-keys.md: the table as Markdown; `searched`: the keys --find-config varies (its column).
std::string config_keys_markdown(const std::set<std::string>& searched);

}  // namespace ax::tools
