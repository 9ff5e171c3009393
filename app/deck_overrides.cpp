// `--set key.path=value` on the parsed deck tree, split from deck.cpp by concern.
#include "app/deck_overrides.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "app/deck.hpp"

namespace heptane::app {
namespace {

/// "a.b[2].c" -> {"a", "b", 2, "c"}: names, and sequence indices as numbers.
struct PathToken {
    std::string name;
    long long index = -1;  ///< >= 0 for [n]
};

std::vector<PathToken> parse_key_path(const std::string& path, const std::string& arg) {
    std::vector<PathToken> tokens;
    std::size_t i = 0;
    auto bad = [&]() {
        throw DeckError("--set " + arg,
                        InputError("expected key.path=value with a key path such as "
                                   "solver.method or wells[0].control.value"));
    };
    while (i < path.size()) {
        const std::size_t end = path.find_first_of(".[", i);
        const std::string name = path.substr(i, end == std::string::npos ? end : end - i);
        if (name.empty()) bad();
        tokens.push_back({name, -1});
        i = end == std::string::npos ? path.size() : end;
        while (i < path.size() && path[i] == '[') {
            const std::size_t close = path.find(']', i);
            if (close == std::string::npos || close == i + 1) bad();
            const std::string digits = path.substr(i + 1, close - i - 1);
            if (digits.find_first_not_of("0123456789") != std::string::npos) bad();
            // No deck sequence is a billion long; the bound also keeps std::stoll in range.
            const std::size_t first = std::min(digits.find_first_not_of('0'), digits.size());
            if (digits.size() - first > 9) {
                throw DeckError("--set " + arg,
                                InputError(path, "index [" + digits + "] is out of range"));
            }
            tokens.push_back({"", std::stoll(digits)});
            i = close + 1;
        }
        if (i < path.size()) {
            if (path[i] != '.') bad();
            ++i;
            if (i == path.size()) bad();
        }
    }
    if (tokens.empty()) bad();
    return tokens;
}

}  // namespace

void apply_override(YAML::Node& root, const std::string& arg, LineMap& lines) {
    const std::size_t eq = arg.find('=');
    if (eq == std::string::npos) parse_key_path("", arg);  // reports the expected form
    const std::string path = arg.substr(0, eq);
    const auto tokens = parse_key_path(path, arg);
    YAML::Node value;
    try {
        OneDocument doc = load_one_document(arg.substr(eq + 1));
        if (doc.extra_line > 0) throw DeckError("--set " + arg, InputError(path, doc.extra));
        value = doc.root;
    } catch (const YAML::Exception& e) {
        throw DeckError("--set " + arg, InputError(path, "the value is not valid YAML: " + e.msg));
    }
    YAML::Node cur(root);
    std::string where;
    for (std::size_t t = 0; t < tokens.size(); ++t) {
        const PathToken& tok = tokens[t];
        const bool last = t + 1 == tokens.size();
        if (tok.index >= 0) {
            if (!cur.IsSequence() || static_cast<std::size_t>(tok.index) >= cur.size()) {
                throw DeckError(
                    "--set " + arg,
                    InputError(where, "has no element [" + std::to_string(tok.index) + "]"));
            }
            where += "[" + std::to_string(tok.index) + "]";
            if (last) {
                cur[static_cast<std::size_t>(tok.index)] = value;
            } else {
                YAML::Node next = cur[static_cast<std::size_t>(tok.index)];
                cur.reset(next);
            }
        } else {
            if (!cur.IsMap() && !cur.IsNull()) {
                throw DeckError("--set " + arg, InputError(where, "is not a mapping"));
            }
            where += (where.empty() ? "" : ".") + tok.name;
            if (last) {
                cur[tok.name] = value;
            } else {
                if (!cur[tok.name]) cur[tok.name] = YAML::Node(YAML::NodeType::Map);
                YAML::Node next = cur[tok.name];
                cur.reset(next);
            }
        }
    }
    lines.mark_override(path, arg);
}

}  // namespace heptane::app
