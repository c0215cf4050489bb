// Pieces the family descriptors share (tools/families/<family>_family.cpp): opening into the model variant,
// the token families' lengths, the planners' arena queries, the lines and macros more than one family prints.
#pragma once
#include <algorithm>
#include <string>

#include "tools/family/family_descriptor.h"
#include "runtime/vocabulary.h"
#include "tools/host/model_loader.h"

namespace ax::tools {

// inspect's description of a stored vocabulary: "837 tokens, basic_english, unknown words -> 0" ("none" when
// the model has none).
std::string vocabulary_text(const Vocabulary& v);
// `auspex header`'s macros of a stored vocabulary (none without one): PREFIX_TEXT_SCRATCH_BYTES(n), the exact
// scratch encode_text needs for texts of n bytes (runtime/tokenizer.h), and PREFIX_TEXT_MAX_IDS(n), the most
// ids it gives; constant expressions, so that a firmware sizes static buffers with them.
void add_vocabulary_macros(std::vector<HeaderMacro>& macros, const Vocabulary& v, const std::string& prefix);
// The expression of those macros for n (for the tests, which compare it with the runtime's figure).
std::string text_scratch_expression(const Vocabulary& v, const std::string& n);

// The token and latent families' sequence length when no length option is given (or the model's
// max_positions, when fewer).
constexpr size_t kDefaultTokens = 64;

// FamilyDescriptor::open of the family whose model class is `Model`.
template <typename Model>
Status open_as(const ModelFile& file, FamilyModel* out) {
    return Model::open(file, &out->emplace<Model>());
}

// A token length's default and limit: kDefaultTokens up to the model's positions.
inline size_t default_tokens(const LoadedModel&, size_t positions) { return std::min(kDefaultTokens, positions); }
inline size_t up_to_positions(const LoadedModel&, size_t positions) { return positions; }

// A token or row count set by `option`, kDefaultTokens up to the model's positions.
inline LengthSpec token_length(const char* option, const char* json, const char* macro, const char* macro_doc) {
    LengthSpec s;
    s.option = option;
    s.json = json;
    s.macro = macro;
    s.macro_doc = macro_doc;
    s.default_value = default_tokens;
    s.max_value = up_to_positions;
    return s;
}

// ArenaFacts::arena_for of one family: the arena its planner gives for the longest input n (the planner's
// first length) and the `fixed` other lengths, with the caches of another type (what --kv-cache would give).
template <typename Config, typename Plan, typename... Fixed>
std::function<size_t(size_t, format::CacheType)> arena_for(Config c, Plan plan, Fixed... fixed) {
    return [c, plan, fixed...](size_t n, format::CacheType t) {
        Config cached = c;
        cached.stack.kv_cache = t;
        MemoryPlan p;
        return plan(cached, n, fixed..., &p) ? p.total_bytes() : 0;
    };
}

// The arena of a family sized by one length (classifier, tvae): `len` `unit` (tokens, rows) of an `item`
// (input, sequence), planned into `plan`.
template <typename Model, typename Plan>
ArenaFacts one_length_arena(const Model& model, Plan plan_arena, size_t len, size_t limit, const std::string& item,
                            const char* unit, MemoryPlan* plan) {
    ArenaFacts a;
    const std::string up_to = item + "s up to " + std::to_string(len) + " " + unit;
    plan_arena(model.config(), len, plan);
    a.lengths = up_to;
    a.longest = item;
    a.longest_limit = limit;
    a.arena_for = arena_for(model.config(), plan_arena);
    a.line = std::to_string(model.arena_bytes(len)) + " bytes for " + up_to + " (set with --max-len)";
    return a;
}

// A token id or "none" (format::kNoToken).
std::string token_text(uint32_t id);

// The token families' input keys (runtime/embedding.h, read_token_input_config).
std::string token_inputs_line(format::PositionalEncoding pe, size_t max_positions, float embed_scale);

// "max_positions" as inspect prints it: the number, or "unlimited".
std::string positions_text(size_t max_positions);

// A header macro's value: "4 /* values per input row */".
HeaderMacro macro(const char* name, size_t v, const std::string& what);

// Token ids spread over the vocabulary, none the pad id: the timing does not depend on the ids, only on no
// position being masked.
std::vector<int32_t> bench_tokens(size_t n, size_t vocab, uint32_t pad);

// Smooth synthetic series: the timing does not depend on the values, only on their being finite.
std::vector<float> bench_series(size_t n, float phase);

// convert --find-config's axes of the Transformer stack every family has: nhead (the divisors of d_model, or
// the one a stored attention scale tells), activation, norm_first, layer_norm_eps (tried later) and the
// positions the family admits (a forecaster's learned table is read off the tensors: nothing to try).
std::vector<SearchAxis> stack_search_axes(const SearchFacts& facts);

// A key's values as JSON strings (enum names, "rows").
std::vector<std::optional<JsonValue>> text_values(std::initializer_list<const char*> names);

}  // namespace ax::tools
