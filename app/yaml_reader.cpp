#include "app/yaml_reader.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"

namespace heptane::app {
namespace {

std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
}

std::string kind_of(const YAML::Node& n) {
    if (n.IsMap()) return "a mapping";
    if (n.IsSequence()) return "a list";
    if (n.IsNull()) return "empty";
    return quote_input(n.Scalar());
}

}  // namespace

int LineMap::line_of(const std::string& path) const {
    std::string p = path;
    while (!p.empty()) {
        if (auto it = lines_.find(p); it != lines_.end()) return it->second;
        const auto cut = p.find_last_of(".[");
        if (cut == std::string::npos) break;
        p.resize(cut);
    }
    const auto root = lines_.find("");  // a key missing at the top level: the deck's start
    return root != lines_.end() ? root->second : 0;
}

std::string LineMap::override_of(const std::string& path) const {
    std::string p = path;
    while (!p.empty()) {
        if (auto it = overrides_.find(p); it != overrides_.end()) return it->second;
        const auto cut = p.find_last_of(".[");
        if (cut == std::string::npos) break;
        p.resize(cut);
    }
    // A key the deck file does not have, made by a --set below it (--set nosuch.key=1 makes
    // the section "nosuch"): that --set is to blame, not the deck.
    const auto own = lines_.find(path);
    if (!path.empty() && (own == lines_.end() || own->second <= 0)) {
        for (const auto& [set_path, argument] : overrides_) {
            if (set_path.size() > path.size() && set_path.compare(0, path.size(), path) == 0 &&
                (set_path[path.size()] == '.' || set_path[path.size()] == '[')) {
                return argument;
            }
        }
    }
    return {};
}

Value::Value(YAML::Node node, std::string path, LineMap* lines)
    : node_(std::move(node)), path_(std::move(path)), lines_(lines) {
    if (lines_ != nullptr && !path_.empty()) lines_->record(path_, line());
}

void Value::fail(const std::string& detail) const { throw InputError(path_, detail); }

double Value::number() const {
    if (!node_.IsScalar()) fail("expected a number, got " + kind_of(node_));
    const std::string& s = node_.Scalar();
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
        fail("expected a finite number, got " + quote_input(s));
    }
    return v;
}

long long Value::integer() const {
    if (!node_.IsScalar()) fail("expected an integer, got " + kind_of(node_));
    const std::string& s = node_.Scalar();
    errno = 0;
    char* end = nullptr;
    const long long v = std::strtoll(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || errno == ERANGE)
        fail("expected an integer, got " + quote_input(s));
    return v;
}

std::string Value::string() const {
    if (!node_.IsScalar()) fail("expected a string, got " + kind_of(node_));
    return node_.Scalar();
}

bool Value::boolean() const {
    const std::string s = string();
    if (s == "true" || s == "yes" || s == "on") return true;
    if (s == "false" || s == "no" || s == "off") return false;
    fail("expected true or false, got " + quote_input(s));
}

std::vector<Value> Value::elements() const {
    if (!node_.IsSequence()) fail("expected a list, got " + kind_of(node_));
    std::vector<Value> out;
    for (std::size_t i = 0; i < node_.size(); ++i) {
        out.emplace_back(node_[i], path_ + "[" + std::to_string(i) + "]", lines_);
    }
    return out;
}

std::vector<double> Value::numbers(std::size_t n) const {
    if (!node_.IsSequence() || (n > 0 && node_.size() != n) || node_.size() == 0) {
        fail(n > 0 ? "expected a list of " + std::to_string(n) + " numbers, got " + kind_of(node_) +
                         (node_.IsSequence() ? " of " + std::to_string(node_.size()) : "")
                   : "expected a non-empty list of numbers, got " + kind_of(node_));
    }
    std::vector<double> out;
    for (const Value& e : elements()) out.push_back(e.number());
    return out;
}

std::vector<long long> Value::integers(std::size_t n) const {
    if (!node_.IsSequence() || (n > 0 && node_.size() != n) || node_.size() == 0) {
        fail(n > 0
                 ? "expected a list of " + std::to_string(n) + " integers, got " + kind_of(node_) +
                       (node_.IsSequence() ? " of " + std::to_string(node_.size()) : "")
                 : "expected a non-empty list of integers, got " + kind_of(node_));
    }
    std::vector<long long> out;
    for (const Value& e : elements()) out.push_back(e.integer());
    return out;
}

std::size_t Value::choice(const std::vector<std::string>& allowed) const {
    const std::string s = string();
    for (std::size_t i = 0; i < allowed.size(); ++i) {
        if (allowed[i] == s) return i;
    }
    fail(quote_input(s) + " is not allowed (allowed: " + join(allowed) + ")");
}

