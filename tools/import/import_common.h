// Pieces shared by the family importers of the token and latent families (seq2seq, classifier, tvae):
// handing out checkpoint tensors with shape checks and leftover tracking, finding nn.TransformerEncoder /
// TransformerDecoder layer stacks by structure, recognising sinusoidal tables, and the config records of
// a stack.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "tools/axm/axm_writer.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/import/convert_config.h"

namespace ax::tools {

struct ConfigKeySpec;

std::string shape_text(const std::vector<int64_t>& shape);
// "a, b, c", or "none": the candidates an error message lists.
std::string name_list(const std::vector<std::string>& names);

// Hands out checkpoint tensors by name and remembers which were used, so leftovers can be reported.
class CheckpointTensors {
public:
    explicit CheckpointTensors(const TensorMap& tensors) : tensors_(tensors) {}

    bool has(const std::string& name) const { return tensors_.count(name) != 0; }
    const std::vector<int64_t>& shape(const std::string& name) const;
    // The tensor, checked to have `expected` shape and finite values; marks it used.
    const HostTensor& take(const std::string& name, const std::vector<int64_t>& expected);
    void mark_used(const std::string& name) { used_.insert(name); }
    bool used(const std::string& name) const { return used_.count(name) != 0; }
    const TensorMap& all() const { return tensors_; }
    // The unused tensors near `name` (its layer's, when it is in a stack; else all), for "lacks" messages.
    std::string unmatched_near(const std::string& name) const;
    // The canonical tensors of `name`'s module in its layer (its attention, its feed-forward pair, its norms)
    // that the checkpoint does not provide, `name` included, for the same messages.
    std::string missing_near(const std::string& name) const;
    // "checkpoint lacks tensor X; ...": the canonical tensors nothing provided and the checkpoint's tensors
    // nothing matched there, which side by side show a misspelt module name.
    std::string lacks_message(const std::string& what) const;
    // Throws, listing the tensors nothing used, when there are any.
    void check_all_used(const std::string& family) const;

private:
    const TensorMap& tensors_;
    std::set<std::string> used_;
};

struct LayerStack {
    std::string prefix;  // ends with "layers."
    size_t count = 0;
    std::string root() const { return prefix.substr(0, prefix.size() - 7); }  // without "layers."
};

// Whether `name` is P + "N." + suffix with P ending in "layers." (P may start anywhere, as in
// "transformer.encoder.layers."); gives P and N. Throws on an absurd layer number.
bool split_layer_name(const std::string& name, const std::string& suffix, std::string* prefix, size_t* index);

// Layer stacks by structure: prefixes P holding P + "N.self_attn.in_proj_weight"; decoder stacks also hold
// "N.multihead_attn.in_proj_weight".
void find_layer_stacks(const TensorMap& tensors, std::vector<LayerStack>* encoders, std::vector<LayerStack>* decoders);

AxmTensor make_tensor(format::Role role, uint16_t layer, const std::string& name, const HostTensor& t);
// Takes checkpoint tensor `name` (checked to have `shape`, marked used) into the model as `role` of `layer`.
void add_tensor(CheckpointTensors& ck, AxmModel& m, format::Role role, const std::string& name,
                const std::vector<int64_t>& shape, uint16_t layer = format::kNoLayer);
// An nn.Linear(in, out) called `module`: its weight [out, in] as role `weight`, its bias [out] as the role
// after it (every family's bias role follows its weight role).
void add_linear(CheckpointTensors& ck, AxmModel& m, format::Role weight, const std::string& module, int64_t out,
                int64_t in, uint16_t layer = format::kNoLayer);

// A size the config states must be the one the tensor shows: the key of a model record (named as the key
// table names it), or a key the model does not store ("n_labels").
void check_stated(const std::optional<int64_t>& stated, int64_t actual, format::ConfigKey key,
                  const std::string& tensor, const std::vector<int64_t>& shape);
void check_stated(const std::optional<int64_t>& stated, int64_t actual, const char* key, const std::string& tensor,
                  const std::vector<int64_t>& shape);

// What an encoder (and optional decoder) stack gave the model.
struct StackShape {
    int64_t d_model = 0;
    int64_t values = 0;  // every attention's value columns, all heads: d_model, or nhead x value_dim
    int64_t dim_feedforward = 0;
    size_t encoder_layers = 0;
    size_t decoder_layers = 0;
    bool encoder_final_norm = false;
    bool decoder_final_norm = false;
    bool batch_norm = false;                 // the layers' own norms are BatchNorm1d (folded into a scale and a shift)
    std::string encoder_root, decoder_root;  // e.g. "transformer.encoder." ("" when absent)
};

// Layer-shaped groups outside the stacks (G + "self_attn.in_proj_weight" with G not "...layers.N."): the
// copy seed-style models keep as self.encoder_layer after nn.TransformerEncoder(encoder_layer, N) cloned it.
// Left out, with a note, when at its initial values (norms 1/0, attention biases 0: no forward ran through
// it in training); otherwise an error naming the map line that drops it. import_stacks calls it.
void leave_out_stray_layers(CheckpointTensors& ck, AxmModel& m);

// Finds one encoder stack and (when `decoder` is "required" or "optional") one decoder stack, adds every
// layer tensor and final norm to the model, checks the config's statements and nhead. `family` names the
// family in messages.
StackShape import_stacks(CheckpointTensors& ck, AxmModel& m, const ConvertConfig& config, bool decoder_required,
                         bool decoder_allowed, const std::string& family);

// The config records every stack family shares: d_model, nhead, dim_feedforward, layer counts, activation,
// norm_first, layer_norm_eps, final norms.
void add_stack_config(AxmModel& m, const StackShape& s, const ConvertConfig& config);

// Sets the record of `row`'s key to `value`, or removes it: when the key is not stated, or the value is one an
// import leaves unwritten (ConfigKeySpec::unwritten, unwritten_same_as).
void set_key_record(AxmModel& m, const ConfigKeySpec& row, bool stated, uint32_t value);

// The options a config states for the model's description (ConvertConfig::described), into m's records as
// they are; a value an import leaves unwritten (the key's row says which) is left out, a record already there
// replaced.
void write_described(const ConvertConfig& config, AxmModel& m);

// m's config records laid out as a model file holds them (runtime/config_records.h reads them).
std::vector<uint8_t> config_record_bytes(const AxmModel& m);

// Top-level nn.Linear modules (X.weight rank 2 plus X.bias) outside the layer stacks.
std::vector<std::string> find_linear_modules(const CheckpointTensors& ck);

// The head count a stored attention scale tells (PatchTST's sdp_attn.scale = head_dim ** -0.5, mapped to
// `<layer>.self_attn.scale`), when the checkpoint holds one that fits its d_model; nullopt otherwise.
std::optional<int64_t> nhead_from_scale(const TensorMap& tensors);

// True when `t` holds the sinusoidal table PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(...)
// over its rows (any shape ending in d: [L, d], [L, 1, d], [1, L, d]) from row 1 on; *row0_zero tells
// whether row 0 is zero (a padding row) rather than PE(0). *rows gets L.
bool is_sinusoidal_table(const HostTensor& t, int64_t d, bool* row0_zero, int64_t* rows);

bool name_has(const std::string& name, std::initializer_list<const char*> words);

float embed_scale_value(const ConvertConfig& config, int64_t d, float fallback);

// Config token ids: a stated id must be within the vocabulary.
uint32_t token_id(const std::optional<int64_t>& id, int64_t vocab, format::ConfigKey key);

// Lookup tables outside the layer stacks, told apart by content and name: frozen sinusoidal tables and
// `pe`-like buffers (recognised by their values, never stored: the runtime computes them), learned
// position tables (2-D [rows, d] `.weight` without a bias, named with "pos") and token tables (the rest:
// 2-D `.weight` without a bias, which a bias-free nn.Linear(d, n, bias=False) also looks like).
struct SinusoidalTable {
    std::string name;
    int64_t rows = 0;
    bool row0_zero = false;  // row 0 is a zero padding row rather than PE(0)
    bool embedding = false;  // an nn.Embedding weight (from_pretrained), not a buffer: indexing is the model's
};
struct TokenTables {
    std::vector<std::string> tokens;
    std::vector<std::string> positions;
    std::vector<SinusoidalTable> sinusoidal;  // one per side at most; all of one kind
    int64_t sinusoidal_rows() const;          // the fewest rows of any (0: none)
};
TokenTables find_token_tables(CheckpointTensors& ck, int64_t d);

// Picks the one name that is "source"-like (src_words) or "target"-like among candidates; "" when not
// exactly one fits.
std::string pick_by_words(const std::vector<std::string>& names, std::initializer_list<const char*> yes,
                          std::initializer_list<const char*> no);
extern const std::initializer_list<const char*> kSourceWords;
extern const std::initializer_list<const char*> kTargetWords;

// The positional encoding from the config (checked against the tables found) or inferred from the tables;
// sets *max_positions (0 = unlimited) from the sinusoidal tables' rows. Learned positions need
// min_learned..max_learned tables. A sinusoidal table held by an nn.Embedding whose row 0 is PE(0) can be
// indexed from 0 or from 1: without a config statement that is an error naming both choices. Such a table is
// the layout of models that look positions up from 1 with pads at row 0; "sinusoidal" stated for it is added
// to `unproven` (AxmModel::unproven: convert refuses it unless a check pair proves the conversion).
format::PositionalEncoding decide_positions(const ConvertConfig& config, const TokenTables& t, int64_t d,
                                            size_t min_learned, size_t max_learned, int64_t* max_positions,
                                            std::vector<std::string>* unproven = nullptr);

// The positions' limit: the rows of the checkpoint's position tables (`from_tables`; 0: they set none), or
// else the config's "max_positions" (0 when not stated). A statement contradicting the tables is an error
// naming `table` ("position table", ...).
int64_t max_positions_of(const ConvertConfig& config, int64_t from_tables, const char* table);

}  // namespace ax::tools
