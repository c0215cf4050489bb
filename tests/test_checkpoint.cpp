// Checkpoint readers: values against PyTorch's own (fixtures from tests/fixtures/gen_checkpoint_fixtures.py),
// refusal of everything that is not a plain state_dict, and hostile input (truncation, corruption,
// hand-made pickles and zips) that must be refused without crashing.
#include <doctest/doctest.h>

#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tools/checkpoint/checkpoint.h"
#include "tools/checkpoint/pickle_reader.h"
#include "tools/common/tool_error.h"
#include "tools/checkpoint/zip_archive.h"

using namespace ax::tools;
using namespace std::string_literals;  // pickles below contain NUL bytes

namespace {

std::string fixture(const std::string& name) { return std::string(AUSPEX_FIXTURE_DIR) + "/checkpoints/" + name; }

struct Expected {
    std::string dtype;
    std::vector<int64_t> shape;
    std::vector<uint32_t> bits;
};

// Format documented in gen_checkpoint_fixtures.py: name dtype rank dims... float32 bit patterns in hex.
std::map<std::string, Expected> read_expected(const std::string& name) {
    std::ifstream in(fixture(name));
    REQUIRE(in);
    std::map<std::string, Expected> out;
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::string tensor;
        Expected e;
        size_t rank = 0;
        fields >> tensor >> e.dtype >> rank;
        e.shape.resize(rank);
        for (int64_t& d : e.shape) fields >> d;
        uint32_t v = 0;
        while (fields >> std::hex >> v) e.bits.push_back(v);
        out.emplace(tensor, e);
    }
    return out;
}

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, sizeof b);
    return b;
}