Mapping::Mapping(const Value& v) : path_(v.path_), lines_(v.lines_) {
    if (!v.node_.IsMap()) v.fail("expected a mapping (key: value lines), got " + kind_of(v.node_));
    for (auto it = v.node_.begin(); it != v.node_.end(); ++it) {
        if (!it->first.IsScalar()) {
            throw InputError(path_, "line " + std::to_string(it->first.Mark().line + 1) +
                                        ": keys must be plain names");
        }
        const std::string key = it->first.Scalar();
        const std::string where = child(key);
        if (entries_.count(key) != 0) {
            const int first = lines_ != nullptr ? lines_->line_of(where) : 0;
            if (lines_ != nullptr) lines_->set(where, it->first.Mark().line + 1);
            throw InputError(where,
                             "duplicate key (first given on line " + std::to_string(first) + ")");
        }
        if (lines_ != nullptr) lines_->record(where, it->first.Mark().line + 1);
        entries_.emplace(key, Value(it->second, where, nullptr));
        order_.push_back(key);
    }
    // Values keep the key's line (recorded above) but must record their children too.
    for (auto& [key, value] : entries_) value.lines_ = lines_;
}

std::string Mapping::child(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

std::optional<Value> Mapping::optional(const std::string& key) {
    asked_.push_back(key);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    used_[key] = true;
    return it->second;
}

Value Mapping::required(const std::string& key) {
    auto v = optional(key);
    if (!v) throw InputError(child(key), "is required");
    return *v;
}

void Mapping::finish(const std::vector<std::string>& allowed_extra) const {
    for (const std::string& key : order_) {
        if (used_.count(key) != 0) continue;
        std::vector<std::string> allowed = asked_;
        allowed.insert(allowed.end(), allowed_extra.begin(), allowed_extra.end());
        throw InputError(child(key), "unknown key (allowed here: " + join(allowed) + ")");
    }
}

namespace {

/// Where the documents start and how far the first one's content goes (the event parser's
/// view; every event carries the mark of its token).
class DocumentStarts final : public YAML::EventHandler {
  public:
    void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& m, YAML::anchor_t) override { seen(m); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { seen(m); }
    void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                  const std::string&) override {
        seen(m);
    }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {
        seen(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {
        seen(m);
    }
    void OnMapEnd() override {}

    YAML::Mark start = YAML::Mark::null_mark();
    int last_line = 0;  ///< 0-based line of the last token with content seen so far

  private:
    void seen(const YAML::Mark& m) { last_line = std::max(last_line, m.line); }
};

/// Line `line` (0-based) of `text`, without leading blanks.
std::string text_of_line(const std::string& text, int line) {
    std::size_t at = 0;
    for (int l = 0; l < line && at != std::string::npos; ++l) {
        at = text.find('\n', at);
        if (at != std::string::npos) ++at;
    }
    if (at == std::string::npos) return {};
    std::string s = text.substr(at, text.find('\n', at) - at);
    s.erase(0, s.find_first_not_of(" \t"));
    return s;
}

}  // namespace

OneDocument load_one_document(const std::string& text) {
    OneDocument doc;
    doc.root = YAML::Load(text);
    std::istringstream in(text);
    YAML::Parser parser(in);
    DocumentStarts events;
    if (!parser.HandleNextDocument(events)) return doc;  // empty text
    const int first_end = events.last_line;
    try {
        if (!parser.HandleNextDocument(events)) return doc;
    } catch (const YAML::Exception& e) {  // what follows is not even a document
        doc.extra_line = e.mark.line + 1;
        doc.extra = "text after the end of the YAML document: " + e.msg;
        return doc;
    }
    if (events.start.line > first_end) {
        // A second document: at its '---' or after the first one's '...', when there is one.
        doc.extra_line = events.start.line + 1;
        doc.extra = quote_input(text_of_line(text, events.start.line)) +
                    " after the end of the YAML document";
        for (int line = first_end + 1; line <= events.start.line; ++line) {
            const std::string marker = text_of_line(text, line);
            if (marker.rfind("---", 0) == 0 || marker.rfind("...", 0) == 0) {
                doc.extra_line = line + 1;
                doc.extra = "a second YAML document (after '" + marker.substr(0, 3) + "')";
                break;
            }
        }
        return doc;
    }
    // A token the parser stopped at (yaml-cpp then "starts" empty documents at line 0 for
    // ever): it is on the last line the first document reached, or after it.
    doc.extra_line = first_end + 1;
    doc.extra = "text the YAML parser cannot read, on or after " +
                quote_input(text_of_line(text, first_end), 60) + " (a stray ',', '}' or ']'?)";
    return doc;
}

}  // namespace heptane::app
