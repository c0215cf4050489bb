// Signed models end to end: keygen, sign, verify, inspect and header on the CLI; the runtime's check of the
// signature record (every byte of a signed model flipped in turn is refused); the C API's auspex_open_signed;
// A/B slots that take only signed updates and keep the running model when one is refused.
#include <doctest/doctest.h>

#include <sys/stat.h>

#include <array>
#include <cstring>
#include <string>
#include <vector>

#include "api/auspex.h"
#include "apps/firmware/ram_flash.h"
#include "runtime/bytes.h"
#include "runtime/model_signature.h"
#include "runtime/model_slots.h"
#include "tests/cli_support.h"
#include "tests/test_support.h"
#include "tools/checkpoint/checkpoint.h"
#include "tools/common/aligned_buffer.h"
#include "tools/convert/converter.h"
#include "tools/signing/signing_keys.h"

namespace {

using namespace ax;

using Seed = std::array<uint8_t, kEd25519SeedBytes>;

Seed seed_of(uint8_t fill) {
    Seed s;
    s.fill(fill);
    return s;
}

tools::PublicKey public_of(const Seed& s) {
    tools::PublicKey k;
    ed25519_public_key(s.data(), k.data());
    return k;
}

std::vector<uint8_t> model_bytes(uint32_t version) {
    tools::ConvertOptions o;
    o.model_version = version;
    o.checkpoint_path = test::fixture_path("forecaster/post_relu_tril/model.pt");
    o.config_path = test::fixture_path("forecaster/post_relu_tril/config.json");
    o.dtype = format::DType::i8;
    return tools::convert_model(o);
}

Status check(const std::vector<uint8_t>& bytes, const std::vector<tools::PublicKey>& keys) {
    tools::AlignedBuffer b(bytes);
    return check_model_signature(
        b.data(), b.size(),
        TrustedKeys{reinterpret_cast<const uint8_t(*)[kEd25519PublicKeyBytes]>(keys.data()), keys.size()});
}

bool has(const Status& s, const char* text) { return std::strstr(s.message(), text) != nullptr; }

}  // namespace

TEST_CASE("signed models: the record after the model, refused unsigned, foreign or changed in any byte") {
    const Seed owner = seed_of(7), stranger = seed_of(9);
    const std::vector<uint8_t> model = model_bytes(3);
    const std::vector<uint8_t> signed_bytes = tools::signed_model(model, owner);
    REQUIRE(signed_bytes.size() == model.size() + kSignatureRecordBytes);
    CHECK(std::equal(model.begin(), model.end(), signed_bytes.begin()));
    CHECK(check(signed_bytes, {public_of(owner)}).is_ok());
    CHECK(check(signed_bytes, {public_of(stranger), public_of(owner)}).is_ok());  // a set of keys

    const Status unsigned_model = check(model, {public_of(owner)});
    CHECK(unsigned_model.code() == StatusCode::bad_signature);
    CHECK(has(unsigned_model, "the model is unsigned"));
    const Status foreign = check(tools::signed_model(model, stranger), {public_of(owner)});
    CHECK(foreign.code() == StatusCode::bad_signature);
    CHECK(has(foreign, "signed by a key this device does not trust"));
    CHECK(check(signed_bytes, {}).code() == StatusCode::bad_signature);
    // Signing again replaces the record; signing twice with one key gives the same bytes (Ed25519 is
    // deterministic).
    CHECK(tools::signed_model(tools::signed_model(model, stranger), owner) == signed_bytes);
    // A record cut short is no record.
    CHECK(check(std::vector<uint8_t>(signed_bytes.begin(), signed_bytes.end() - 1), {public_of(owner)}).code() ==
          StatusCode::bad_signature);

    // Bytes flipped in turn: every byte of the header, the config records and the signature record, and the
    // tensor records and weights at a stride (each flip costs a whole verification, a few milliseconds;
    // tests/fuzz/fuzz_model_signature.cpp flips at random for longer).
    const size_t config_end = format::kHeaderBytes + 8 * load_u32(model.data() + format::header::config_count);
    std::vector<size_t> positions;
    for (size_t i = 0; i < config_end; ++i) positions.push_back(i);
    for (size_t i = config_end; i < model.size(); i += 1499) positions.push_back(i);
    for (size_t i = model.size(); i < signed_bytes.size(); i += 3) positions.push_back(i);
    size_t refused = 0;
    for (size_t at : positions) {
        std::vector<uint8_t> bad = signed_bytes;
        bad[at] ^= static_cast<uint8_t>(1u << (at % 8));
        refused += check(bad, {public_of(owner)}).code() != StatusCode::ok;
    }
    CHECK(refused == positions.size());
}

