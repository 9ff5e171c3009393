#include "grid/loaders.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string_view>
#include <system_error>
#include <utility>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "core/base/types.hpp"

namespace heptane::grid {
namespace {

// ---- whole-file input -------------------------------------------------------------------

struct GzCloser {
    void operator()(gzFile_s* f) const { gzclose(f); }
};
using GzFile = std::unique_ptr<gzFile_s, GzCloser>;

/// The text of `path`, gunzipped if it is gzip (zlib reads plain files unchanged).
std::string read_whole_file(const std::string& path) {
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

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
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

/// The token starting at `p` (up to whitespace), quoted and clipped for a message.
std::string token_at(const char* p, const char* end) {
    const char* q = p;
    while (q != end && !is_space(*q)) ++q;
    return quote_input(std::string_view(p, static_cast<std::size_t>(q - p)));
}

std::string box_text(const IndexBox& b) {
    std::ostringstream s;
    s << "i " << b.i[0] << ".." << b.i[1] << ", j " << b.j[0] << ".." << b.j[1] << ", k " << b.k[0]
      << ".." << b.k[1];
    return s.str();
}

// ---- Eclipse keyword files ------------------------------------------------------------

/// One whitespace-separated token and its byte offset in the file.
struct Token {
    std::string_view text;
    std::size_t offset = 0;
};

/// Splits Eclipse text into tokens: "--" starts a comment to the end of the line (also glued
/// to a token), "/" is always a token of its own, quoted strings are single tokens.
class EclipseTokenizer {
  public:
    explicit EclipseTokenizer(std::string_view text) : text_(text) {}

    bool next(Token& token) {
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
        return true;
    }

  private:
    bool is_comment(std::size_t at) const {
        return text_[at] == '-' && at + 1 < text_.size() && text_[at + 1] == '-';
    }

    std::string_view text_;
    std::size_t pos_ = 0;
};

bool is_keyword(std::string_view token) {
    const char c = token.front();
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/// Keywords that change the arrays or the grid heptane reads (GRID-section edits, boxes,
/// active cells, includes, multipliers, corner-point geometry). The loader does not apply them
/// yet (issue 20), so a file holding one is refused at its line rather than read as if it
/// were not there (a real public deck's MULTIPLY PERMZ 0.5 was lost that way).
bool is_unapplied_keyword(std::string_view keyword) {
    static constexpr std::string_view kUnapplied[] = {
        "ACTNUM",   "ADD",      "ADDREG",   "BOX",    "COPY",    "COPYBOX",  "COPYREG",
        "COORD",    "ENDBOX",   "EQUALREG", "EQUALS", "IMPORT",  "INCLUDE",  "MAXVALUE",
        "MINVALUE", "MULTIPLY", "MULTIREG", "MULTPV", "MULTX",   "MULTX-",   "MULTY",
        "MULTY-",   "MULTZ",    "MULTZ-",   "NTG",    "OPERATE", "OPERATER", "ZCORN"};
    return std::find(std::begin(kUnapplied), std::end(kUnapplied), keyword) != std::end(kUnapplied);
}

/// Values of one count "n*value" or a plain number; throws with the file position.
void append_values(const std::string& path, std::string_view text, const Token& token,
                   const std::string& keyword, std::vector<double>& values) {
    // Guards against a typo such as 1000000000*5 exhausting memory.
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
    values.insert(values.end(), static_cast<std::size_t>(count), v);
}

}  // namespace

IndexBox spe10_full_box() {
    IndexBox box;
    box.i = {0, kSpe10Nx - 1};
    box.j = {0, kSpe10Ny - 1};
    box.k = {0, kSpe10Nz - 1};
    return box;
}

Spe10Window read_spe10(const std::string& path, const IndexBox& box) {
    const auto inside = [](const std::array<int, 2>& r, int n) {
        return r[0] >= 0 && r[0] <= r[1] && r[1] < n;
    };
    if (!inside(box.i, kSpe10Nx) || !inside(box.j, kSpe10Ny) || !inside(box.k, kSpe10Nz)) {
        throw InputError(path + ": SPE10 box " + box_text(box) +
                         " is reversed or outside the model i 0..59, j 0..219, k 0..84 " +
                         "(0-based, inclusive)");
    }

    const std::string text = read_whole_file(path);

    constexpr index_t kPerField = static_cast<index_t>(kSpe10Nx) * kSpe10Ny * kSpe10Nz;
    constexpr index_t kTotal = 3 * kPerField;
    Spe10Window out;
    out.box = box;
    const int wnx = box.nx(), wny = box.ny(), wnz = box.nz();
    const auto window_cells = static_cast<std::size_t>(wnx) * wny * wnz;
    std::vector<double>* fields[3] = {&out.kx, &out.ky, &out.kz};
    for (auto* f : fields) f->assign(window_cells, 0.0);

    const char* const begin = text.data();
    const char* const end = begin + text.size();
    const char* p = begin;
    index_t n = 0;
    int c = 0, i = 0, j = 0, k = 0;  // position of value n: field c, cell (i, j, k)
    for (;;) {
        while (p != end && is_space(*p)) ++p;
        if (p == end) break;
        if (n == kTotal) {
            throw InputError(where(path, text, static_cast<std::size_t>(p - begin)) + "more than " +
                             std::to_string(kTotal) +
                             " values (kx, ky, kz of 60 x 220 x 85 cells); extra value " +
                             token_at(p, end));
        }
        const char* q = p;
        while (q != end && !is_space(*q)) ++q;
        double v = 0.0;
        if (!parse_double(std::string_view(p, static_cast<std::size_t>(q - p)), v) || v < 0.0) {
            throw InputError(where(path, text, static_cast<std::size_t>(p - begin)) +
                             token_at(p, end) + " is not a permeability (a finite number " +
                             ">= 0 in mD)");
        }
        if (i >= box.i[0] && i <= box.i[1] && j >= box.j[0] && j <= box.j[1] && k >= box.k[0] &&
            k <= box.k[1]) {
            const std::size_t w =
                static_cast<std::size_t>(k - box.k[0]) +
                static_cast<std::size_t>(wnz) *
                    ((j - box.j[0]) + static_cast<std::size_t>(wny) * (i - box.i[0]));
            (*fields[c])[w] = v;
        }
        if (++i == kSpe10Nx) {
            i = 0;
            if (++j == kSpe10Ny) {
                j = 0;
                if (++k == kSpe10Nz) {
                    k = 0;
                    ++c;
                }
            }
        }
        ++n;
        p = q;
    }
    if (n < kTotal) {
        // Report the line of the last value, not the empty "line" after the final newline.
        std::size_t last = text.size();
        while (last > 0 && is_space(text[last - 1])) --last;
        throw InputError(where(path, text, last > 0 ? last - 1 : 0) + "the file ends after " +
                         std::to_string(n) + " values; SPE10 needs " + std::to_string(kTotal) +
                         " (kx, ky, kz of 60 x 220 x 85 cells)");
    }
    return out;
}

std::map<std::string, std::vector<double>> read_eclipse_keywords(
    const std::string& path, const std::set<std::string>& wanted) {
    const std::string text = read_whole_file(path);
    std::map<std::string, std::vector<double>> out;
    std::map<std::string, std::size_t> first_offset;
    EclipseTokenizer tokens(text);
    Token token;
    while (tokens.next(token)) {
        // Numbers, "/" and strings outside a wanted block belong to skipped keywords.
        if (!is_keyword(token.text)) continue;
        const std::string keyword(token.text);
        if (is_unapplied_keyword(keyword)) {
            throw InputError(where(path, text, token.offset) + keyword +
                             " is not applied by heptane yet (GRID-section edits, boxes, "
                             "ACTNUM, INCLUDE and multipliers come with the Eclipse-deck "
                             "issue); apply it to the data, or remove it");
        }
        if (wanted.count(keyword) == 0) continue;

        const auto [seen, inserted] = first_offset.emplace(keyword, token.offset);
        if (!inserted) {
            throw InputError(where(path, text, token.offset) + keyword +
                             " is given a second time (first at line " +
                             std::to_string(line_of(text, seen->second)) + ")");
        }
        std::vector<double>& values = out[keyword];
        const std::size_t keyword_offset = token.offset;
        bool closed = false;
        while (tokens.next(token)) {
            if (token.text == "/") {
                closed = true;
                break;
            }
            append_values(path, text, token, keyword, values);
        }
        if (!closed) {
            throw InputError(where(path, text, keyword_offset) + keyword +
                             ": the file ends before the '/' that closes its data (" +
                             std::to_string(values.size()) + " values read)");
        }
    }
    return out;
}

}  // namespace heptane::grid
