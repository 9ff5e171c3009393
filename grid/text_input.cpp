#include "grid/text_input.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <sstream>
#include <system_error>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"

namespace heptane::grid::detail {
namespace {

struct GzCloser {
    void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

}  // namespace

/// The text of `path`, gunzipped if it is gzip (zlib reads plain files unchanged).
std::string read_whole_file(const std::string& path) {
    // A folder or a device (an INCLUDE of /dev/zero) would be read forever or fail obscurely.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
        throw InputError(path + ": cannot open: not a regular file");
    errno = 0;
    GzFile file(gzopen(path.c_str(), "rb"));
    if (!file) {
        const int err = errno != 0 ? errno : ENOMEM;  // zlib leaves errno 0 when out of memory
        throw InputError(path + ": cannot open: " + std::strerror(err));
    }
    gzbuffer(file.get(), 1u << 20);  // the default 8 KiB makes the 44 MB SPE10 text slow

    std::string text;
    constexpr std::size_t kChunk = std::size_t{1} << 22;
    for (;;) {
        const std::size_t used = text.size();
        text.resize(used + kChunk);
        errno = 0;
        const int got = gzread(file.get(), text.data() + used, static_cast<unsigned>(kChunk));
        if (got < 0) {
            int zerr = Z_OK;
            const char* zmsg = gzerror(file.get(), &zerr);
            const std::string why = zerr == Z_ERRNO ? std::strerror(errno) : zmsg;
            throw InputError(path + ": cannot read: " + why);
        }
        text.resize(used + static_cast<std::size_t>(got));
        if (got == 0) break;
    }
    // A gzip stream cut short ends like a normal file with Z_BUF_ERROR set.
    int zerr = Z_OK;
    const char* zmsg = gzerror(file.get(), &zerr);
    if (zerr != Z_OK) throw InputError(path + ": cannot read: " + zmsg);
    return text;
}

/// 1-based line number of byte `offset` of `text` (only computed for error messages).
std::size_t line_of(std::string_view text, std::size_t offset) {
    offset = std::min(offset, text.size());
    return 1 + static_cast<std::size_t>(std::count(
                   text.begin(), text.begin() + static_cast<std::ptrdiff_t>(offset), '\n'));
}

/// "path:line: " prefix for a problem at byte `offset`.
std::string where(const std::string& path, std::string_view text, std::size_t offset) {
    return path + ":" + std::to_string(line_of(text, offset)) + ": ";
}

/// Parses all of `token` as a finite double (an optional leading '+' is allowed, which
/// std::from_chars does not take itself).
bool parse_double(std::string_view token, double& value) {
    const char* first = token.data();
    const char* last = first + token.size();
    if (first != last && *first == '+') ++first;
    const auto [ptr, ec] = std::from_chars(first, last, value);
    return ec == std::errc() && ptr == last && first != last && std::isfinite(value);
}

bool EclipseTokenizer::next(Token& token) {
    const std::size_t n = text_.size();
    for (;;) {
        while (pos_ < n && is_space(text_[pos_])) ++pos_;
        if (pos_ == n) return false;
        if (is_comment(pos_)) {
            while (pos_ < n && text_[pos_] != '\n') ++pos_;
            continue;
        }
        break;
    }
    const std::size_t start = pos_;
    const char c = text_[pos_];
    if (c == '/') {
        ++pos_;
    } else if (c == '\'' || c == '"') {
        ++pos_;
        while (pos_ < n && text_[pos_] != c && text_[pos_] != '\n') ++pos_;
        if (pos_ < n && text_[pos_] == c) ++pos_;
    } else {
        while (pos_ < n && !is_space(text_[pos_]) && text_[pos_] != '/' && !is_comment(pos_)) {
            ++pos_;
        }
    }
    token.text = text_.substr(start, pos_ - start);
    token.offset = start;
    if (is_section_keyword(token.text) && starts_line(text_, start)) {
        while (pos_ < n && text_[pos_] != '\n') ++pos_;  // the rest of its line: a comment
    }
    return true;
}

bool is_keyword(std::string_view token) {
    const char c = token.front();
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/// Values of one count "n*value" or a plain number; throws with the file position.
void append_values(const std::string& path, std::string_view text, const Token& token,
                   const std::string& keyword, std::vector<double>& values, std::size_t most,
                   bool defaults) {
    constexpr std::int64_t kMaxRepeat = std::int64_t{1} << 31;
    const std::string_view t = token.text;
    const std::size_t star = t.find('*');
    if (star == std::string_view::npos) {
        double v = 0.0;
        if (!parse_double(t, v)) {
            throw InputError(where(path, text, token.offset) + keyword + ": " + quote_input(t) +
                             " is not a finite number (is the '/' that ends " + keyword +
                             " missing?)");
        }
        values.push_back(v);
        return;
    }
    const std::string_view count_text = t.substr(0, star);
    const std::string_view value_text = t.substr(star + 1);
    std::int64_t count = 0;
    const auto [ptr, ec] =
        std::from_chars(count_text.data(), count_text.data() + count_text.size(), count);
    if (ec != std::errc() || ptr != count_text.data() + count_text.size() || count < 1 ||
        count > kMaxRepeat) {
        throw InputError(where(path, text, token.offset) + keyword + ": " + quote_input(t) +
                         " is not a repeat n*value with a positive integer n");
    }
    // One past `most` is enough for the caller to see too many values (see the header).
    const std::size_t room = most >= values.size() ? most - values.size() + 1 : 0;
    const auto copies = std::min(static_cast<std::size_t>(count), room);
    if (value_text.empty() && defaults) {
        values.insert(values.end(), copies, std::numeric_limits<double>::quiet_NaN());
        return;
    }
    if (value_text.empty()) {
        throw InputError(where(path, text, token.offset) + keyword + ": " + quote_input(t) +
                         " (n* without a value repeats the default) is not allowed in " + keyword +
                         "; give n*value");
    }
    double v = 0.0;
    if (!parse_double(value_text, v)) {
        throw InputError(where(path, text, token.offset) + keyword + ": " + quote_input(t) +
                         " is not a repeat n*value with a finite number as value");
    }
    values.insert(values.end(), copies, v);
}

bool starts_line(std::string_view text, std::size_t offset) {
    while (offset > 0 && (text[offset - 1] == ' ' || text[offset - 1] == '\t')) --offset;
    return offset == 0 || text[offset - 1] == '\n' || text[offset - 1] == '\r';
}

std::string included_path(const std::string& including, std::string_view name) {
    const std::filesystem::path file(name);
    return file.is_absolute() ? file.string()
                              : (std::filesystem::path(including).parent_path() / file).string();
}

void IncludeStack::enter(const std::string& path) {
    std::error_code ec;
    const std::filesystem::path canonical = std::filesystem::weakly_canonical(path, ec);
    const std::string id = ec ? path : canonical.string();
    if (std::find(ids_.begin(), ids_.end(), id) != ids_.end()) {
        throw InputError(path + ": INCLUDE cycle: the file includes itself");
    }
    ids_.push_back(id);
}

double KeywordRecord::item(std::size_t q, double fallback) const {
    return given(q) ? values[q] : fallback;
}

bool KeywordRecord::given(std::size_t q) const {
    return q < values.size() && !std::isnan(values[q]);
}

namespace {

/// The values of one record up to its '/' (the keyword's token read), "here" its messages'
/// head; InputError for a record the file ends in or one of more than `most` items.
KeywordRecord read_record_values(const std::string& path, std::string_view text,
                                 EclipseTokenizer& tokens, const std::string& keyword,
                                 const std::string& here, std::size_t most) {
    KeywordRecord r;
    r.where = here;
    bool closed = false;
    Token t;
    while (!closed && tokens.next(t)) {
        closed = t.text == "/";
        if (!closed) append_values(path, text, t, keyword, r.values, most, true);
    }
    if (!closed) throw InputError(here + "the file ends before the '/' that closes it");
    if (r.values.size() > most) throw InputError(here + "more items than the keyword has");
    return r;
}

/// Whether a number follows (another record) where `tokens` stands; `next` gets it.
bool record_follows(EclipseTokenizer tokens, Token& next) {
    return tokens.next(next) && !is_keyword(next.text) && next.text != "/";
}

}  // namespace

namespace {

/// The records reader's scan of `path` (its INCLUDEs not followed): every keyword that starts
/// a line is shown to `on_keyword`, and `read(keyword, here, text, tokens)` reads the records
/// of those `wanted` says, the tokens standing after the keyword.
void scan_keywords(
    const std::string& path,
    const std::function<void(const std::string& keyword, const std::string& where)>& on_keyword,
    const std::function<bool(const std::string& keyword)>& wanted,
    const std::function<void(const std::string& keyword, const std::string& here,
                             std::string_view text, EclipseTokenizer& tokens)>& read) {
    const std::string text = read_whole_file(path);
    EclipseTokenizer tokens(text);
    Token t;
    while (tokens.next(t)) {
        if (!starts_line(text, t.offset) || !is_keyword(t.text)) continue;
        const std::string keyword(t.text);
        const std::string here = where(path, text, t.offset) + keyword + ": ";
        on_keyword(keyword, here);
        if (wanted(keyword)) read(keyword, here, text, tokens);
    }
}

}  // namespace

std::map<std::string, KeywordRecord> read_single_records(
    const std::string& path, const std::vector<std::string>& keywords, std::size_t most,
    const std::string& regions,
    const std::function<void(const std::string& keyword, const std::string& where)>& on_keyword) {
    std::map<std::string, KeywordRecord> records;
    const auto wanted = [&](const std::string& keyword) {
        return std::find(keywords.begin(), keywords.end(), keyword) != keywords.end();
    };
    scan_keywords(path, on_keyword, wanted,
                  [&](const std::string& keyword, const std::string& here, std::string_view text,
                      EclipseTokenizer& tokens) {
                      if (records.count(keyword) != 0) {
                          throw InputError(here + "given twice (heptane reads one)");
                      }
                      records[keyword] =
                          read_record_values(path, text, tokens, keyword, here, most);
                      Token next;
                      if (record_follows(tokens, next)) {
                          throw InputError(where(path, text, next.offset) + keyword +
                                           ": a second region's record (" + regions +
                                           ") is not supported: give one");
                      }
                  });
    return records;
}

std::vector<KeywordRecord> read_keyword_records(
    const std::string& path, const std::string& keyword, int count, std::size_t most,
    const std::string& says, const std::string& dims,
    const std::function<void(const std::string& keyword, const std::string& where)>& on_keyword) {
    std::vector<KeywordRecord> records;
    const auto wanted = [&](const std::string& name) { return name == keyword; };
    scan_keywords(
        path, on_keyword, wanted,
        [&](const std::string&, const std::string& here, std::string_view text,
            EclipseTokenizer& tokens) {
            if (!records.empty()) throw InputError(here + "given twice (heptane reads one)");
            for (int n = 0; n < count; ++n) {
                std::string head = here;
                if (n > 0) {  // where the record starts, or what comes after the last
                    Token next;
                    const std::string read = std::to_string(n) + (n == 1 ? " record" : " records");
                    if (!record_follows(tokens, next)) {
                        EclipseTokenizer probe = tokens;
                        const bool more = probe.next(next);
                        throw InputError(
                            (more ? where(path, text, next.offset) + keyword + ": " : here) + read +
                            (more ? " before " + quote_input(next.text)
                                  : std::string(" and the file ends")) +
                            "; " + says + " (each record ends with its own '/')");
                    }
                    head = where(path, text, next.offset) + keyword + ": ";
                }
                if (count > 1) head += "record " + std::to_string(n + 1) + ": ";
                records.push_back(read_record_values(path, text, tokens, keyword, head, most));
            }
            Token next;
            if (record_follows(tokens, next)) {
                throw InputError(where(path, text, next.offset) + keyword +
                                 ": a record after the last one: " + says + "; give " + dims +
                                 " the number of records");
            }
        });
    return records;
}

int dimension_count(const std::string& path, const std::string& keyword, std::size_t items,
                    const std::string& what, int most, std::string& where, std::string& says) {
    const auto records =
        read_single_records(path, {keyword}, items, keyword + " has one",
                            [](const std::string& /*keyword*/, const std::string& /*where*/) {});
    const auto it = records.find(keyword);
    if (it == records.end()) {
        says = keyword + " item 1 is 1 (the default: the file has no " + keyword + ")";
        return 1;
    }
    where = it->second.where;
    if (!it->second.given(0)) {
        says = keyword + " item 1 is 1 (defaulted)";
        return 1;
    }
    const double n = it->second.values[0];
    if (n != std::floor(n) || n < 1.0 || n > most) {
        std::ostringstream text;
        text << n;
        throw InputError(where + "item 1 (" + what + ") is " + quote_input(text.str()) +
                         "; it must be an integer 1.." + std::to_string(most));
    }
    says = keyword + " item 1 says " + std::to_string(static_cast<int>(n));
    return static_cast<int>(n);
}

}  // namespace heptane::grid::detail
