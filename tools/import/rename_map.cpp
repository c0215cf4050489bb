#include "tools/import/rename_map.h"

#include <map>
#include <memory>
#include <set>

#include "tools/common/tool_error.h"

namespace ax::tools {

struct RenameMap::Rule {
    std::string pattern, target;
    int line = 0;
    std::vector<std::string> literals;  // text around the captures: literals.size() == captures.size() + 1
    std::vector<std::string> captures;  // capture names in pattern order
    std::vector<char> spans;            // per capture: {name*} spans several components (dots included)

    // Whether `name` matches the whole pattern; fills `values` (one per capture) when it does.
    bool match(const std::string& name, std::vector<std::string>* values) const;
};

namespace {

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r')) ++a;
    while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\r')) --b;
    return s.substr(a, b - a);
}

bool name_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// Splits "a.{N}.b" into literal text and capture names; checks the braces. A name ending in '*' ({rest*})
// spans several components: it is stored without the star, and spans[i] says so.
void scan(const std::string& text, const std::string& where, std::vector<std::string>* literals,
          std::vector<std::string>* names, std::vector<char>* spans) {
    std::string literal;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '}') throw ToolError(where + ": unmatched '}'");
        if (c != '{') {
            literal += c;
            continue;
        }
        const size_t close = text.find('}', i);
        if (close == std::string::npos) throw ToolError(where + ": unmatched '{'");
        std::string name = text.substr(i + 1, close - i - 1);
        const bool span = !name.empty() && name.back() == '*';
        if (span) name.pop_back();
        if (name.empty()) throw ToolError(where + ": empty capture {}");
        for (char n : name)
            if (!name_char(n)) throw ToolError(where + ": capture {" + name + "} must be letters, digits or _");
        literals->push_back(literal);
        names->push_back(name);
        spans->push_back(span);
        literal.clear();
        i = close;
    }
    literals->push_back(literal);
}

std::string shape_text(const std::vector<int64_t>& shape) {
    std::string s = "[";
    for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

bool ends_with(const std::string& s, const std::string& end) {
    return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
}

// "...layers.N.<anything>" with "layers" at the start or after a dot.
bool in_layer_stack(const std::string& name) {
    for (size_t at = name.find("layers."); at != std::string::npos; at = name.find("layers.", at + 1)) {
        if (at != 0 && name[at - 1] != '.') continue;
        size_t i = at + 7;
        while (i < name.size() && name[i] >= '0' && name[i] <= '9') ++i;
        if (i > at + 7 && i < name.size() && name[i] == '.') return true;
    }
    return false;
}

bool literal_at(const std::string& name, size_t pos, const std::string& literal) {
    return name.size() - pos >= literal.size() && name.compare(pos, literal.size(), literal) == 0;
}

}  // namespace

// A capture takes one or more name characters ({x*}: dots too); where several lengths fit, the longest that lets the
// rest match wins. Dead ends are remembered per (capture, position), so a match costs at most O(captures * length^2)
// however the rule and name are built.
bool RenameMap::Rule::match(const std::string& name, std::vector<std::string>* values) const {
    const size_t k = captures.size(), n = name.size();
    if (!literal_at(name, 0, literals[0])) return false;
    std::vector<char> dead((k + 1) * (n + 1), 0);
    std::vector<size_t> ends(k);
    // Explicit stack of (capture index, start position, next length to try), so depth is not recursion.
    struct Frame {
        size_t capture, start, end;
    };
    std::vector<Frame> stack;
    auto push = [&](size_t c, size_t start) {
        size_t end = start;
        while (end < n && (name_char(name[end]) || (spans[c] && name[end] == '.'))) ++end;
        stack.push_back({c, start, end});
    };
    if (k == 0) return n == literals[0].size();
    push(0, literals[0].size());
    while (!stack.empty()) {
        Frame& f = stack.back();
        if (f.end <= f.start) {
            dead[f.capture * (n + 1) + f.start] = 1;
            stack.pop_back();
            continue;
        }
        const size_t end = f.end--;
        const std::string& after = literals[f.capture + 1];
        if (!literal_at(name, end, after)) continue;
        const size_t next = end + after.size();
        ends[f.capture] = end;
        if (f.capture + 1 == k) {
            if (next != n) continue;
            values->assign(k, std::string());
            for (size_t c = 0; c < k; ++c) (*values)[c] = name.substr(stack[c].start, ends[c] - stack[c].start);
            return true;
        }
        if (dead[(f.capture + 1) * (n + 1) + next]) continue;
        push(f.capture + 1, next);
    }
    return false;
}