void check_matches(const TensorMap& got, const std::string& expected_name) {
    const auto expected = read_expected(expected_name);
    CHECK(got.size() == expected.size());
    for (const auto& entry : expected) {
        const std::string& name = entry.first;
        const Expected& e = entry.second;
        CAPTURE(name);
        const auto it = got.find(name);
        REQUIRE(it != got.end());
        const HostTensor& t = it->second;
        CHECK(t.source_dtype == e.dtype);
        CHECK(t.shape == e.shape);
        REQUIRE(t.data.size() == e.bits.size());
        CHECK(t.numel() == static_cast<int64_t>(t.data.size()));
        size_t mismatches = 0;
        for (size_t i = 0; i < e.bits.size(); ++i) mismatches += bits_of(t.data[i]) != e.bits[i];
        CHECK(mismatches == 0);
    }
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const ToolError& e) {
        return e.what();
    }
    return "(no error)";
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Readers must only throw ToolError, whatever the bytes: any other exception (std::bad_alloc from a size
// taken on trust, std::out_of_range, ...) is a defect. A crash fails the suite by itself.
bool survives(const std::function<void()>& f) {
    try {
        f();
    } catch (const ToolError&) {
    } catch (...) {
        return false;
    }
    return true;
}

// --- hand-made inputs -------------------------------------------------------------------------------

void put_le(std::string& out, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out += static_cast<char>(v >> (8 * i) & 0xff);
}

std::string pickle_int(int64_t v) {  // LONG1 with 8 bytes holds any int64
    std::string s = "\x8a\x08";
    put_le(s, static_cast<uint64_t>(v), 8);
    return s;
}

std::string pickle_str(const std::string& text) {
    std::string s = "X";
    put_le(s, text.size(), 4);
    return s + text;
}

std::string pickle_tuple(const std::vector<int64_t>& values) {
    std::string s = "(";
    for (int64_t v : values) s += pickle_int(v);
    return s + "t";
}

// {name: tensor for each name}, all names viewing the same FloatStorage "0" of `numel` elements.
std::string tensor_pickle(int64_t numel, int64_t offset, const std::vector<int64_t>& size,
                          const std::vector<int64_t>& stride, const std::vector<std::string>& names = {"w"}) {
    std::string s = "\x80\x02}";
    s += pickle_str(names[0]);
    s += "ctorch._utils\n_rebuild_tensor_v2\n(";
    s += "(" + pickle_str("storage") + "ctorch\nFloatStorage\n" + pickle_str("0") + pickle_str("cpu") +
         pickle_int(numel) + "tQ";
    s += pickle_int(offset) + pickle_tuple(size) + pickle_tuple(stride) + "\x89N";
    s += "tRq\x01s";
    for (size_t i = 1; i < names.size(); ++i) s += pickle_str(names[i]) + "h\x01s";
    return s + ".";
}

PickledStateDict parse(const std::string& pickle) {
    return parse_torch_pickle(reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size());
}

// Appends little-endian fields given as {value, byte count}.
void put_fields(std::string& out, std::initializer_list<std::pair<uint64_t, int>> fields) {
    for (const auto& [value, bytes] : fields) put_le(out, value, bytes);
}

// An archive of stored entries; with zip64, every size and offset the format allows to be saturated is,
// and the real values sit in ZIP64 extra fields and end records, as in big torch checkpoints.
std::vector<uint8_t> make_zip(const std::vector<std::pair<std::string, std::string>>& files, bool zip64 = false) {
    const uint64_t sat32 = 0xFFFFFFFF, sat16 = 0xFFFF;
    std::string out, directory;
    for (const auto& [name, data] : files) {
        const uint64_t offset = out.size(), size = data.size(), name_len = name.size();
        put_fields(
            out,
            {{0x04034b50, 4}, {20, 2}, {0, 2}, {0, 2}, {0, 4}, {0, 4}, {size, 4}, {size, 4}, {name_len, 2}, {0, 2}});
        out += name + data;
        put_fields(directory, {{0x02014b50, 4},
                               {20, 2},
                               {20, 2},
                               {0, 2},
                               {0, 2},
                               {0, 4},
                               {0, 4},
                               {zip64 ? sat32 : size, 4},
                               {zip64 ? sat32 : size, 4},
                               {name_len, 2},
                               {zip64 ? 28 : 0, 2},
                               {0, 2},
                               {0, 2},
                               {0, 2},
                               {0, 4},
                               {zip64 ? sat32 : offset, 4}});
        directory += name;
        if (zip64) put_fields(directory, {{0x0001, 2}, {24, 2}, {size, 8}, {size, 8}, {offset, 8}});
    }
    const uint64_t directory_offset = out.size(), directory_size = directory.size(), count = files.size();
    out += directory;
    if (zip64) {
        const uint64_t end64 = out.size();
        put_fields(out, {{0x06064b50, 4},
                         {44, 8},
                         {45, 2},
                         {45, 2},
                         {0, 4},
                         {0, 4},
                         {count, 8},
                         {count, 8},
                         {directory_size, 8},
                         {directory_offset, 8}});
        put_fields(out, {{0x07064b50, 4}, {0, 4}, {end64, 8}, {1, 4}});
    }
    put_fields(out, {{0x06054b50, 4},
                     {0, 2},
                     {0, 2},
                     {zip64 ? sat16 : count, 2},
                     {zip64 ? sat16 : count, 2},
                     {zip64 ? sat32 : directory_size, 4},
                     {zip64 ? sat32 : directory_offset, 4},
                     {0, 2}});
    return std::vector<uint8_t>(out.begin(), out.end());
}

std::string floats(const std::vector<float>& values) {
    std::string s;
    for (float v : values) put_le(s, bits_of(v), 4);
    return s;
}

TensorMap read_zip(const std::vector<uint8_t>& zip) { return read_torch_checkpoint_bytes(zip.data(), zip.size()); }

}  // namespace

// --- values against PyTorch ----------------------------------------------------------------------------

TEST_CASE("torch checkpoint: every dtype widens to the float32 PyTorch computes") {
    check_matches(read_torch_checkpoint(fixture("dtypes.pt")), "dtypes.expected");
}

TEST_CASE("torch checkpoint: strided views, shared storages, scalars, parameters and empty tensors") {
    check_matches(read_torch_checkpoint(fixture("views.pt")), "views.expected");
}

TEST_CASE("torch checkpoint: a real module's state_dict, in protocol 2 and 4, plain and nested") {
    check_matches(read_torch_checkpoint(fixture("module.pt")), "module.expected");
    check_matches(read_torch_checkpoint(fixture("module_protocol4.pt")), "module.expected");
    check_matches(read_torch_checkpoint(fixture("nested.pt")), "module.expected");
}

TEST_CASE("safetensors: the same tensors read the same") {
    check_matches(read_safetensors(fixture("dtypes.safetensors")), "dtypes.expected");
    check_matches(read_safetensors(fixture("views.safetensors")), "views.expected");
    check_matches(read_safetensors(fixture("module.safetensors")), "module.expected");
}

