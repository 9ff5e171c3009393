#pragma once
/// @file Text input shared by grid/'s readers (internal to grid/): whole files (plain or
/// gzip), positions for messages, numbers, and the Eclipse keyword tokenizer.
#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/errors.hpp"

namespace heptane::grid::detail {

/// The text of `path`, gunzipped if it is gzip (zlib reads plain files unchanged).
std::string read_whole_file(const std::string& path);

/// 1-based line number of byte `offset` of `text` (only computed for error messages).
std::size_t line_of(std::string_view text, std::size_t offset);

/// "path:line: " prefix for a problem at byte `offset`.
std::string where(const std::string& path, std::string_view text, std::size_t offset);

inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/// Parses all of `token` as a finite double (an optional leading '+' is allowed).
bool parse_double(std::string_view token, double& value);

/// One whitespace-separated token and its byte offset in the file.
struct Token {
    std::string_view text;
    std::size_t offset = 0;
};

/// Splits Eclipse text into tokens: "--" starts a comment to the end of the line (also glued
/// to a token), "/" is always a token of its own, quoted strings are single tokens. A section
/// keyword (is_section_keyword) that starts its line ends it: Eclipse reads a keyword's line
/// no further, and decks decorate those lines (SPE10 model 2's "SOLUTION ====...").
class EclipseTokenizer {
  public:
    explicit EclipseTokenizer(std::string_view text) : text_(text) {}
    bool next(Token& token);

  private:
    bool is_comment(std::size_t at) const {
        return text_[at] == '-' && at + 1 < text_.size() && text_[at + 1] == '-';
    }
    std::string_view text_;
    std::size_t pos_ = 0;
};

/// A token that starts with a letter (a keyword, or an array name in a record).
bool is_keyword(std::string_view token);

/// The keywords that open an Eclipse deck's sections (RUNSPEC, GRID, EDIT, PROPS, REGIONS,
/// SOLUTION, SUMMARY, SCHEDULE) and END, which ends the deck.
inline bool is_section_keyword(std::string_view k) {
    return k == "RUNSPEC" || k == "GRID" || k == "EDIT" || k == "PROPS" || k == "REGIONS" ||
           k == "SOLUTION" || k == "SUMMARY" || k == "SCHEDULE" || k == "END";
}

/// Whether the token at byte `offset` of `text` is the first of its line (blanks before it
/// only): a keyword, not a word of a record (START's JUN).
bool starts_line(std::string_view text, std::size_t offset);

/// The path INCLUDE's `name` means in the file `including`: as given where absolute, else
/// relative to the including file's folder.
std::string included_path(const std::string& including, std::string_view name);

/// The files a reader is inside through INCLUDE: enter() refuses a file already open (an
/// InputError "path: INCLUDE cycle: the file includes itself"), leave() closes the last.
class IncludeStack {
  public:
    void enter(const std::string& path);
    void leave() { ids_.pop_back(); }

  private:
    std::vector<std::string> ids_;  ///< canonical paths where they resolve, else as given
};

/// read() for an INCLUDE's file: an InputError from it gains "(included from WHERE)",
/// `where_include` the INCLUDE's "path:line: INCLUDE".
template <class Read>
void read_included(const std::string& where_include, Read read) {
    try {
        read();
    } catch (const InputError& e) {
        throw InputError(std::string(e.what()) + "\n  (included from " + where_include + ")");
    }
}

/// Appends the values of one data token of `keyword`: a number, "n*value", or, where
/// `defaults` is true, "n*" (n values left as they are: appended as NaN). Throws InputError
/// at the token's line otherwise. `most` is the most values the keyword takes: a repeat
/// that goes past it appends only up to most + 1 values, so the caller's "too many values"
/// check reports it without a typo such as 2147483648*1 allocating the whole repeat.
void append_values(const std::string& path, std::string_view text, const Token& token,
                   const std::string& keyword, std::vector<double>& values, std::size_t most,
                   bool defaults = false);

/// The one record of a keyword that takes one (DENSITY, PVCDO, ROCK, EQUIL ...): its numbers
/// (n* defaults as NaN) and "path:line: KEYWORD: " for messages.
struct KeywordRecord {
    std::vector<double> values;
    std::string where;
    /// Item q (0-based), `fallback` where defaulted or not given.
    double item(std::size_t q, double fallback) const;
    /// Whether item q (0-based) is given (not defaulted, not past the record's end).
    bool given(std::size_t q) const;
};

/// The records of `keywords` in the file `path` (its INCLUDEs not followed), each of them one
/// record of at most `most` numbers. Every keyword that starts a line is first shown to
/// `on_keyword(keyword, where)` (units, refusals). InputError at the line for one of
/// `keywords` given twice, a record the file ends in, more than `most` items, or a second
/// record after the '/' (several regions, numbered by the region keyword `regions`).
std::map<std::string, KeywordRecord> read_single_records(
    const std::string& path, const std::vector<std::string>& keywords, std::size_t most,
    const std::string& regions,
    const std::function<void(const std::string& keyword, const std::string& where)>& on_keyword);

/// The `count` records of `keyword` (EQUIL with EQLDIMS' count), each ended by its own '/',
/// read as read_single_records reads one; its record's `where` says "record n: " after the
/// keyword where count > 1. Empty where the file has no `keyword`. InputError at the line
/// for fewer records before the next keyword or the file's end, or a record after the last
/// (`says`: where count comes from, "EQLDIMS item 1 says 2"; `dims`: the keyword to give
/// the count with).
std::vector<KeywordRecord> read_keyword_records(
    const std::string& path, const std::string& keyword, int count, std::size_t most,
    const std::string& says, const std::string& dims,
    const std::function<void(const std::string& keyword, const std::string& where)>& on_keyword);

/// Item 1 of the dimensions keyword `keyword` (TABDIMS, EQLDIMS; `items` items) in the file
/// `path`: 1 where the file has none or defaults the item. `what` names the item for messages
/// ("NTSFUN, the number of saturation tables"). InputError at its line for the keyword given
/// twice or an item 1 not an integer in [1, most]. `where` gets the keyword's "path:line:
/// KEYWORD: " (empty without it), `says` the count's origin ("TABDIMS item 1 says 2").
int dimension_count(const std::string& path, const std::string& keyword, std::size_t items,
                    const std::string& what, int most, std::string& where, std::string& says);

}  // namespace heptane::grid::detail
