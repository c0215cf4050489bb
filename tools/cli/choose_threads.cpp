#include <cstdlib>
#include <string>

#include "tools/cli/commands.h"
#include "tools/host/thread_pool.h"

namespace ax::cli {

void choose_threads(const Args& args) {
    size_t threads = 1;
    if (args.has("threads")) {
        threads = args.get_size("threads", 1, 1, 256);
    } else if (const char* env = std::getenv("AUSPEX_THREADS"); env && *env) {
        char* end = nullptr;
        const unsigned long n = std::strtoul(env, &end, 10);
        if (*end != '\0' || n < 1 || n > 256)
            throw UsageError{"AUSPEX_THREADS=\"" + std::string(env) + "\" is not a thread count (1..256)"};
        threads = n;
    }
    tools::set_host_threads(threads);
}

}  // namespace ax::cli
