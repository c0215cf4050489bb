// The source layout's rules that no compiler flag enforces: the folders of tools/ include each other in one
// direction only (a cycle means two stages that cannot be understood, tested or moved apart), and no library
// folder includes an application of apps/. The layer targets refuse upward includes between runtime/, ports/,
// models/, api/, tools/ and apps/ (tests/layering); inside tools/ every folder shares one include root, so
// this suite reads the #include lines instead.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

struct Include {
    std::string file;    // tools/host/calendar.h
    std::string target;  // tools/axm/axm_writer.h
};

// The quoted #include lines of every C/C++ file under `root`/`folder`, with their files relative to `root`.
std::vector<Include> includes_under(const fs::path& root, const std::string& folder) {
    std::vector<Include> out;
    for (const fs::directory_entry& e : fs::recursive_directory_iterator(root / folder)) {
        const std::string ext = e.path().extension().string();
        if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp" && ext != ".c" && ext != ".inc")) continue;
        std::ifstream in(e.path());
        std::string line;
        while (std::getline(in, line)) {
            const size_t hash = line.find_first_not_of(" \t");
            if (hash == std::string::npos || line.compare(hash, 8, "#include") != 0) continue;
            const size_t open = line.find('"', hash);
            const size_t close = open == std::string::npos ? open : line.find('"', open + 1);
            if (close == std::string::npos) continue;
            out.push_back({fs::relative(e.path(), root).generic_string(), line.substr(open + 1, close - open - 1)});
        }
    }
    return out;
}

// "host" of "tools/host/calendar.h"; empty for a path not inside a folder of tools/.
std::string tools_folder(const std::string& path) {
    if (path.rfind("tools/", 0) != 0) return "";
    const size_t slash = path.find('/', 6);
    return slash == std::string::npos ? "" : path.substr(6, slash - 6);
}

// One cycle of the folder graph as "a -> b -> a", with the include that makes each arrow; empty when none.
std::string find_cycle(const std::map<std::string, std::map<std::string, Include>>& edges) {
    std::map<std::string, int> state;  // 0 unseen, 1 on the path, 2 done
    std::vector<std::string> path;
    std::string found;
    const auto visit = [&](const auto& self, const std::string& node) -> void {
        state[node] = 1;
        path.push_back(node);
        const auto out = edges.find(node);
        if (out != edges.end()) {
            for (const auto& [next, why] : out->second) {
                if (!found.empty()) break;
                if (state[next] == 1) {
                    size_t start = 0;
                    while (path[start] != next) ++start;
                    for (size_t i = start; i < path.size(); ++i) {
                        const std::string& to = i + 1 < path.size() ? path[i + 1] : next;
                        const Include& inc = edges.at(path[i]).at(to);
                        found += "\n  " + path[i] + " -> " + to + " (" + inc.file + " includes " + inc.target + ")";
                    }
                } else if (state[next] == 0) {
                    self(self, next);
                }
            }
        }
        path.pop_back();
        state[node] = 2;
    };
    for (const auto& [node, out] : edges)
        if (found.empty() && state[node] == 0) visit(visit, node);
    return found;
}

}  // namespace

TEST_CASE("source layout: the folders of tools/ include each other in one direction only") {
    const fs::path root = AUSPEX_SOURCE_DIR;
    std::map<std::string, std::map<std::string, Include>> edges;
    size_t crossing = 0;
    for (const Include& inc : includes_under(root, "tools")) {
        const std::string from = tools_folder(inc.file), to = tools_folder(inc.target);
        if (from.empty() || to.empty() || from == to) continue;
        edges[from].emplace(to, inc);
        ++crossing;
    }
    // The scan is real: the stages do include each other's headers.
    REQUIRE(crossing > 50);
    REQUIRE(edges.count("cli") == 1);
    CHECK(edges["cli"].count("convert") == 1);
    const std::string cycle = find_cycle(edges);
    CHECK_MESSAGE(cycle.empty(),
                  "tools/ has a folder cycle; move what both sides need to a folder below both "
                  "(docs/testing.md, \"Source layout\"):"
                      << cycle);
}

TEST_CASE("source layout: the cycle finder names a cycle and the includes that make it") {
    std::map<std::string, std::map<std::string, Include>> edges;
    edges["a"].emplace("b", Include{"tools/a/x.h", "tools/b/y.h"});
    edges["b"].emplace("c", Include{"tools/b/y.cpp", "tools/c/z.h"});
    CHECK(find_cycle(edges).empty());
    edges["c"].emplace("b", Include{"tools/c/z.cpp", "tools/b/y.h"});
    CHECK(find_cycle(edges) ==
          "\n  b -> c (tools/b/y.cpp includes tools/c/z.h)\n  c -> b (tools/c/z.cpp includes tools/b/y.h)");
}

TEST_CASE("source layout: no library folder includes an application of apps/") {
    const fs::path root = AUSPEX_SOURCE_DIR;
    size_t scanned = 0;
    std::string upward;
    for (const char* folder : {"runtime", "ports", "models", "api", "tools"}) {
        for (const Include& inc : includes_under(root, folder)) {
            ++scanned;
            if (inc.target.rfind("apps/", 0) == 0) upward += "\n  " + inc.file + " includes " + inc.target;
        }
    }
    CHECK(scanned > 500);  // the scan is real: about 950 quoted includes today
    CHECK_MESSAGE(upward.empty(), "applications sit above the library:" << upward);
    // The applications use the library, never the host tools.
    std::string tools;
    for (const Include& inc : includes_under(root, "apps"))
        if (inc.target.rfind("tools/", 0) == 0) tools += "\n  " + inc.file + " includes " + inc.target;
    CHECK_MESSAGE(tools.empty(), "applications include the host tools:" << tools);
}