TEST_CASE("read_checkpoint picks the reader from the leading bytes") {
    check_matches(read_checkpoint(fixture("dtypes.pt")), "dtypes.expected");
    check_matches(read_checkpoint(fixture("dtypes.safetensors")), "dtypes.expected");
    // This one's header length starts with byte 0x80, like a legacy torch pickle.
    check_matches(read_checkpoint(fixture("module.safetensors")), "module.expected");
    CHECK(contains(error_of([] { read_checkpoint(fixture("dtypes.expected")); }), "neither"));
    CHECK(contains(error_of([] { read_checkpoint(fixture("legacy.pt")); }), "legacy"));
}

TEST_CASE("hand-made archives, classic and ZIP64, with another prefix read a strided view") {
    for (bool zip64 : {false, true}) {
        CAPTURE(zip64);
        const auto zip = make_zip(
            {{"archive/data.pkl", tensor_pickle(6, 1, {2, 2}, {1, 2})}, {"archive/data/0", floats({0, 1, 2, 3, 4, 5})}},
            zip64);
        const TensorMap m = read_zip(zip);
        REQUIRE(m.count("w") == 1);
        CHECK(m.at("w").shape == std::vector<int64_t>{2, 2});
        CHECK(m.at("w").data == std::vector<float>{1, 3, 2, 4});
    }
}

// --- refusals ------------------------------------------------------------------------------------------

TEST_CASE("refused torch files say what is wrong and what to save instead") {
    const std::string hint = "torch.save(model.state_dict(), path)";
    struct Case {
        const char* file;
        std::vector<std::string> phrases;
    };
    const Case cases[] = {
        {"whole_module.pt", {"torch.nn.modules.linear.Linear", hint}},
        {"whole_module_protocol4.pt", {"TransformerEncoderLayer", hint}},
        {"legacy.pt", {"legacy", hint}},
        {"single_tensor.pt", {"holds a tensor, not a state_dict", hint}},
        {"two_models.pt", {"several nested", "'a', 'b'"}},
        {"int_inexact.pt", {"'big'", "16777217"}},
        {"complex.pt", {"'z'", "ComplexFloatStorage"}},
        {"deflated.pt", {"compressed"}},
        {"truncated.pt", {"end-of-central-directory"}},
        {"dtypes.safetensors", {"end-of-central-directory"}},
        {"module.safetensors", {"end-of-central-directory"}},
    };
    for (const Case& c : cases) {
        CAPTURE(c.file);
        CHECK_THROWS_AS(read_torch_checkpoint(fixture(c.file)), ToolError);
        const std::string message = error_of([&] { read_torch_checkpoint(fixture(c.file)); });
        CHECK(contains(message, fixture(c.file) + ": "));
        for (const std::string& phrase : c.phrases) CHECK(contains(message, phrase));
    }
}

TEST_CASE("refused safetensors files name the problem") {
    CHECK_THROWS_AS(read_safetensors(fixture("truncated.safetensors")), ToolError);
    CHECK(contains(error_of([] { read_safetensors(fixture("truncated.safetensors")); }), "outside"));
    CHECK_THROWS_AS(read_safetensors(fixture("bad_offset.safetensors")), ToolError);
    const std::string bad = error_of([] { read_safetensors(fixture("bad_offset.safetensors")); });
    CHECK(contains(bad, "'w'"));
    CHECK(contains(bad, "outside"));
    CHECK(contains(error_of([] { read_safetensors(fixture("dtypes.pt")); }), "implausible"));
    CHECK(contains(error_of([] { read_safetensors(fixture("no_such_file.safetensors")); }), "cannot open"));
    CHECK(contains(error_of([] { read_checkpoint(AUSPEX_FIXTURE_DIR); }), "is a directory"));
}