RenameMap RenameMap::parse(const std::string& text, const std::string& source) {
    RenameMap map;
    map.source_ = source;
    size_t start = 0;
    int line_no = 0;
    while (start <= text.size()) {
        size_t end = text.find('\n', start);
        if (end == std::string::npos) end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        ++line_no;
        const size_t hash = line.find('#');
        if (hash != std::string::npos) line = line.substr(0, hash);
        line = trim(line);
        if (line.empty()) {
            if (end == text.size()) break;
            continue;
        }
        const std::string where = source + ":" + std::to_string(line_no);
        if (line.size() > kMaxRuleBytes)
            throw ToolError(where + ": a rule longer than " + std::to_string(kMaxRuleBytes) +
                            " bytes (tensor names are at most 1024 bytes)");
        const size_t arrow = line.find("->");
        if (arrow == std::string::npos || line.find("->", arrow + 2) != std::string::npos)
            throw ToolError(where + ": expected one rule \"pattern -> canonical name\"");
        auto rule = std::make_shared<Rule>();
        rule->pattern = trim(line.substr(0, arrow));
        rule->target = trim(line.substr(arrow + 2));
        rule->line = line_no;
        if (rule->pattern.empty() || rule->target.empty()) throw ToolError(where + ": a side of the rule is empty");
        for (const std::string* side : {&rule->pattern, &rule->target})
            if (side->find_first_of(" \t") != std::string::npos)
                throw ToolError(where + ": names cannot hold spaces: \"" + *side + "\"");
        scan(rule->pattern, where, &rule->literals, &rule->captures, &rule->spans);
        for (size_t i = 0; i < rule->captures.size(); ++i) {
            for (size_t j = 0; j < i; ++j)
                if (rule->captures[j] == rule->captures[i])
                    throw ToolError(where + ": capture {" + rule->captures[i] + "} appears twice in the pattern");
            if (i > 0 && rule->literals[i].empty())
                throw ToolError(where + ": captures {" + rule->captures[i - 1] + "} and {" + rule->captures[i] +
                                "} need text between them");
        }
        if (rule->target != "-") {
            std::vector<std::string> target_literals, used;
            std::vector<char> target_spans;
            scan(rule->target, where, &target_literals, &used, &target_spans);
            for (const std::string& u : used) {
                bool known = false;
                for (const std::string& c : rule->captures) known = known || c == u;
                if (!known) throw ToolError(where + ": {" + u + "} is not captured by the pattern");
            }
        }
        map.rules_.push_back(rule);
        if (end == text.size()) break;
    }
    if (map.rules_.empty()) throw ToolError(source + ": the rename map holds no rule");
    return map;
}

RenameMap RenameMap::read(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file_bytes(path);
    return parse(std::string(bytes.begin(), bytes.end()), path);
}