TEST_CASE("signed models: auspex_open_signed opens the owner's model and refuses the others") {
    const Seed owner = seed_of(7);
    const tools::PublicKey key = public_of(owner);
    unsigned char keys[1][32];
    std::memcpy(keys[0], key.data(), 32);
    const std::vector<uint8_t> model = model_bytes(3);
    const tools::AlignedBuffer signed_model(tools::signed_model(model, owner));
    auspex_forecaster f;
    CHECK(auspex_open_signed(&f, signed_model.data(), signed_model.size(), 1, keys, 1) == AUSPEX_OK);
    CHECK(auspex_n_features(&f) == 1);
    // The plain open reads a signed model too (the record is past the model's end).
    CHECK(auspex_open(&f, signed_model.data(), signed_model.size(), 1) == AUSPEX_OK);
    const tools::AlignedBuffer plain(model);
    CHECK(auspex_open_signed(&f, plain.data(), plain.size(), 1, keys, 1) == AUSPEX_BAD_SIGNATURE);
    CHECK(std::string(auspex_status_message(&f)).find("unsigned") != std::string::npos);
    CHECK(auspex_n_features(&f) == 0);
    tools::AlignedBuffer changed(tools::signed_model(model, owner));
    changed.data()[model.size() / 2] ^= 1;
    CHECK(auspex_open_signed(&f, changed.data(), changed.size(), 0, keys, 1) == AUSPEX_BAD_SIGNATURE);
    CHECK(auspex_open_signed(&f, signed_model.data(), signed_model.size(), 1, nullptr, 0) == AUSPEX_INVALID_ARGUMENT);
}

TEST_CASE("signed models: A/B slots take only signed updates; a tampered one leaves the old model running") {
    const Seed owner = seed_of(7), stranger = seed_of(9);
    const tools::PublicKey key = public_of(owner);
    const uint8_t(*keys)[kEd25519PublicKeyBytes] = reinterpret_cast<const uint8_t(*)[kEd25519PublicKeyBytes]>(&key);
    const std::vector<uint8_t> v1 = tools::signed_model(model_bytes(1), owner);
    const std::vector<uint8_t> v2 = tools::signed_model(model_bytes(2), owner);
    constexpr size_t kSector = 4096;
    const size_t slot = (v1.size() + 2 * kSector - 1) / kSector * kSector;
    tools::AlignedBuffer memory(2 * kSector + 2 * slot);
    example::RamFlash flash;
    flash.base = memory.data();
    flash.bytes = memory.size();
    REQUIRE(example::RamFlash::erase(&flash, memory.data(), memory.size()));
    ModelSlots slots;
    slots.require_signature(TrustedKeys{keys, 1});
    auto boot = [&] { return slots.mount(example::ram_slot_flash(&flash, kSector, slot), nullptr, nullptr); };
    auto send = [&](const std::vector<uint8_t>& bytes) {
        AX_RETURN_IF_ERROR(slots.begin_update());
        AX_RETURN_IF_ERROR(slots.write_update(bytes.data(), bytes.size()));
        return slots.commit_update();
    };
    boot();
    REQUIRE(send(v1).is_ok());
    CHECK(slots.version() == 1);
    // Unsigned, a stranger's, tampered, and the signed model without its record: refused, v1 stays.
    std::vector<uint8_t> tampering = v2;
    tampering[tampering.size() / 3] ^= 0x10;
    const std::vector<uint8_t> tampered = tampering;
    const std::vector<uint8_t> cut(v2.begin(), v2.end() - static_cast<std::ptrdiff_t>(kSignatureRecordBytes));
    const std::vector<uint8_t> foreign = tools::signed_model(model_bytes(2), stranger);
    for (const std::vector<uint8_t>* bad : {&cut, &tampered, &foreign}) {
        const Status s = send(*bad);
        // A change inside the model fails its checksum before its signature; either way it is refused.
        CHECK(s.code() == (bad == &tampered ? StatusCode::bad_model : StatusCode::bad_signature));
        CHECK(has(s, "update refused"));
        CHECK(slots.active() == 0);
        CHECK(slots.version() == 1);
        REQUIRE(boot().is_ok());
        CHECK(slots.version() == 1);
    }
    REQUIRE(send(v2).is_ok());
    CHECK(slots.version() == 2);
    REQUIRE(boot().is_ok());
    CHECK(slots.version() == 2);
    // The older signed model is refused as an update: its version is in what the owner signed.
    CHECK(!send(v1).is_ok());
    CHECK(slots.version() == 2);
}