TEST_CASE("safetensors headers that lie are refused") {
    auto read = [](const std::string& header, size_t data_bytes) {
        std::string file;
        put_le(file, header.size(), 8);
        file += header + std::string(data_bytes, '\0');
        return error_of([&] { read_safetensors_bytes(reinterpret_cast<const uint8_t*>(file.data()), file.size()); });
    };
    CHECK(read(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 8) == "(no error)");
    CHECK(contains(read(R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8), "need 3 elements"));
    CHECK(contains(read(R"({"w":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}})", 8), "F8_E4M3"));
    CHECK(contains(read(R"({"w":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}})", 8), "non-negative"));
    CHECK(contains(read(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[8,0]}})", 8), "outside"));
    // Offsets are exact 64-bit integers: 2^53 + 1 is reported as written, not rounded to a double.
    CHECK(contains(read(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,9007199254740993]}})", 8),
                   "[0, 9007199254740993)"));
    CHECK(contains(read(R"({"w":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", 8), "non-negative integer"));
    CHECK(contains(read(R"({"w":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}})", 8),
                   "overflows"));
    CHECK(contains(read(R"({"w":{"dtype":"F32","shape":[1,1,1,1,1,1,1,1,1],"data_offsets":[0,4]}})", 8), "rank 9"));
    CHECK(contains(read(R"({"w":{},"w":{}})", 0), "duplicate"));
    CHECK(contains(read(R"({"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})", 8), "expected"));
    CHECK(contains(read(std::string(100, '[') + std::string(100, ']'), 0), "nesting deeper than 16 levels"));
    CHECK(contains(read(R"({"__metadata__":{"a":"b"}})", 0), "no tensors"));
    std::string many = "[0";
    for (int i = 0; i < (1 << 21); ++i) many += ",0";
    CHECK(contains(read(many + "]", 0), "too many values"));
    // A \u-escaped name decodes to UTF-8.
    const std::string name = error_of([&] {
        std::string header = R"({"\u00e9\ud83d\ude00":{"dtype":"I8","shape":[],"data_offsets":[0,1]}})";
        std::string file;
        put_le(file, header.size(), 8);
        file += header + "\x05";
        const TensorMap m = read_safetensors_bytes(reinterpret_cast<const uint8_t*>(file.data()), file.size());
        REQUIRE(m.count("\xc3\xa9\xf0\x9f\x98\x80") == 1);
        CHECK(m.begin()->second.data == std::vector<float>{5});
    });
    CHECK(name == "(no error)");
}

TEST_CASE("hostile pickles are refused before anything large is allocated") {
    CHECK(parse(tensor_pickle(6, 0, {2, 3}, {3, 1})).tensors.at(0).numel == 6);
    CHECK(contains(error_of([] { parse(tensor_pickle(6, 1, {2, 3}, {3, 1})); }), "reads element 6"));
    CHECK(contains(error_of([] { parse(tensor_pickle(6, 0, std::vector<int64_t>(9, 1), std::vector<int64_t>(9, 1))); }),
                   "rank 9"));
    CHECK(contains(error_of([] {
                       parse(tensor_pickle(6, 0, {int64_t{1} << 40, int64_t{1} << 40}, {1, 1}));
                   }),
                   "overflows"));
    CHECK(contains(error_of([] { parse(tensor_pickle(6, 0, {4}, {int64_t{1} << 62})); }), "overflows"));
    CHECK(contains(error_of([] { parse(tensor_pickle(6, 0, {2}, {-1})); }), "negative"));
    CHECK(contains(error_of([] { parse(tensor_pickle(-1, 0, {}, {})); }), "negative size"));
    CHECK(contains(error_of([] { parse(""); }), "truncated"));
    CHECK(contains(error_of([] { parse("\x80\x02I1\n."); }), "opcode 0x49"));
    CHECK(contains(error_of([] { parse("\x80\x02q\x00."s); }), "underflow"));
    CHECK(contains(error_of([] { parse("\x80\x02h\x07."); }), "never written"));
    CHECK(contains(error_of([] { parse(std::string("\x8d\xff\xff\xff\xff\xff\xff\xff\x7f", 9)); }), "too long"));
    CHECK(contains(error_of([] {
                       parse(
                           "\x80\x02X\xff\xff\x00\x00"
                           "abc"s);
                   }),
                   "truncated"));
    CHECK(contains(error_of([] { parse(std::string(5000, '(')); }), "MARKs too deeply"));
    CHECK(contains(error_of([] { parse(std::string(size_t{1} << 21, 'N')); }), "stack grows too deep"));
    CHECK(contains(error_of([] {
                       parse(
                           "\x80\x02"
                           "cos\nsystem\n"
                           "X\x02\x00\x00\x00ls\x85R."s);
                   }),
                   "pickled os.system object"));
    // 100k keys sharing one 100k-item dict: scanned once, not 100k times.
    std::string shared = "}q\x02("s;
    for (int i = 0; i < 100000; ++i) shared += "K\x01K\x01";
    shared +=
        "u0X\x01\x00\x00\x00kq\x01"
        "0}("s;
    for (int i = 0; i < 100000; ++i) shared += "h\x01h\x02";
    shared += "u.";
    CHECK(contains(error_of([&] { parse(shared); }), "no tensors (keys: 'k', 'k'"));
    CHECK(contains(error_of([] {
                       parse(
                           "\x80\x02"
                           "cmymodule\nMyModel\n"
                           "I1\n."s);
                   }),
                   "pickled mymodule.MyModel object, not a state_dict; save the weights with torch.save"));
    // A list containing itself: no hang, no leak, and a plain refusal.
    CHECK(contains(error_of([] {
                       parse(
                           "]q\x00h\x00"
                           "a."s);
                   }),
                   "holds a list"));
    CHECK(contains(error_of([] { parse("}X\x01\x00\x00\x00kK\x01s."s); }), "no tensors (keys: 'k')"));
    std::string mixed = tensor_pickle(6, 0, {6}, {1});
    mixed.insert(mixed.size() - 1, "X\x01\x00\x00\x00kK\x01s"s);
    CHECK(contains(error_of([&] { parse(mixed); }), "entry 'k' is an int, not a tensor"));
}

