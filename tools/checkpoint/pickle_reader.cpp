// Opcode semantics per CPython's Lib/pickletools.py and PEP 307/3154; tensor and storage layout per
// torch/_utils.py and torch/serialization.py. Every object lives in one flat node pool referenced by
// index, so hostile cycles or deep nesting cannot leak or overflow the stack when the pool is freed.
#include "tools/checkpoint/pickle_reader.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "tools/common/tool_error.h"

namespace ax::tools {
namespace {

// Far above what real checkpoints need (about 20 objects per tensor), low enough that a hostile pickle
// is refused before it takes more than a few hundred MB.
constexpr size_t kMaxNodes = size_t{1} << 21;
constexpr size_t kMaxStack = size_t{1} << 20;
constexpr size_t kMaxMarks = size_t{1} << 12;
constexpr size_t kMaxMemo = size_t{1} << 21;
constexpr uint64_t kMaxString = uint64_t{1} << 24;
constexpr size_t kMaxGlobalLine = 256;
constexpr size_t kMaxRank = 8;
// Real names are tens of characters. The importers once matched names with std::regex, whose recursion grows
// with the name (a hostile name of ~50 KB overflowed the stack); the limit keeps every later step cheap.
constexpr size_t kMaxNameBytes = 1024;
// Even an empty tensor may not claim a dimension beyond int32 (what .axm stores), so that shape arithmetic
// downstream (3 * d_model, ...) cannot overflow.
constexpr int64_t kMaxDimension = INT32_MAX;
constexpr size_t kMaxKeysListed = 16;
constexpr size_t kMaxKeyShown = 64;

const char* const kSaveHint = "save the weights with torch.save(model.state_dict(), path)";

enum class Kind : uint8_t { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Storage, Tensor, Object };

using Ref = uint32_t;

struct Node {
    Kind kind = Kind::None;
    int64_t integer = 0;     // Bool/Int value; index into storages or views for Storage/Tensor
    double real = 0.0;       // Float value
    std::string text;        // String value; Global: "module.name"; Object: the class or callable that made it
    std::vector<Ref> items;  // Tuple/List elements; Dict keys and values interleaved
};

bool checked_mul(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
bool checked_add(int64_t a, int64_t b, int64_t& out) { return !__builtin_add_overflow(a, b, &out); }

bool is_storage_class(const std::string& qualified) {
    const std::string suffix = "Storage";
    return qualified.rfind("torch.", 0) == 0 && qualified.find('.', 6) == std::string::npos &&
           qualified.size() > 6 + suffix.size() &&
           qualified.compare(qualified.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Globals a state_dict pickle is made of; any other name marks a pickled Python object.
bool is_known_global(const std::string& name) {
    static const std::set<std::string> known = {
        "collections.OrderedDict",
        "torch._utils._rebuild_tensor_v2",
        "torch._utils._rebuild_tensor",
        "torch._utils._rebuild_parameter",
        "torch._utils._rebuild_parameter_with_state",
        "torch._tensor._rebuild_from_type_v2",
        "torch.Tensor",
        "torch.nn.parameter.Parameter",
    };
    return known.count(name) != 0 || is_storage_class(name);
}

class Machine {
public:
    Machine(const uint8_t* data, size_t size) : data_(data), size_(size) {
        make(Kind::None);
        make(Kind::Bool).integer = 0;
        make(Kind::Bool).integer = 1;
    }

    Ref run();
    PickledStateDict select_state_dict(Ref root, StateDictChoice* choice) const;
    PickledVocab torchtext_vocab() const;

private:
    static constexpr Ref kNone = 0, kFalse = 1, kTrue = 2;

    [[noreturn]] void fail(const std::string& what) const {
        throw ToolError("data.pkl: " + what + " (at byte " + std::to_string(op_offset_) + ")");
    }

    const uint8_t* take(uint64_t n) {
        if (n > size_ - pos_) fail("pickle is truncated");
        const uint8_t* p = data_ + pos_;
        pos_ += static_cast<size_t>(n);
        return p;
    }
    uint64_t take_le(size_t bytes) {
        const uint8_t* p = take(bytes);
        uint64_t v = 0;
        for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
        return v;
    }

    Node& make(Kind kind) {
        if (nodes_.size() >= kMaxNodes) fail("pickle creates too many objects");
        nodes_.emplace_back();
        nodes_.back().kind = kind;
        return nodes_.back();
    }
    Ref last() const { return static_cast<Ref>(nodes_.size() - 1); }
    Ref make_int(int64_t v) {
        make(Kind::Int).integer = v;
        return last();
    }
    Ref make_text(Kind kind, std::string text) {
        make(kind).text = std::move(text);
        return last();
    }
    Ref make_sequence(Kind kind, std::vector<Ref> items) {
        make(kind).items = std::move(items);
        return last();
    }

    // The stack below the innermost MARK belongs to an enclosing frame and cannot be popped.
    size_t floor() const { return marks_.empty() ? 0 : marks_.back(); }
    void push(Ref r) {
        if (stack_.size() >= kMaxStack) fail("pickle stack grows too deep");
        stack_.push_back(r);
    }
    Ref pop() {
        if (stack_.size() <= floor()) fail("pickle stack underflow");
        const Ref r = stack_.back();
        stack_.pop_back();
        return r;
    }
    Ref top() const {
        if (stack_.size() <= floor()) fail("pickle stack underflow");
        return stack_.back();
    }
    void mark() {
        if (marks_.size() >= kMaxMarks) fail("pickle nests MARKs too deeply");
        marks_.push_back(stack_.size());
    }
    std::vector<Ref> pop_mark() {
        if (marks_.empty()) fail("pickle pops a MARK it never set");
        std::vector<Ref> items(stack_.begin() + static_cast<std::ptrdiff_t>(marks_.back()), stack_.end());
        stack_.resize(marks_.back());
        marks_.pop_back();
        return items;
    }
    std::vector<Ref> pop_n(size_t n) {
        if (stack_.size() - floor() < n) fail("pickle stack underflow");
        std::vector<Ref> items(stack_.end() - static_cast<std::ptrdiff_t>(n), stack_.end());
        stack_.resize(stack_.size() - n);
        return items;
    }

    void memo_put(uint64_t index) {
        const Ref value = top();
        if (memo_.size() >= kMaxMemo && memo_.count(index) == 0) fail("pickle memo grows too large");
        memo_[index] = value;
    }
    Ref memo_get(uint64_t index) const {
        const auto it = memo_.find(index);
        if (it == memo_.end()) fail("pickle reads memo entry " + std::to_string(index) + " that was never written");
        return it->second;
    }

    std::string read_line() {
        const size_t limit = std::min(size_ - pos_, kMaxGlobalLine);
        const void* nl = std::memchr(data_ + pos_, '\n', limit);
        if (nl == nullptr) fail("GLOBAL name is unterminated or too long");
        const size_t len = static_cast<size_t>(static_cast<const uint8_t*>(nl) - (data_ + pos_));
        std::string line(reinterpret_cast<const char*>(take(len)), len);
        take(1);
        return line;
    }
    std::string read_string(uint64_t len) {
        if (len > kMaxString) fail("pickle string of " + std::to_string(len) + " bytes is too long");
        return std::string(reinterpret_cast<const char*>(take(len)), static_cast<size_t>(len));
    }
    // Python ints are arbitrary precision; those beyond 64 bits are kept as opaque values.
    Ref read_long(uint64_t len) {
        if (len > size_ - pos_) fail("pickle is truncated");
        if (len > 8) {
            take(len);
            return make_text(Kind::Object, "int wider than 64 bits");
        }
        const size_t n = static_cast<size_t>(len);
        uint64_t v = take_le(n);
        if (n > 0 && n < 8 && (data_[pos_ - 1] & 0x80)) v |= ~uint64_t{0} << (8 * n);
        return make_int(static_cast<int64_t>(v));
    }
    Ref read_float() {
        uint64_t bits = 0;
        for (const uint8_t *p = take(8), *end = p + 8; p != end; ++p) bits = bits << 8 | *p;  // big-endian
        make(Kind::Float);
        std::memcpy(&nodes_.back().real, &bits, sizeof bits);
        return last();
    }
    Ref make_global(const std::string& module, const std::string& name) {
        std::string qualified = module + "." + name;
        if (first_foreign_.empty() && !is_known_global(qualified)) first_foreign_ = qualified;
        return make_text(Kind::Global, std::move(qualified));
    }

    std::string describe(Ref r) const;
    const std::vector<Ref>& tuple_items(Ref r, const char* what) const {
        if (nodes_[r].kind != Kind::Tuple) fail(std::string(what) + " is " + describe(r) + ", not a tuple");
        return nodes_[r].items;
    }
    int64_t int_value(Ref r, const char* what) const {
        if (nodes_[r].kind != Kind::Int) fail(std::string(what) + " is " + describe(r) + ", not an int");
        return nodes_[r].integer;
    }
    const std::string& string_value(Ref r, const char* what) const {
        if (nodes_[r].kind != Kind::String) fail(std::string(what) + " is " + describe(r) + ", not a string");
        return nodes_[r].text;
    }

    Ref reduce(Ref callable, Ref args);
    Ref rebuild_tensor(const std::vector<Ref>& args, const std::string& function);
    Ref persistent_load(Ref pid);
    void set_items(Ref target, const std::vector<Ref>& items);
    void append(Ref target, const std::vector<Ref>& items);
    void build(Ref target, Ref state);
    [[noreturn]] void unsupported_opcode(uint8_t op) const;

    bool holds_tensors(Ref dict) const;
    Ref nested_state_dict(Ref root, StateDictChoice* choice) const;
    std::string key_text(Ref key) const;

    const uint8_t* data_;
    size_t size_;
    size_t pos_ = 0;
    size_t op_offset_ = 0;
    std::deque<Node> nodes_;  // a deque never moves its nodes, so references stay valid as it grows
    std::vector<Ref> stack_;
    std::vector<size_t> marks_;
    std::unordered_map<uint64_t, Ref> memo_;
    std::vector<PickledStorage> storages_;
    std::map<std::string, size_t> storage_by_key_;
    std::vector<PickledTensor> views_;
    std::string first_foreign_;
};

std::string Machine::describe(Ref r) const {
    const Node& n = nodes_[r];
    switch (n.kind) {
        case Kind::None:
            return "None";
        case Kind::Bool:
            return "a bool";
        case Kind::Int:
            return "an int";
        case Kind::Float:
            return "a float";
        case Kind::String:
            return "a string";
        case Kind::Tuple:
            return "a tuple";
        case Kind::List:
            return "a list";
        case Kind::Dict:
            return "a dict";
        case Kind::Global:
            return "the global " + n.text;
        case Kind::Storage:
            return "a bare storage";
        case Kind::Tensor:
            return "a tensor";
        case Kind::Object:
            return "a pickled " + n.text + " object";
    }
    return "an unknown value";
}

[[noreturn]] void Machine::unsupported_opcode(uint8_t op) const {
    // A pickled Python object is far likelier than a damaged file: name it and say what to save.
    if (!first_foreign_.empty()) {
        throw ToolError("checkpoint holds a pickled " + first_foreign_ + " object, not a state_dict; " + kSaveHint);
    }
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", op);
    fail(std::string("pickle opcode ") + hex + " is not used by torch state_dicts; " + kSaveHint);
}

Ref Machine::persistent_load(Ref pid) {
    const std::vector<Ref>& f = tuple_items(pid, "persistent id");
    if (f.size() != 5 || nodes_[f[0]].kind != Kind::String || nodes_[f[0]].text != "storage") {
        fail("persistent id is not a torch ('storage', type, key, location, numel) tuple");
    }
    if (nodes_[f[1]].kind != Kind::Global || !is_storage_class(nodes_[f[1]].text)) {
        fail("persistent id names " + describe(f[1]) + ", not a torch storage type");
    }
    PickledStorage s{string_value(f[2], "storage key"), nodes_[f[1]].text.substr(6), int_value(f[4], "storage size")};
    string_value(f[3], "storage location");
    if (s.numel < 0) fail("storage '" + s.key + "' has a negative size");

    const auto found = storage_by_key_.find(s.key);
    size_t index = storages_.size();
    if (found != storage_by_key_.end()) {
        index = found->second;
        if (storages_[index].type != s.type || storages_[index].numel != s.numel) {
            fail("storage '" + s.key + "' is described twice with different types or sizes");
        }
    } else {
        storage_by_key_.emplace(s.key, index);
        storages_.push_back(std::move(s));
    }
    make(Kind::Storage).integer = static_cast<int64_t>(index);
    return last();
}

// _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks[, metadata]) and
// the older _rebuild_tensor(storage, storage_offset, size, stride): only the first four matter here.
Ref Machine::rebuild_tensor(const std::vector<Ref>& args, const std::string& function) {
    const bool v2 = function == "torch._utils._rebuild_tensor_v2";
    if (v2 ? (args.size() != 6 && args.size() != 7) : args.size() != 4) {
        fail(function + " called with " + std::to_string(args.size()) + " arguments");
    }
    if (nodes_[args[0]].kind != Kind::Storage) fail(function + " given " + describe(args[0]) + ", not a storage");
    PickledTensor t;
    t.storage = static_cast<size_t>(nodes_[args[0]].integer);
    t.offset = int_value(args[1], "storage offset");
    const std::vector<Ref>& size = tuple_items(args[2], "tensor size");
    const std::vector<Ref>& stride = tuple_items(args[3], "tensor stride");
    if (size.size() != stride.size()) fail("tensor size and stride have different lengths");
    if (size.size() > kMaxRank) fail("tensor of rank " + std::to_string(size.size()) + " exceeds the limit of 8");
    if (t.offset < 0) fail("tensor has a negative storage offset");

    // Checked before anything is allocated: the element count, and the furthest element the view reads.
    int64_t numel = 1, furthest = t.offset;
    for (size_t i = 0; i < size.size(); ++i) {
        const int64_t n = int_value(size[i], "tensor dimension"), s = int_value(stride[i], "tensor stride");
        if (n < 0 || s < 0) fail("tensor has a negative dimension or stride");
        t.size.push_back(n);
        t.stride.push_back(s);
        int64_t reach = 0;
        if (!checked_mul(numel, n, numel) ||
            (n > 0 && (!checked_mul(n - 1, s, reach) || !checked_add(furthest, reach, furthest)))) {
            fail("tensor size overflows 64 bits");
        }
    }
    for (const int64_t n : t.size)
        if (n > kMaxDimension) fail("tensor dimension " + std::to_string(n) + " exceeds the limit of 2^31 - 1");
    const PickledStorage& storage = storages_[t.storage];
    if (numel > 0 && furthest >= storage.numel) {
        fail("tensor reads element " + std::to_string(furthest) + " of storage '" + storage.key + "', which holds " +
             std::to_string(storage.numel));
    }
    t.numel = numel;
    views_.push_back(std::move(t));
    make(Kind::Tensor).integer = static_cast<int64_t>(views_.size() - 1);
    return last();
}

Ref Machine::reduce(Ref callable, Ref args_ref) {
    if (nodes_[callable].kind != Kind::Global) fail("REDUCE calls " + describe(callable) + ", not a global");
    const std::string function = nodes_[callable].text;
    if (nodes_[args_ref].kind != Kind::Tuple) fail(function + " called with " + describe(args_ref) + ", not a tuple");
    const std::vector<Ref>& args = nodes_[args_ref].items;

    if (function == "collections.OrderedDict") {
        if (!args.empty()) fail("OrderedDict built from arguments");
        return make_sequence(Kind::Dict, {});
    }
    if (function == "torch._utils._rebuild_tensor_v2" || function == "torch._utils._rebuild_tensor") {
        return rebuild_tensor(args, function);
    }
    // A Parameter is its data tensor plus requires_grad, hooks and Python state, none of which matter.
    if (function == "torch._utils._rebuild_parameter" || function == "torch._utils._rebuild_parameter_with_state") {
        if (args.empty() || nodes_[args[0]].kind != Kind::Tensor) fail(function + " not given a tensor");
        return args[0];
    }
    // Tensors carrying Python attributes arrive as _rebuild_from_type_v2(func, type, args, state).
    if (function == "torch._tensor._rebuild_from_type_v2") {
        if (args.size() != 4 || nodes_[args[0]].kind != Kind::Global || nodes_[args[1]].kind != Kind::Global) {
            fail(function + " called with unexpected arguments");
        }
        const std::string inner = nodes_[args[0]].text, type = nodes_[args[1]].text;
        if (inner == "torch._utils._rebuild_tensor_v2" &&
            (type == "torch.Tensor" || type == "torch.nn.parameter.Parameter")) {
            return rebuild_tensor(tuple_items(args[2], "tensor arguments"), inner);
        }
        return make_text(Kind::Object, type);
    }
    return make_text(Kind::Object, function);
}

void Machine::set_items(Ref target, const std::vector<Ref>& items) {
    if (items.size() % 2 != 0) fail("SETITEMS given an odd number of items");
    Node& n = nodes_[target];
    if (n.kind == Kind::Dict) {
        n.items.insert(n.items.end(), items.begin(), items.end());
    } else if (n.kind != Kind::Object) {  // an opaque object's contents are never looked at
        fail("SETITEM on " + describe(target));
    }
}

void Machine::append(Ref target, const std::vector<Ref>& items) {
    Node& n = nodes_[target];
    if (n.kind == Kind::List) {
        n.items.insert(n.items.end(), items.begin(), items.end());
    } else if (n.kind != Kind::Object) {
        fail("APPEND on " + describe(target));
    }
}

// Python state set by BUILD (an OrderedDict's _metadata, an object's __dict__) plays no part in the weights;
// an object keeps its first state only for torchtext_vocab() to read.
void Machine::build(Ref target, Ref state) {
    const Kind k = nodes_[target].kind;
    if (k != Kind::Dict && k != Kind::Object) fail("BUILD on " + describe(target));
    if (k == Kind::Object && nodes_[target].items.empty()) nodes_[target].items.push_back(state);
}

Ref Machine::run() {
    for (;;) {
        op_offset_ = pos_;
        const uint8_t op = *take(1);
        switch (op) {
            case 0x80:  // PROTO
                if (*take(1) > 5) fail("pickle protocol is newer than 5");
                break;
            case 0x95:
                take(8);
                break;  // FRAME: only a hint for streaming readers
            case '}':
                push(make_sequence(Kind::Dict, {}));
                break;
            case ']':
                push(make_sequence(Kind::List, {}));
                break;
            case ')':
                push(make_sequence(Kind::Tuple, {}));
                break;
            case '(':
                mark();
                break;
            case '0':
                pop();
                break;
            case '1':
                pop_mark();
                break;
            case '2':
                push(top());
                break;
            case 't':
                push(make_sequence(Kind::Tuple, pop_mark()));
                break;
            case 0x85:
            case 0x86:
            case 0x87:  // TUPLE1..3
                push(make_sequence(Kind::Tuple, pop_n(op - 0x84u)));
                break;
            case 'c': {  // GLOBAL
                const std::string module = read_line();
                push(make_global(module, read_line()));
                break;
            }
            case 0x93: {  // STACK_GLOBAL
                const std::string name = string_value(pop(), "global name");
                push(make_global(string_value(pop(), "global module"), name));
                break;
            }
            case 'R': {
                const Ref args = pop();
                push(reduce(pop(), args));
                break;
            }
            case 0x81:
            case 0x92: {                // NEWOBJ, NEWOBJ_EX: building a class instance
                if (op == 0x92) pop();  // kwargs
                pop();                  // args
                const Ref cls = pop();
                push(make_text(Kind::Object, nodes_[cls].kind == Kind::Global ? nodes_[cls].text : "instance"));
                break;
            }
            case 'b': {
                const Ref state = pop();
                build(top(), state);
                break;
            }
            // Sets (protocol 4 pickles them natively, e.g. inside a whole nn.Module) are never weights.
            case 0x8f:
                push(make_text(Kind::Object, "set"));
                break;    // EMPTY_SET
            case 0x90: {  // ADDITEMS
                const std::vector<Ref> items = pop_mark();
                append(top(), items);
                break;
            }
            case 0x91:
                pop_mark();
                push(make_text(Kind::Object, "frozenset"));
                break;  // FROZENSET
            case 'q':
                memo_put(take_le(1));
                break;  // BINPUT
            case 'r':
                memo_put(take_le(4));
                break;  // LONG_BINPUT
            case 0x94:
                memo_put(memo_.size());
                break;  // MEMOIZE
            case 'h':
                push(memo_get(take_le(1)));
                break;
            case 'j':
                push(memo_get(take_le(4)));
                break;
            case 'J':
                push(make_int(static_cast<int32_t>(take_le(4))));
                break;
            case 'K':
                push(make_int(static_cast<int64_t>(take_le(1))));
                break;
            case 'M':
                push(make_int(static_cast<int64_t>(take_le(2))));
                break;
            case 0x8a:
                push(read_long(take_le(1)));
                break;  // LONG1
            case 0x8b:
                push(read_long(take_le(4)));
                break;  // LONG4
            case 'X':
                push(make_text(Kind::String, read_string(take_le(4))));
                break;
            case 0x8c:
                push(make_text(Kind::String, read_string(take_le(1))));
                break;
            case 0x8d:
                push(make_text(Kind::String, read_string(take_le(8))));
                break;
            case 'C':
            case 'B':
            case 0x8e: {  // SHORT_BINBYTES, BINBYTES, BINBYTES8
                read_string(take_le(op == 'C' ? 1 : op == 'B' ? 4 : 8));
                push(make_text(Kind::Object, "bytes"));
                break;
            }
            case 0x88:
                push(kTrue);
                break;
            case 0x89:
                push(kFalse);
                break;
            case 'N':
                push(kNone);
                break;
            case 'G':
                push(read_float());
                break;
            case 's': {
                const std::vector<Ref> kv = pop_n(2);
                set_items(top(), kv);
                break;
            }
            case 'u': {
                const std::vector<Ref> items = pop_mark();
                set_items(top(), items);
                break;
            }
            case 'a': {
                const Ref v = pop();
                append(top(), {v});
                break;
            }
            case 'e': {
                const std::vector<Ref> items = pop_mark();
                append(top(), items);
                break;
            }
            case 'Q':
                push(persistent_load(pop()));
                break;
            case '.':
                return pop();
            default:
                unsupported_opcode(op);
        }
    }
}

bool Machine::holds_tensors(Ref dict) const {
    const Node& d = nodes_[dict];
    if (d.kind != Kind::Dict) return false;
    for (size_t i = 1; i < d.items.size(); i += 2) {
        if (nodes_[d.items[i]].kind == Kind::Tensor) return true;
    }
    return false;
}

// For listing a dict's keys in a message, however long or odd they are.
std::string Machine::key_text(Ref key) const {
    const Node& k = nodes_[key];
    if (k.kind == Kind::Int) return std::to_string(k.integer);
    if (k.kind != Kind::String) return describe(key);
    return "'" + (k.text.size() > kMaxKeyShown ? k.text.substr(0, kMaxKeyShown) + "..." : k.text) + "'";
}

// Training scripts often save {"epoch": ..., "model_state_dict": ..., "optimizer_state_dict": ...}.
// EMA copies and best-so-far weights often sit beside the model's, so when several keys hold tensor dicts
// the one taken is reported, and --state-dict-key picks another.
Ref Machine::nested_state_dict(Ref root, StateDictChoice* choice) const {
    const std::vector<Ref>& items = nodes_[root].items;
    auto value_of = [&](const std::string& key) -> const Ref* {
        for (size_t i = 0; i + 1 < items.size(); i += 2) {
            if (nodes_[items[i]].kind == Kind::String && nodes_[items[i]].text == key) return &items[i + 1];
        }
        return nullptr;
    };
    std::set<Ref> candidates;
    std::set<Ref> scanned;  // many keys may share one value: scan each once
    std::vector<std::string> candidate_keys;
    std::string keys;
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
        if (scanned.insert(items[i + 1]).second && holds_tensors(items[i + 1])) {
            candidates.insert(items[i + 1]);
            candidate_keys.push_back(key_text(items[i]));
        }
        if (i / 2 < kMaxKeysListed) {
            keys += (keys.empty() ? "" : ", ") + key_text(items[i]);
        } else if (i / 2 == kMaxKeysListed) {
            keys += ", ...";
        }
    }
    auto take = [&](Ref r, const std::string& key) {
        if (choice != nullptr && candidates.size() > 1) {
            choice->taken = key;
            for (const std::string& k : candidate_keys)
                if (k != "'" + key + "'") choice->others.push_back(k);
        }
        return r;
    };
    if (choice != nullptr && !choice->key.empty()) {
        const Ref* v = value_of(choice->key);
        if (v == nullptr || !holds_tensors(*v))
            throw ToolError("checkpoint has no tensor dict under '" + choice->key +
                            "' (keys: " + (keys.empty() ? "none" : keys) + ")");
        return take(*v, choice->key);
    }
    for (const char* preferred : {"state_dict", "model_state_dict", "model"}) {
        const Ref* v = value_of(preferred);
        if (v != nullptr && holds_tensors(*v)) return take(*v, preferred);
    }
    if (candidates.size() == 1) return *candidates.begin();
    std::string listed;
    for (const std::string& k : candidate_keys) listed += (listed.empty() ? "" : ", ") + k;
    throw ToolError(
        std::string("checkpoint is a dict ") +
        (candidates.empty()
             ? "with no tensors (keys: " + (keys.empty() ? "none" : keys) + "), not a state_dict; " + kSaveHint
             : "with several nested tensor dicts (" + listed + "); pick one with --state-dict-key NAME"));
}

PickledStateDict Machine::select_state_dict(Ref root, StateDictChoice* choice) const {
    const Node& r = nodes_[root];
    if (r.kind != Kind::Dict) {
        throw ToolError("checkpoint holds " + describe(root) + ", not a state_dict; " + kSaveHint);
    }
    if (holds_tensors(root) && choice != nullptr && !choice->key.empty())
        throw ToolError("checkpoint is a plain state_dict, not a dict of several: --state-dict-key does not apply");
    const Ref chosen = holds_tensors(root) ? root : nested_state_dict(root, choice);
    const std::vector<Ref>& items = nodes_[chosen].items;

    PickledStateDict out;
    std::map<size_t, size_t> renumbered;  // only the storages the chosen dict uses, in first-use order
    std::set<std::string> seen;
    for (size_t i = 0; i + 1 < items.size(); i += 2) {
        if (nodes_[items[i]].kind != Kind::String) {
            throw ToolError("state_dict has a key that is " + describe(items[i]) + ", not a string");
        }
        const std::string& name = nodes_[items[i]].text;
        if (name.size() > kMaxNameBytes) {
            throw ToolError("state_dict key '" + name.substr(0, 64) + "...' is " + std::to_string(name.size()) +
                            " bytes long, above the limit of " + std::to_string(kMaxNameBytes));
        }
        const Node& value = nodes_[items[i + 1]];
        if (value.kind == Kind::Object && value.text.rfind("torch._utils._rebuild_", 0) == 0) {
            throw ToolError("state_dict entry '" + name + "' is a tensor of a kind this reader does not support (" +
                            value.text + "); save plain dense CPU tensors");
        }
        if (value.kind != Kind::Tensor) {
            throw ToolError("state_dict entry '" + name + "' is " + describe(items[i + 1]) + ", not a tensor; " +
                            kSaveHint);
        }
        if (!seen.insert(name).second) throw ToolError("state_dict has the key '" + name + "' twice");
        PickledTensor t = views_[static_cast<size_t>(nodes_[items[i + 1]].integer)];
        t.name = name;
        const auto it = renumbered.emplace(t.storage, out.storages.size());
        if (it.second) out.storages.push_back(storages_[t.storage]);
        t.storage = it.first->second;
        out.tensors.push_back(std::move(t));
    }
    return out;
}

// torchtext's Vocab pickles its C++ VocabPybind as a torchtext._torchtext.Vocab built from the state tuple
// (version, [default index] or [], itos, []).
PickledVocab Machine::torchtext_vocab() const {
    for (const Node& n : nodes_) {
        if (n.kind != Kind::Object || n.text != "torchtext._torchtext.Vocab") continue;
        if (n.items.empty() || nodes_[n.items[0]].kind != Kind::Tuple)
            throw ToolError("torchtext Vocab without its state tuple");
        const std::vector<Ref>& state = nodes_[n.items[0]].items;
        if (state.size() < 3 || nodes_[state[1]].kind != Kind::List || nodes_[state[2]].kind != Kind::List)
            throw ToolError("torchtext Vocab state is not (version, [default index], [tokens], ...)");
        PickledVocab v;
        const std::vector<Ref>& index = nodes_[state[1]].items;
        if (index.size() > 1) throw ToolError("torchtext Vocab state holds several default indexes");
        if (index.size() == 1) v.default_index = int_value(index[0], "torchtext Vocab default index");
        for (const Ref token : nodes_[state[2]].items) v.itos.push_back(string_value(token, "torchtext Vocab token"));
        return v;
    }
    throw ToolError("the file holds no torchtext Vocab (torchtext.vocab.Vocab saved with torch.save)");
}

}  // namespace

PickledVocab parse_torchtext_vocab(const uint8_t* data, size_t size) {
    Machine machine(data, size);
    machine.run();
    return machine.torchtext_vocab();
}

PickledStateDict parse_torch_pickle(const uint8_t* data, size_t size, StateDictChoice* choice) {
    Machine machine(data, size);
    const Ref root = machine.run();
    return machine.select_state_dict(root, choice);
}

}  // namespace ax::tools