TEST_CASE("cli: keygen, sign, verify --public, inspect and header KEY.pub") {
    const std::string dir = test::scratch_dir().string();
    const std::string model = test::converted_fixture("forecaster/post_relu_tril", "sign_me.axm");
    const test::Result gen = test::auspex("keygen -o " + dir + "/owner");
    INFO(gen.output);
    REQUIRE(gen.exit_code == 0);
    struct stat st;
    REQUIRE(::stat((dir + "/owner.key").c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0600);
    const std::string secret = test::lines_of(dir + "/owner.key")[1];
    CHECK(gen.output.find(secret) == std::string::npos);  // never printed
    test::check_error(test::auspex("keygen -o " + dir + "/owner"), 1, "a key is never overwritten");
    REQUIRE(test::auspex("keygen -o " + dir + "/other").exit_code == 0);

    const std::string signed_path = dir + "/signed.axm";
    const test::Result sign = test::auspex("sign " + model + " --key " + dir + "/owner.key -o " + signed_path);
    INFO(sign.output);
    REQUIRE(sign.exit_code == 0);
    const std::string fingerprint = tools::key_fingerprint(tools::read_public_key(dir + "/owner.pub"));
    CHECK(sign.output.find(fingerprint) != std::string::npos);
    CHECK(sign.output.find("states no version") != std::string::npos);

    const test::Result good = test::auspex("verify " + signed_path + " --public " + dir + "/owner.pub");
    CHECK(good.exit_code == 0);
    CHECK(good.output.find("signature good, signed by " + fingerprint) != std::string::npos);
    CHECK(test::auspex("verify " + signed_path + " --public " + dir + "/other.pub," + dir + "/owner.pub").exit_code ==
          0);
    test::check_error(test::auspex("verify " + signed_path + " --public " + dir + "/other.pub"), 1,
                      "signed by a key this device does not trust (the record names " + fingerprint + ")");
    test::check_error(test::auspex("verify " + model + " --public " + dir + "/owner.pub"), 1, "the model is unsigned");
    std::vector<uint8_t> bytes = tools::read_file_bytes(signed_path);
    bytes[100] ^= 4;
    const std::string changed = test::write_file("changed.axm", std::string(bytes.begin(), bytes.end()));
    test::check_error(test::auspex("verify " + changed + " --public " + dir + "/owner.pub"), 1,
                      "changed after signing");
    test::check_error(test::auspex("verify " + signed_path + " --public " + dir + "/owner.key"), 1,
                      "this is the secret key of a pair; give the .pub file");

    CHECK(test::auspex("inspect " + signed_path).output.find("signature: signed by " + fingerprint) !=
          std::string::npos);
    CHECK(test::auspex("inspect " + model).output.find("signature: unsigned") != std::string::npos);
    const test::Result header = test::auspex("header " + dir + "/owner.pub -o " + dir + "/owner_key.h");
    REQUIRE(header.exit_code == 0);
    const std::string text = test::read_file(dir + "/owner_key.h");
    const tools::PublicKey key = tools::read_public_key(dir + "/owner.pub");
    char first[16];
    std::snprintf(first, sizeof first, "0x%02x, 0x%02x", key[0], key[1]);
    CHECK(text.find("static const unsigned char owner_key[OWNER_KEY_COUNT][32]") != std::string::npos);
    CHECK(text.find(first) != std::string::npos);
    // The header of a signed model keeps its record, so the board can check it.
    REQUIRE(test::auspex("header " + signed_path + " -o " + dir + "/signed_model.h").exit_code == 0);
    CHECK(test::read_file(dir + "/signed_model.h")
              .find("#define SIGNED_MODEL_SIZE " + std::to_string(tools::read_file_bytes(signed_path).size()) +
                    " /* bytes of the model and its signature record */") != std::string::npos);
    // A secret key others can read is refused.
    ::chmod((dir + "/owner.key").c_str(), 0644);
    test::check_error(test::auspex("sign " + model + " --key " + dir + "/owner.key -o " + dir + "/x.axm"), 1,
                      "the secret key is readable by others");
}