TEST_CASE("hand-made archives that lie are refused") {
    const std::string pickle = tensor_pickle(6, 0, {6}, {1});
    CHECK(contains(error_of([&] {
                       read_zip(make_zip({{"a/data.pkl", pickle}, {"a/data/0", floats({1, 2})}}));
                   }),
                   "smaller than its storage"));
    CHECK(contains(error_of([&] { read_zip(make_zip({{"a/data.pkl", pickle}})); }), "missing"));
    CHECK(contains(error_of([] { read_zip(make_zip({})); }), "no <name>/data.pkl"));
    CHECK(contains(error_of([] { read_zip(make_zip({{"a/data.pkl", "."}, {"b/data.pkl", "."}})); }), "several"));

    // Nine names viewing one storage whole: more than the 8x the reader expands.
    const int64_t n = int64_t{1} << 18;
    const std::vector<std::string> names = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
    const std::string big(static_cast<size_t>(n) * 4, '\0');
    CHECK(contains(error_of([&] {
                       read_zip(make_zip({{"a/data.pkl", tensor_pickle(n, 0, {n}, {1}, names)}, {"a/data/0", big}}));
                   }),
                   "more than 8 times"));
    const std::vector<std::string> eight(names.begin(), names.begin() + 8);
    CHECK(read_zip(make_zip({{"a/data.pkl", tensor_pickle(n, 0, {n}, {1}, eight)}, {"a/data/0", big}})).size() == 8);

    // The central directory claims more records than it has room for.
    std::vector<uint8_t> zip = make_zip({{"a/data.pkl", pickle}});
    zip[zip.size() - 12] = 0xff;  // total entries
    CHECK(contains(error_of([&] { read_zip(zip); }), "entry count"));
    zip = make_zip({{"a/data.pkl", pickle}});
    zip[zip.size() - 3] = 0x7f;  // directory offset
    CHECK(contains(error_of([&] { read_zip(zip); }), "outside the file"));
    zip = make_zip({{"a/data.pkl", pickle}}, true);
    zip[zip.size() - 22 - 20 + 15] = 0x7f;  // the locator's pointer to the ZIP64 end record
    CHECK(contains(error_of([&] { read_zip(zip); }), "broken ZIP64"));
    zip = make_zip({{"a/data.pkl", pickle}}, true);
    zip[zip.size() - 22 - 20 - 56 + 47] = 0x7f;  // ZIP64 directory size
    CHECK(contains(error_of([&] { read_zip(zip); }), "outside the file"));
}

// --- robustness ----------------------------------------------------------------------------------------

TEST_CASE("a torch checkpoint cut anywhere is refused, not misread") {
    for (const char* file : {"views.pt", "module_protocol4.pt"}) {
        const std::vector<uint8_t> whole = read_file_bytes(fixture(file));
        for (size_t cut = 0; cut < whole.size(); ++cut) {
            const std::vector<uint8_t> part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
            CAPTURE(cut);
            CHECK_THROWS_AS(read_torch_checkpoint_bytes(part.data(), part.size()), ToolError);
        }
    }
}

