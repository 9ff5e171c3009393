#pragma once
/// @file Checked access to a parsed YAML deck. Every value read records its key path and
/// line, so any later InputError(key, ...) - from app/ or from a module's own validation -
/// can be reported as "file:line: key: detail". Unknown and duplicate keys are errors.
#include <yaml-cpp/yaml.h>

#include <climits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/krylov/names.hpp"

namespace heptane::app {

/// Key path -> 1-based line, filled while reading.
class LineMap {
  public:
    /// Keeps the first line recorded for a path (a value's own line after its key's).
    void record(const std::string& path, int line) { lines_.emplace(path, line); }
    /// Replaces the line of a path (a duplicate key is reported where it repeats).
    void set(const std::string& path, int line) { lines_[path] = line; }
    /// Line of `path`, else of its closest recorded parent ("a.b[2].c" -> "a.b[2]" -> "a.b"
    /// -> "a" -> the root ""); 0 if none.
    int line_of(const std::string& path) const;

    /// Marks `path` (and everything below it) as set on the command line by `argument`.
    void mark_override(const std::string& path, const std::string& argument) {
        overrides_[path] = argument;
    }
    /// The --set argument that set `path` or one of its parents, or that made `path` (a key
    /// the deck file does not have) by setting a key below it; else empty.
    std::string override_of(const std::string& path) const;

  private:
    std::map<std::string, int> lines_;
    std::map<std::string, std::string> overrides_;
};

/// A YAML node with its key path.
class Value {
  public:
    Value(YAML::Node node, std::string path, LineMap* lines);

    const std::string& path() const { return path_; }
    int line() const { return node_.Mark().line + 1; }
    bool is_map() const { return node_.IsMap(); }
    bool is_sequence() const { return node_.IsSequence(); }
    bool is_scalar() const { return node_.IsScalar(); }
    bool is_null() const { return node_.IsNull(); }

    /// Finite number (integers accepted).
    double number() const;
    /// Integer (no fraction or exponent).
    long long integer() const;
    std::string string() const;
    bool boolean() const;
    /// A sequence of exactly `n` numbers (n = 0: any length >= 1).
    std::vector<double> numbers(std::size_t n = 0) const;
    std::vector<long long> integers(std::size_t n = 0) const;
    /// One of `allowed`; returns its index.
    std::size_t choice(const std::vector<std::string>& allowed) const;
    /// One of E's deck names (core/krylov/names.hpp), as its enum value.
    template <class E>
    E choice_of() const {
        const std::string s = string();
        if (const auto e = parse_name<E>(s)) return *e;
        choice(deck_names<E>());  // fails with the allowed names
        fail("unreachable");
    }
    /// Elements of a sequence, paths "path[i]".
    std::vector<Value> elements() const;

    [[noreturn]] void fail(const std::string& detail) const;

  private:
    friend class Mapping;
    YAML::Node node_;
    std::string path_;
    LineMap* lines_;
};

/// An integer deck value `x` read from `v` as int; out of int's range an error at v's key.
inline int to_int(const Value& v, long long x) {
    if (x < INT_MIN || x > INT_MAX) v.fail("integer out of range");
    return static_cast<int>(x);
}

/// A mapping whose keys are consumed one by one; finish() rejects the rest.
class Mapping {
  public:
    explicit Mapping(const Value& v);
    std::optional<Value> optional(const std::string& key);
    Value required(const std::string& key);
    bool has(const std::string& key) const { return entries_.count(key) != 0; }
    /// Throws for the first key not consumed, listing the allowed keys.
    void finish(const std::vector<std::string>& allowed_extra = {}) const;
    const std::string& path() const { return path_; }

  private:
    std::string child(const std::string& key) const;
    std::string path_;
    LineMap* lines_;
    std::map<std::string, Value> entries_;
    std::vector<std::string> order_;          ///< keys in file order
    mutable std::vector<std::string> asked_;  ///< keys the reader knows (for messages)
    mutable std::map<std::string, bool> used_;
};

/// YAML text that must hold one document (a deck, a --set value). yaml-cpp's Load keeps the
/// first document and silently drops what follows it, even text it cannot read (a deck whose
/// first line starts with ',' loaded as an empty document), and LoadAll (0.7) then allocates
/// empty documents without end (found by fuzzing, issue 19). This parses the first document,
/// then asks the event parser for one more.
struct OneDocument {
    YAML::Node root;  ///< the first document (null for empty text)
    /// Where text follows the first document: its 1-based line (0: nothing follows) and
    /// what it is, for the message: "a second YAML document (after '---')", "'X' after the end
    /// of the YAML document" or "text the YAML parser cannot read, on or after 'X' ...".
    int extra_line = 0;
    std::string extra;
};
/// @throws YAML::Exception for a syntax error in the first document.
OneDocument load_one_document(const std::string& text);

}  // namespace heptane::app
