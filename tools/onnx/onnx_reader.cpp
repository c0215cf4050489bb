#include "tools/onnx/onnx_reader.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>

#include "runtime/half.h"
#include "tools/common/tool_error.h"
#include "tools/onnx/protobuf_reader.h"

namespace ax::onnx {

namespace {

namespace fs = std::filesystem;

struct Context {
    const uint8_t* base;
    std::string folder;  // of the model file; "" refuses external data
    std::string source;  // the file's name, for errors
};

[[noreturn]] void refuse(const Context& c, const std::string& why) { throw tools::ToolError(c.source + ": " + why); }

size_t raw_width(DataType t) {
    switch (t) {
        case DataType::int8:
        case DataType::uint8:
        case DataType::boolean:
            return 1;
        case DataType::int16:
        case DataType::uint16:
        case DataType::float16:
        case DataType::bfloat16:
            return 2;
        case DataType::int32:
        case DataType::uint32:
        case DataType::float32:
            return 4;
        case DataType::int64:
        case DataType::uint64:
        case DataType::float64:
            return 8;
        default:
            return 0;
    }
}

uint64_t little_endian(const uint8_t* p, size_t n) {
    uint64_t v = 0;
    for (size_t k = 0; k < n; ++k) v |= uint64_t{p[k]} << (8 * k);
    return v;
}

float bits_to_float(DataType t, uint64_t bits) {
    if (t == DataType::float16) return ax::half_to_float(static_cast<uint16_t>(bits));
    if (t == DataType::bfloat16) {
        const uint32_t b = static_cast<uint32_t>(bits) << 16;
        float f;
        std::memcpy(&f, &b, 4);
        return f;
    }
    if (t == DataType::float64) {
        double d;
        std::memcpy(&d, &bits, 8);
        return static_cast<float>(d);  // float64 graphs are evaluated in float32
    }
    const uint32_t b = static_cast<uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

int64_t bits_to_int(DataType t, uint64_t bits) {
    switch (t) {
        case DataType::int8:
            return static_cast<int8_t>(bits);
        case DataType::int16:
            return static_cast<int16_t>(bits);
        case DataType::int32:
            return static_cast<int32_t>(bits);
        case DataType::boolean:
            return bits != 0;
        default:
            return static_cast<int64_t>(bits);
    }
}

// Decodes `count` elements of `type` stored little-endian at `p` into the tensor's store.
void decode_raw(Tensor* t, const uint8_t* p, size_t count) {
    const size_t w = raw_width(t->type);
    if (t->is_float()) {
        t->f.resize(count);
        for (size_t k = 0; k < count; ++k) t->f[k] = bits_to_float(t->type, little_endian(p + k * w, w));
    } else {
        t->i.resize(count);
        for (size_t k = 0; k < count; ++k) t->i[k] = bits_to_int(t->type, little_endian(p + k * w, w));
    }
}

// The external data file named by `location`, which must stay inside the model's folder.
fs::path external_path(const Context& c, const std::string& tensor, const std::string& location) {
    const std::string what = "tensor " + tensor + "'s external data location \"" + location + "\"";
    if (c.folder.empty()) refuse(c, what + ": external data is read only from a model file, not from bytes");
    const fs::path rel(location);
    if (location.empty() || rel.is_absolute() || rel.has_root_name() || rel.has_root_directory())
        refuse(c, what +
                      " is not a file name relative to the model's folder: refused (keep the data file beside "
                      "the model)");
    for (const fs::path& part : rel)
        if (part == "..") refuse(c, what + " leaves the model's folder: refused (keep the data file beside the model)");
    std::error_code ec;
    const fs::path folder = fs::canonical(fs::path(c.folder), ec);
    if (ec) refuse(c, "cannot resolve the model's folder " + c.folder + ": " + ec.message());
    const fs::path file = fs::weakly_canonical(folder / rel, ec);
    if (ec) refuse(c, what + ": " + ec.message());
    // A symbolic link inside the folder may still point out of it.
    const std::string inside = folder.string() + "/";
    if (file.string().compare(0, inside.size(), inside) != 0)
        refuse(c, what + " resolves to " + file.string() + ", outside the model's folder: refused");
    return file;
}

void read_external(const Context& c, Tensor* t, const std::map<std::string, std::string>& entries, size_t count) {
    const auto get = [&](const char* key) {
        const auto it = entries.find(key);
        return it == entries.end() ? std::string() : it->second;
    };
    const auto number = [&](const char* key) -> uint64_t {
        const std::string v = get(key);
        if (v.empty()) return 0;
        uint64_t n = 0;
        for (char ch : v) {
            if (ch < '0' || ch > '9' || n > (UINT64_MAX - 9) / 10)
                refuse(c, "tensor " + t->name + "'s external data " + key + " \"" + v + "\" is not a byte count");
            n = n * 10 + static_cast<uint64_t>(ch - '0');
        }
        return n;
    };
    const fs::path file = external_path(c, t->name, get("location"));
    const uint64_t offset = number("offset");
    const uint64_t need = uint64_t{count} * raw_width(t->type);
    std::error_code ec;
    const uint64_t file_size = fs::file_size(file, ec);
    if (ec) refuse(c, "tensor " + t->name + "'s external data file " + file.string() + ": " + ec.message());
    const uint64_t length = entries.count("length") ? number("length") : file_size - std::min(offset, file_size);
    if (length != need)
        refuse(c, "tensor " + t->name + " needs " + std::to_string(need) + " bytes of external data, its entry says " +
                      std::to_string(length));
    if (offset > file_size || length > file_size - offset)
        refuse(c, "tensor " + t->name + "'s external data (" + std::to_string(length) + " bytes at " +
                      std::to_string(offset) + ") runs past the end of " + file.string() + " (" +
                      std::to_string(file_size) + " bytes)");
    std::ifstream in(file, std::ios::binary);
    std::vector<uint8_t> bytes(static_cast<size_t>(length));
    in.seekg(static_cast<std::streamoff>(offset));
    if (!in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(length)))
        refuse(c, "cannot read tensor " + t->name + "'s external data from " + file.string());
    decode_raw(t, bytes.data(), count);
}

Tensor read_tensor(const Context& c, ProtoReader r) {
    Tensor t;
    int32_t type = 0;
    const uint8_t* raw = nullptr;
    size_t raw_size = 0;
    bool has_raw = false, external = false;
    std::vector<float> floats;
    std::vector<double> doubles;
    std::vector<int64_t> ints;  // int32_data, int64_data or uint64_data: one of them
    std::map<std::string, std::string> entries;
    Field f;
    while (r.next(&f)) {
        switch (f.number) {
            case 1:
                r.int64s(f, &t.shape);
                break;
            case 2:
                type = r.int32(f);
                break;
            case 3:
                r.fail("segmented tensors are not supported");
            case 4:
                r.float32s(f, &floats);
                break;
            case 5:
            case 7:
            case 11:
                r.int64s(f, &ints);
                break;
            case 8:
                t.name = r.string(f);
                break;
            case 9:
                if (f.type != WireType::bytes) r.fail("raw_data is not a byte string");
                raw = f.data;
                raw_size = f.size;
                has_raw = true;
                break;
            case 10:
                r.float64s(f, &doubles);
                break;
            case 13: {
                ProtoReader e = r.nested(f, "ONNX StringStringEntryProto");
                std::string key, value;
                Field ef;
                while (e.next(&ef)) {
                    if (ef.number == 1) key = e.string(ef);
                    if (ef.number == 2) value = e.string(ef);
                }
                entries[key] = value;
                break;
            }
            case 14:
                external = r.varint(f) == 1;
                break;
            default:
                break;  // doc_string, string_data (string tensors are not computed on)
        }
    }
    t.type = static_cast<DataType>(type);
    const std::string what = c.source + ": tensor " + (t.name.empty() ? "(unnamed)" : t.name);
    if (t.shape.size() > 64) refuse(c, "tensor " + t.name + " has " + std::to_string(t.shape.size()) + " dimensions");
    const size_t count = element_count(t.shape, what);
    if (raw_width(t.type) == 0)
        refuse(c, "tensor " + t.name + " has element type " + data_type_name(t.type) + " (" + std::to_string(type) +
                      "), which auspex does not compute on");
    if (external) {
        read_external(c, &t, entries, count);
        return t;
    }
    if (has_raw) {
        if (raw_size != count * raw_width(t.type))
            refuse(c, "tensor " + t.name + " of shape " + shape_text(t.shape) + " and type " + data_type_name(t.type) +
                          " needs " + std::to_string(count * raw_width(t.type)) + " bytes of raw_data, it has " +
                          std::to_string(raw_size));
        decode_raw(&t, raw, count);
        return t;
    }
    const size_t have = floats.size() + doubles.size() + ints.size();
    if (have != count)
        refuse(c, "tensor " + t.name + " of shape " + shape_text(t.shape) + " holds " + std::to_string(have) +
                      " values, its shape needs " + std::to_string(count));
    if (t.type == DataType::float32) {
        if (floats.size() != count) refuse(c, "tensor " + t.name + ": float32 values must be in float_data");
        t.f = std::move(floats);
    } else if (t.type == DataType::float64) {
        if (doubles.size() != count) refuse(c, "tensor " + t.name + ": float64 values must be in double_data");
        t.f.assign(doubles.begin(), doubles.end());
    } else if (t.is_float()) {  // float16 / bfloat16: their bits in int32_data
        if (ints.size() != count) refuse(c, "tensor " + t.name + ": half-precision values must be in int32_data");
        t.f.resize(count);
        for (size_t k = 0; k < count; ++k) t.f[k] = bits_to_float(t.type, static_cast<uint64_t>(ints[k]));
    } else {
        if (ints.size() != count) refuse(c, "tensor " + t.name + ": integer values are in the wrong field");
        t.i.resize(count);
        for (size_t k = 0; k < count; ++k) t.i[k] = bits_to_int(t.type, static_cast<uint64_t>(ints[k]));
    }
    return t;
}

void read_type(ProtoReader r, ValueInfo* v) {
    Field f;
    while (r.next(&f)) {
        if (f.number != 1) continue;  // sequence, map, optional and sparse types: no tensor shape
        ProtoReader tt = r.nested(f, "ONNX TypeProto.Tensor");
        Field tf;
        while (tt.next(&tf)) {
            if (tf.number == 1) v->type = static_cast<DataType>(tt.int32(tf));
            if (tf.number != 2) continue;
            v->has_shape = true;
            ProtoReader shape = tt.nested(tf, "ONNX TensorShapeProto");
            Field sf;
            while (shape.next(&sf)) {
                if (sf.number != 1) continue;
                if (v->dims.size() >= 64) shape.fail("a shape of more than 64 dimensions");
                ProtoReader dim = shape.nested(sf, "ONNX TensorShapeProto.Dimension");
                Dim d;
                Field df;
                while (dim.next(&df)) {
                    if (df.number == 1) d.value = dim.int64(df);
                    if (df.number == 2) d.param = dim.string(df);
                }
                if (d.value < -1) dim.fail("a negative dimension " + std::to_string(d.value));
                v->dims.push_back(d);
            }
        }
    }
}

ValueInfo read_value_info(ProtoReader r) {
    ValueInfo v;
    Field f;
    while (r.next(&f)) {
        if (f.number == 1) v.name = r.string(f);
        if (f.number == 2) read_type(r.nested(f, "ONNX TypeProto"), &v);
    }
    return v;
}

Graph read_graph(const Context& c, ProtoReader r);

Attribute read_attribute(const Context& c, ProtoReader r) {
    Attribute a;
    Field f;
    while (r.next(&f)) {
        switch (f.number) {
            case 1:
                a.name = r.string(f);
                break;
            case 2:
                a.f = r.float32(f);
                break;
            case 3:
                a.i = r.int64(f);
                break;
            case 4:
                a.s = r.string(f);
                break;
            case 5:
                a.t = std::make_shared<Tensor>(read_tensor(c, r.nested(f, "ONNX TensorProto")));
                break;
            case 6:
                a.g = std::make_shared<Graph>(read_graph(c, r.nested(f, "ONNX GraphProto")));
                break;
            case 7:
                r.float32s(f, &a.floats);
                break;
            case 8:
                r.int64s(f, &a.ints);
                break;
            case 9:
                a.strings.push_back(r.string(f));
                break;
            case 10:
                a.tensors.push_back(read_tensor(c, r.nested(f, "ONNX TensorProto")));
                break;
            case 11:
                a.graphs.push_back(std::make_shared<Graph>(read_graph(c, r.nested(f, "ONNX GraphProto"))));
                break;
            case 20:
                a.type = static_cast<AttributeType>(r.int32(f));
                break;
            case 21:
                r.fail("attribute " + a.name + " refers to a function's attribute (functions are not supported)");
            default:
                break;  // doc_string, sparse tensors and type protos: kept only as their type
        }
    }
    if (static_cast<int32_t>(a.type) < 0 || static_cast<int32_t>(a.type) > 14)
        r.fail("attribute " + a.name + " has unknown type " + std::to_string(static_cast<int32_t>(a.type)));
    return a;
}

Node read_node(const Context& c, ProtoReader r) {
    Node n;
    Field f;
    while (r.next(&f)) {
        switch (f.number) {
            case 1:
                n.inputs.push_back(r.string(f));
                break;
            case 2:
                n.outputs.push_back(r.string(f));
                break;
            case 3:
                n.name = r.string(f);
                break;
            case 4:
                n.op_type = r.string(f);
                break;
            case 5:
                n.attributes.push_back(read_attribute(c, r.nested(f, "ONNX AttributeProto")));
                break;
            case 7:
                n.domain = r.string(f);
                break;
            default:
                break;
        }
    }
    if (n.op_type.empty()) r.fail("a node without an op_type");
    return n;
}

Graph read_graph(const Context& c, ProtoReader r) {
    Graph g;
    Field f;
    while (r.next(&f)) {
        switch (f.number) {
            case 1:
                g.nodes.push_back(read_node(c, r.nested(f, "ONNX NodeProto")));
                break;
            case 2:
                g.name = r.string(f);
                break;
            case 5:
                g.initializers.push_back(read_tensor(c, r.nested(f, "ONNX TensorProto")));
                break;
            case 11:
                g.inputs.push_back(read_value_info(r.nested(f, "ONNX ValueInfoProto")));
                break;
            case 12:
                g.outputs.push_back(read_value_info(r.nested(f, "ONNX ValueInfoProto")));
                break;
            case 13:
                g.value_info.push_back(read_value_info(r.nested(f, "ONNX ValueInfoProto")));
                break;
            case 15:
                r.fail("sparse initializers are not supported (export with dense weights)");
            default:
                break;
        }
    }
    return g;
}

Model read_model(const uint8_t* bytes, size_t size, const std::string& folder, const std::string& source);

}  // namespace

Model read_onnx_bytes(const uint8_t* bytes, size_t size, const std::string& folder, const std::string& source) {
    try {
        return read_model(bytes, size, folder, source);
    } catch (const tools::ToolError& e) {
        const std::string what = e.what();
        if (what.compare(0, source.size() + 2, source + ": ") == 0) throw;
        throw tools::ToolError(source + ": " + what);  // the protobuf reader's messages name no file
    }
}

namespace {

Model read_model(const uint8_t* bytes, size_t size, const std::string& folder, const std::string& source) {
    const Context c{bytes, folder, source};
    ProtoReader r(bytes, size, bytes, "ONNX ModelProto", 0);
    Model m;
    bool has_graph = false;
    Field f;
    while (r.next(&f)) {
        switch (f.number) {
            case 1:
                m.ir_version = r.int64(f);
                break;
            case 2:
                m.producer_name = r.string(f);
                break;
            case 3:
                m.producer_version = r.string(f);
                break;
            case 7:
                if (has_graph) r.fail("two graphs in one model");
                m.graph = read_graph(c, r.nested(f, "ONNX GraphProto"));
                has_graph = true;
                break;
            case 8: {
                ProtoReader o = r.nested(f, "ONNX OperatorSetIdProto");
                OpsetImport op;
                Field of;
                while (o.next(&of)) {
                    if (of.number == 1) op.domain = o.string(of);
                    if (of.number == 2) op.version = o.int64(of);
                }
                m.opsets.push_back(op);
                break;
            }
            default:
                break;
        }
    }
    if (m.ir_version <= 0 || !has_graph)
        throw tools::ToolError(source + ": not an ONNX model (" +
                               (m.ir_version <= 0 ? "no IR version" : std::string("no graph")) +
                               "); give a file written by torch.onnx.export or onnx.save");
    if (m.opsets.empty()) throw tools::ToolError(source + ": the model imports no operator set");
    return m;
}

}  // namespace

Model read_onnx_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw tools::ToolError("cannot open " + path + ": " + std::strerror(errno));
    std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) throw tools::ToolError("cannot read " + path);
    fs::path folder = fs::path(path).parent_path();
    if (folder.empty()) folder = ".";
    return read_onnx_bytes(bytes.data(), bytes.size(), folder.string(), path);
}

bool looks_like_onnx(const uint8_t* bytes, size_t size) {
    // Field 1 (ir_version, a small varint: key byte 0x08), then the key of producer_name (0x12), producer_version
    // (0x1a), domain (0x22), model_version (0x28), doc_string (0x32), graph (0x3a) or opset_import (0x42).
    if (size < 3 || bytes[0] != 0x08 || bytes[1] == 0 || bytes[1] > 0x7f) return false;
    for (uint8_t key : {0x12, 0x1a, 0x22, 0x28, 0x32, 0x3a, 0x42})
        if (bytes[2] == key) return true;
    return false;
}

}  // namespace ax::onnx