TEST_CASE("a data.pkl cut anywhere is refused") {
    const std::vector<uint8_t> file = read_file_bytes(fixture("nested.pt"));
    const ZipArchive zip(file.data(), file.size());
    const ZipEntry* entry = zip.find("nested/data.pkl");
    REQUIRE(entry != nullptr);
    const uint8_t* pkl = zip.entry_data(*entry);
    CHECK(parse_torch_pickle(pkl, entry->size).tensors.size() == read_expected("module.expected").size());
    for (size_t cut = 0; cut < entry->size; cut += 3) {  // every third cut keeps the quadratic loop quick
        const std::vector<uint8_t> part(pkl, pkl + cut);
        CAPTURE(cut);
        CHECK_THROWS_AS(parse_torch_pickle(part.data(), part.size()), ToolError);
    }
}

TEST_CASE("a safetensors file cut anywhere is refused") {
    const std::vector<uint8_t> whole = read_file_bytes(fixture("dtypes.safetensors"));
    for (size_t cut = 0; cut < whole.size(); ++cut) {
        const std::vector<uint8_t> part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
        CAPTURE(cut);
        CHECK_THROWS_AS(read_safetensors_bytes(part.data(), part.size()), ToolError);
    }
}

TEST_CASE("corrupting any single byte never crashes a reader") {
    for (const char* file : {"views.pt", "dtypes.safetensors"}) {
        std::vector<uint8_t> bytes = read_file_bytes(fixture(file));
        for (size_t i = 0; i < bytes.size(); ++i) {
            for (uint8_t flip : {uint8_t{0xff}, uint8_t{0x01}, uint8_t{0x80}}) {
                bytes[i] ^= flip;
                CHECK(survives([&] { read_torch_checkpoint_bytes(bytes.data(), bytes.size()); }));
                CHECK(survives([&] { read_safetensors_bytes(bytes.data(), bytes.size()); }));
                bytes[i] ^= flip;
            }
        }
    }
}

TEST_CASE("a dict of several state_dicts: the one taken is reported, --state-dict-key takes another") {
    // {"model": {"w": T}, "ema": {"w": T}, "step": 7}: T is memoized and fetched again for "ema".
    std::string t = tensor_pickle(4, 0, {2, 2}, {2, 1});
    const std::string tensor = t.substr(t.find("ctorch._utils"), t.find("tRq\x01"s) + 4 - t.find("ctorch._utils"));
    const std::string pickle = "\x80\x02}"s + pickle_str("model") + "}" + pickle_str("w") + tensor + "ss" +
                               pickle_str("ema") + "}" + pickle_str("w") + "h\x01" + "ss" + pickle_str("step") +
                               pickle_int(7) + "s.";
    StateDictChoice choice;
    const PickledStateDict taken =
        parse_torch_pickle(reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size(), &choice);
    CHECK(taken.tensors.size() == 1);
    CHECK(choice.taken == "model");
    CHECK(choice.others == std::vector<std::string>{"'ema'"});

    StateDictChoice ema{"ema", {}, {}};
    CHECK(parse_torch_pickle(reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size(), &ema).tensors.size() == 1);
    CHECK(ema.taken == "ema");
    CHECK(ema.others == std::vector<std::string>{"'model'"});
    StateDictChoice missing{"best", {}, {}};
    CHECK(error_of([&] {
              parse_torch_pickle(reinterpret_cast<const uint8_t*>(pickle.data()), pickle.size(), &missing);
          }) == "checkpoint has no tensor dict under 'best' (keys: 'model', 'ema', 'step')");

    // Without a preferred key the choice is the user's.
    StateDictChoice b{"b", {}, {}};
    const TensorMap from_b = read_checkpoint(fixture("two_models.pt"), &b);
    CHECK(from_b.size() == read_torch_checkpoint(fixture("module.pt")).size());
    CHECK(b.taken == "b");
    CHECK(b.others == std::vector<std::string>{"'a'"});
    StateDictChoice on_safetensors{"a", {}, {}};
    CHECK(contains(error_of([&] { read_checkpoint(fixture("dtypes.safetensors"), &on_safetensors); }),
                   "--state-dict-key"));
}