TensorMap RenameMap::apply(const TensorMap& tensors, std::vector<std::string>* unmatched) const {
    TensorMap out;
    std::set<const Rule*> hit;
    std::map<std::string, std::string> origin;  // new name -> checkpoint name
    std::set<std::string> renamed;
    for (const auto& [name, tensor] : tensors) {
        std::string target = name;
        bool matched = false;
        for (const auto& rule : rules_) {
            std::vector<std::string> values;
            if (!rule->match(name, &values)) continue;
            matched = true;
            hit.insert(rule.get());
            if (rule->target == "-") {
                target.clear();
                break;
            }
            target.clear();
            for (size_t i = 0; i < rule->target.size(); ++i) {
                if (rule->target[i] != '{') {
                    target += rule->target[i];
                    continue;
                }
                const size_t close = rule->target.find('}', i);
                std::string capture = rule->target.substr(i + 1, close - i - 1);
                if (!capture.empty() && capture.back() == '*') capture.pop_back();
                for (size_t c = 0; c < rule->captures.size(); ++c)
                    if (rule->captures[c] == capture) target += values[c];
                i = close;
            }
            break;
        }
        if (matched && target.empty()) continue;  // dropped
        if (origin.count(target))
            throw ToolError(source_ + ": tensors " + origin[target] + " and " + name + " both become " + target);
        origin[target] = name;
        HostTensor t = tensor;
        if (matched) {
            renamed.insert(target);
            if (t.shape.size() == 3 && t.shape[2] == 1) t.shape.pop_back();  // Conv1d(kernel_size=1)
        }
        out.emplace(target, std::move(t));
    }
    if (unmatched)
        for (const auto& rule : rules_)
            if (!hit.count(rule.get()))
                unmatched->push_back(source_ + ":" + std::to_string(rule->line) + ": " + rule->pattern);

    // q/k/v parts stacked into one packed tensor.
    std::map<std::string, std::map<char, std::string>> groups;
    for (const auto& [name, t] : out)
        for (const char part : {'q', 'k', 'v'})
            if (ends_with(name, std::string("[") + part + "]")) groups[name.substr(0, name.size() - 3)][part] = name;
    for (const auto& [base, parts] : groups) {
        for (const char part : {'q', 'k', 'v'})
            if (!parts.count(part))
                throw ToolError(source_ + ": " + base + "[" + part + "] is missing (found " +
                                std::to_string(parts.size()) + " of the q, k, v parts of " + base + ")");
        if (out.count(base)) throw ToolError(source_ + ": " + base + " exists and is also built from q, k, v parts");
        const HostTensor& q = out.at(parts.at('q'));
        HostTensor packed;
        packed.source_dtype = q.source_dtype;
        packed.shape = q.shape;
        if (packed.shape.empty()) throw ToolError(source_ + ": " + parts.at('q') + " is a scalar");
        for (const char part : {'q', 'k', 'v'}) {
            const HostTensor& t = out.at(parts.at(part));
            if (t.shape != q.shape)
                throw ToolError(source_ + ": " + parts.at(part) + " has shape " + shape_text(t.shape) + ", " +
                                parts.at('q') + " has " + shape_text(q.shape));
            packed.data.insert(packed.data.end(), t.data.begin(), t.data.end());
        }
        packed.shape[0] *= 3;
        for (const char part : {'q', 'k', 'v'}) out.erase(parts.at(part));
        out.emplace(base, std::move(packed));
        renamed.insert(base);
    }

    // Bias-free Linear layers inside a layer stack get zero biases.
    std::vector<std::pair<std::string, int64_t>> missing;
    for (const std::string& name : renamed) {
        auto it = out.find(name);
        if (it == out.end() || it->second.shape.size() != 2 || !in_layer_stack(name)) continue;
        std::string bias;
        if (ends_with(name, ".in_proj_weight"))
            bias = name.substr(0, name.size() - 6) + "bias";
        else if (ends_with(name, ".weight"))
            bias = name.substr(0, name.size() - 6) + "bias";
        if (!bias.empty() && !out.count(bias)) missing.push_back({bias, it->second.shape[0]});
    }
    for (const auto& [bias, n] : missing) {
        HostTensor zeros;
        zeros.shape = {n};
        zeros.data.assign(static_cast<size_t>(n), 0.0f);
        zeros.source_dtype = "float32";
        out.emplace(bias, std::move(zeros));
    }
    return out;
}

}  // namespace ax::tools
