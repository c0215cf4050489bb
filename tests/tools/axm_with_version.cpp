// Writes a copy of a .axm model with config key model_version set: the versioned models the A/B slot
// test on the boards needs, until `auspex convert --model-version` (issue #18, item 2) makes them.
//   axm_with_version IN.axm VERSION OUT.axm
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/tools/with_model_version.h"

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: axm_with_version IN.axm VERSION OUT.axm\n");
        return 2;
    }
    std::ifstream in(argv[1], std::ios::binary);
    if (!in) {
        std::fprintf(stderr, "axm_with_version: cannot read %s\n", argv[1]);
        return 1;
    }
    const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    char* end = nullptr;
    const unsigned long version = std::strtoul(argv[2], &end, 10);
    if (end == argv[2] || *end != '\0' || version == 0 || version > 0xFFFFFFFFul) {
        std::fprintf(stderr, "axm_with_version: version must be a whole number in 1..4294967295\n");
        return 1;
    }
    try {
        const std::vector<uint8_t> out = ax::test::with_model_version(bytes, static_cast<uint32_t>(version));
        const std::string tmp = std::string(argv[3]) + ".tmp";
        std::ofstream o(tmp, std::ios::binary);
        o.write(reinterpret_cast<const char*>(out.data()), static_cast<std::streamsize>(out.size()));
        o.close();
        if (!o || std::rename(tmp.c_str(), argv[3]) != 0) {
            std::fprintf(stderr, "axm_with_version: cannot write %s\n", argv[3]);
            return 1;
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "axm_with_version: %s: %s\n", argv[1], e.what());
        return 1;
    }
    return 0;
}
