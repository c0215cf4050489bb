// Reads the pickle (data.pkl) inside a torch.save archive without executing anything: a small stack
// machine that knows the opcodes of pickle protocols 2-5 that torch writes and understands only the
// globals torch uses to rebuild tensors. Any other class is kept as an opaque object so that a whole
// pickled nn.Module can be named and refused, not run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "tools/checkpoint/checkpoint.h"

namespace ax::tools {

// One storage as torch.save's persistent id describes it; its bytes are the archive entry data/<key>.
struct PickledStorage {
    std::string key;
    std::string type;  // torch storage class without the module, e.g. "FloatStorage"
    int64_t numel = 0;
};

// A tensor as torch._utils._rebuild_tensor_v2 describes it: a strided view of one storage. The parser
// has already checked that every element the view addresses lies inside the storage.
struct PickledTensor {
    std::string name;
    size_t storage = 0;  // index into PickledStateDict::storages
    int64_t offset = 0;  // in elements
    std::vector<int64_t> size;
    std::vector<int64_t> stride;
    int64_t numel = 0;
};

struct PickledStateDict {
    std::vector<PickledStorage> storages;  // one per distinct key
    std::vector<PickledTensor> tensors;    // in the pickle's order
};

// Interprets a data.pkl holding a state_dict, or a dict nesting one under a key such as "state_dict" or
// "model_state_dict". Throws ToolError for anything else, saying what to save instead.
PickledStateDict parse_torch_pickle(const uint8_t* data, size_t size, StateDictChoice* choice = nullptr);

// A torchtext.vocab.Vocab as torch.save pickles it: its tokens in id order (get_itos()) and the index
// set_default_index gave unknown words (-1: none, lookups of unknown words fail in torchtext).
struct PickledVocab {
    std::vector<std::string> itos;
    int64_t default_index = -1;
};
// Interprets a data.pkl holding a torchtext Vocab; throws ToolError for anything else.
PickledVocab parse_torchtext_vocab(const uint8_t* data, size_t size);

}  // namespace ax::tools
