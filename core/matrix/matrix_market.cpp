#include "core/matrix/matrix_market.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <istream>
#include <limits>
#include <string_view>
#include <utility>

#include "core/base/random.hpp"
#include "core/base/text.hpp"

namespace heptane {
namespace {

constexpr std::int64_t kMaxIndex = std::numeric_limits<std::int32_t>::max();

enum class Format { kCoordinate, kArray };
enum class Field { kReal, kInteger, kPattern };
enum class Symmetry { kGeneral, kSymmetric, kSkewSymmetric };

struct Header {
    Format format = Format::kCoordinate;
    Field field = Field::kReal;
    Symmetry symmetry = Symmetry::kGeneral;
};

/// Up to kMaxTokens blank-separated tokens of a line, and how many there were in all.
constexpr int kMaxTokens = 5;
struct Tokens {
    std::array<std::string_view, kMaxTokens> tok;
    int count = 0;
};

Tokens split(std::string_view s) {
    Tokens t;
    std::size_t i = 0;
    while (true) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
        if (i == s.size()) break;
        const std::size_t start = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
        if (t.count < kMaxTokens) t.tok[t.count] = s.substr(start, i - start);
        ++t.count;
    }
    return t;
}

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

/// A whole-token integer (optional sign).
bool parse_int(std::string_view s, std::int64_t& value) {
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    const auto res = std::from_chars(s.data(), s.data() + s.size(), value);
    return res.ec == std::errc() && res.ptr == s.data() + s.size() && !s.empty();
}

/// A whole-token decimal floating-point number (optional sign; "inf" and "nan" parse, and
/// the readers then refuse them as not finite).
bool parse_double(std::string_view s, double& value) {
    if (!s.empty() && s[0] == '+') s.remove_prefix(1);
    const auto res = std::from_chars(s.data(), s.data() + s.size(), value);
    return res.ec == std::errc() && res.ptr == s.data() + s.size() && !s.empty();
}

/// Reads a stream line by line, counting lines, and builds the errors.
class LineReader {
  public:
    LineReader(std::istream& in, const std::string& name) : in_(in), name_(name) {}

    /// The next line, whatever it holds; false at the end of the stream.
    bool next_raw(std::string_view& out) {
        if (!std::getline(in_, buf_)) {
            if (in_.bad()) fail(0, "read error");
            return false;
        }
        ++line_;
        out = buf_;
        if (!out.empty() && out.back() == '\r') out.remove_suffix(1);
        return true;
    }

    /// The next line that is neither blank nor a '%' comment; false at the end.
    bool next_data(Tokens& t) {
        std::string_view s;
        while (next_raw(s)) {
            const std::size_t first = s.find_first_not_of(" \t");
            if (first == std::string_view::npos || s[first] == '%') continue;
            t = split(s);
            return true;
        }
        return false;
    }

    std::int64_t line() const { return line_; }
    const std::string& name() const { return name_; }

    /// Throws MatrixMarketError at the current line.
    [[noreturn]] void fail(const std::string& detail) const { fail(line_, detail); }
    [[noreturn]] void fail(std::int64_t line, const std::string& detail) const {
        throw MatrixMarketError(name_, line, detail);
    }
    /// Throws MatrixMarketError at the current line: a size heptane cannot hold is bad input
    /// for it (exit 2 at the line), like a size that does not fit in memory.
    [[noreturn]] void too_large(const std::string& detail) const {
        fail(detail + " exceed the 32-bit index range of heptane's CSR format (at most " +
             std::to_string(kMaxIndex) + ")");
    }

  private:
    std::istream& in_;
    std::string name_;
    std::string buf_;
    std::int64_t line_ = 0;
};

Header read_banner(LineReader& r) {
    std::string_view s;
    if (!r.next_raw(s)) r.fail(1, "empty file; expected the '%%MatrixMarket' banner");
    const Tokens t = split(s);
    if (t.count == 0 || lower(t.tok[0]) != "%%matrixmarket") {
        r.fail("expected the banner '%%MatrixMarket matrix FORMAT FIELD SYMMETRY', got " +
               quote_input(s));
    }
    if (t.count != 5) {
        r.fail(
            "the banner needs 4 words after %%MatrixMarket (matrix FORMAT FIELD SYMMETRY), got " +
            std::to_string(t.count - 1));
    }
    const std::string object = lower(t.tok[1]), format = lower(t.tok[2]), field = lower(t.tok[3]),
                      symmetry = lower(t.tok[4]);
    Header h;
    if (object != "matrix")
        r.fail("object " + quote_input(t.tok[1]) + " is not supported (matrix only)");

    if (format == "coordinate") {
        h.format = Format::kCoordinate;
    } else if (format == "array") {
        h.format = Format::kArray;
    } else {
        r.fail("unknown format " + quote_input(t.tok[2]) + " (coordinate or array)");
    }

    if (field == "real") {
        h.field = Field::kReal;
    } else if (field == "integer") {
        h.field = Field::kInteger;
    } else if (field == "pattern") {
        h.field = Field::kPattern;
    } else if (field == "complex") {
        r.fail("field 'complex' is not supported (real, integer or pattern)");
    } else {
        r.fail("unknown field " + quote_input(t.tok[3]) + " (real, integer or pattern)");
    }
    if (h.format == Format::kArray && h.field == Field::kPattern) {
        r.fail("field 'pattern' is not valid with the array format");
    }

    if (symmetry == "general") {
        h.symmetry = Symmetry::kGeneral;
    } else if (symmetry == "symmetric") {
        h.symmetry = Symmetry::kSymmetric;
    } else if (symmetry == "skew-symmetric") {
        h.symmetry = Symmetry::kSkewSymmetric;
    } else if (symmetry == "hermitian") {
        r.fail("symmetry 'hermitian' is not supported (general, symmetric or skew-symmetric)");
    } else {
        r.fail("unknown symmetry " + quote_input(t.tok[4]) +
               " (general, symmetric or skew-symmetric)");
    }
    return h;
}

struct Size {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::int64_t entries = 0;  ///< coordinate: declared entries; array: rows * cols
    std::int64_t line = 0;     ///< line of the size line
};

Size read_size(LineReader& r, Format format) {
    Tokens t;
    if (!r.next_data(t)) r.fail("the file ends before the size line");
    const bool coordinate = format == Format::kCoordinate;
    const int expected = coordinate ? 3 : 2;
    const char* form = coordinate ? "'ROWS COLS ENTRIES'" : "'ROWS COLS'";
    if (t.count != expected) {
        r.fail(std::string("size line: expected ") + form + ", got " + std::to_string(t.count) +
               (t.count == 1 ? " field" : " fields"));
    }
    std::array<std::int64_t, 3> v{};
    const std::array<const char*, 3> names{"ROWS", "COLS", "ENTRIES"};
    for (int k = 0; k < expected; ++k) {
        if (!parse_int(t.tok[k], v[k])) {
            r.fail(std::string("size line: ") + names[k] + " " + quote_input(t.tok[k]) +
                   " is not an integer");
        }
        if (v[k] < 0) {
            r.fail(std::string("size line: ") + names[k] + " is negative (" + std::to_string(v[k]) +
                   ")");
        }
    }
    if (v[0] > kMaxIndex) r.too_large(std::to_string(v[0]) + " rows");
    if (v[1] > kMaxIndex) r.too_large(std::to_string(v[1]) + " columns");
    // What reading and solving it allocate at least, in floating point so that nothing
    // overflows: per row the CSR and BSR row pointers, the right-hand side and ten solver
    // vectors (96 bytes), per coordinate entry a triplet (16 bytes), or the dense values. A
    // size line that cannot fit is an error here, not std::bad_alloc or the out-of-memory
    // killer later.
    const double need = 96.0 * static_cast<double>(v[0]) +
                        (coordinate ? 16.0 * static_cast<double>(v[2])
                                    : 8.0 * static_cast<double>(v[0]) * static_cast<double>(v[1]));
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    const double have = pages > 0 && page > 0 ? static_cast<double>(pages) * page : 0.0;
    if (have > 0.0 && need > have) {
        char text[160];
        std::snprintf(text, sizeof text,
                      "size line: reading and solving it need at least %.1f GB, more than this "
                      "machine's %.1f GB",
                      need / 1e9, have / 1e9);
        r.fail(text);
    }
    Size size;
    size.rows = v[0];
    size.cols = v[1];
    size.entries = coordinate ? v[2] : v[0] * v[1];
    size.line = r.line();
    return size;
}

/// Reads the `size.entries` coordinate entries, calling add(i, j, value) with 0-based
/// indices in file order, then checks that no entry follows.
template <typename Add>
void read_coordinate_entries(LineReader& r, const Header& h, const Size& size, Add&& add) {
    const bool pattern = h.field == Field::kPattern;
    const int expected = pattern ? 2 : 3;
    const char* form = pattern ? "'I J'" : "'I J VALUE'";
    Tokens t;
    for (std::int64_t k = 0; k < size.entries; ++k) {
        if (!r.next_data(t)) {
            r.fail("the file ends after " + std::to_string(k) + " of the " +
                   std::to_string(size.entries) + " entries declared on line " +
                   std::to_string(size.line));
        }
        if (t.count != expected) {
            r.fail(std::string("entry: expected ") + form + ", got " + std::to_string(t.count) +
                   (t.count == 1 ? " field" : " fields"));
        }
        std::int64_t i = 0, j = 0;
        if (!parse_int(t.tok[0], i))
            r.fail("row index " + quote_input(t.tok[0]) + " is not an integer");
        if (!parse_int(t.tok[1], j)) {
            r.fail("column index " + quote_input(t.tok[1]) + " is not an integer");
        }
        if (i < 1 || i > size.rows) {
            r.fail("row index " + std::to_string(i) + " is outside 1.." +
                   std::to_string(size.rows));
        }
        if (j < 1 || j > size.cols) {
            r.fail("column index " + std::to_string(j) + " is outside 1.." +
                   std::to_string(size.cols));
        }
        double value = 1.0;
        if (h.field == Field::kReal) {
            if (!parse_double(t.tok[2], value)) {
                r.fail("value " + quote_input(t.tok[2]) + " is not a number");
            }
            if (!std::isfinite(value)) r.fail("value " + quote_input(t.tok[2]) + " is not finite");
        } else if (h.field == Field::kInteger) {
            std::int64_t iv = 0;
            if (!parse_int(t.tok[2], iv)) {
                r.fail("value " + quote_input(t.tok[2]) + " is not an integer (integer field)");
            }
            value = static_cast<double>(iv);
        }
        if (h.symmetry == Symmetry::kSkewSymmetric && i == j) {
            r.fail("diagonal entry (" + std::to_string(i) + ", " + std::to_string(j) +
                   ") in a skew-symmetric matrix");
        }
        add(i - 1, j - 1, value);
    }
    if (r.next_data(t)) {
        r.fail("more entries than the " + std::to_string(size.entries) + " declared on line " +
               std::to_string(size.line));
    }
}

/// Triplets (in file order, mirrors right after their entry) -> CSR with sorted columns and
/// duplicates summed in file order.
Csr triplets_to_csr(std::int32_t rows, std::int32_t cols, const std::vector<std::int32_t>& ti,
                    const std::vector<std::int32_t>& tj, const std::vector<double>& tv) {
    // Stable counting sort by row.
    std::vector<std::int64_t> start(static_cast<std::size_t>(rows) + 1, 0);
    for (std::int32_t i : ti) ++start[static_cast<std::size_t>(i) + 1];
    for (std::size_t r = 1; r < start.size(); ++r) start[r] += start[r - 1];
    std::vector<std::pair<std::int32_t, double>> entries(ti.size());
    {
        std::vector<std::int64_t> next(start.begin(), start.end() - 1);
        for (std::size_t t = 0; t < ti.size(); ++t) {
            entries[static_cast<std::size_t>(next[static_cast<std::size_t>(ti[t])]++)] = {tj[t],
                                                                                          tv[t]};
        }
    }
    Csr out;
    out.rows = rows;
    out.cols = cols;
    out.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
    out.col.reserve(entries.size());
    out.val.reserve(entries.size());
    for (std::int32_t r = 0; r < rows; ++r) {
        const auto first = entries.begin() + start[static_cast<std::size_t>(r)];
        const auto last = entries.begin() + start[static_cast<std::size_t>(r) + 1];
        // Stable: duplicates keep file order, so their sum does not depend on the sort.
        std::stable_sort(first, last,
                         [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto it = first; it != last; ++it) {
            if (it != first && out.col.back() == it->first) {
                out.val.back() += it->second;
            } else {
                out.col.push_back(it->first);
                out.val.push_back(it->second);
            }
        }
        out.row_ptr[static_cast<std::size_t>(r) + 1] = static_cast<std::int32_t>(out.col.size());
    }
    return out;
}

std::ifstream open(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw MatrixMarketError(path, 0, std::string("cannot open: ") + std::strerror(errno));
    return in;
}

}  // namespace

MatrixMarketError::MatrixMarketError(const std::string& file, std::int64_t line,
                                     const std::string& detail)
    : InputError(std::string(), detail,
                 file + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + detail),
      file_(file),
      line_(line) {}

Csr read_matrix_market(std::istream& in, const std::string& name, std::int64_t* duplicates) {
    LineReader r(in, name);
    const Header h = read_banner(r);
    if (h.format == Format::kArray) {
        r.fail(1,
               "the array (dense) format is not supported for a matrix (coordinate only; "
               "read_matrix_market_vector reads n x 1 arrays)");
    }
    const Size size = read_size(r, h.format);
    if (h.symmetry != Symmetry::kGeneral && size.rows != size.cols) {
        r.fail("a symmetric or skew-symmetric matrix must be square, the size line gives " +
               std::to_string(size.rows) + " x " + std::to_string(size.cols));
    }
    const std::int64_t per_entry = h.symmetry == Symmetry::kGeneral ? 1 : 2;
    if (size.entries > kMaxIndex) r.too_large(std::to_string(size.entries) + " entries");

    std::vector<std::int32_t> ti, tj;
    std::vector<double> tv;
    // Reserve what the size line promises, within reason: a wrong ENTRIES must not allocate
    // gigabytes before the entries are checked.
    const auto reserve = static_cast<std::size_t>(
        std::min<std::int64_t>(size.entries * per_entry, std::int64_t{1} << 24));
    ti.reserve(reserve);
    tj.reserve(reserve);
    tv.reserve(reserve);
    const double mirror_sign = h.symmetry == Symmetry::kSkewSymmetric ? -1.0 : 1.0;
    read_coordinate_entries(r, h, size, [&](std::int64_t i, std::int64_t j, double v) {
        ti.push_back(static_cast<std::int32_t>(i));
        tj.push_back(static_cast<std::int32_t>(j));
        tv.push_back(v);
        if (h.symmetry != Symmetry::kGeneral && i != j) {
            ti.push_back(static_cast<std::int32_t>(j));
            tj.push_back(static_cast<std::int32_t>(i));
            tv.push_back(mirror_sign * v);
        }
    });
    if (static_cast<std::int64_t>(ti.size()) > kMaxIndex) {
        throw MatrixMarketError(name, 0,
                                std::to_string(ti.size()) +
                                    " stored entries (with the mirrored triangle) exceed the "
                                    "32-bit index range of heptane's CSR format");
    }
    Csr a = triplets_to_csr(static_cast<std::int32_t>(size.rows),
                            static_cast<std::int32_t>(size.cols), ti, tj, tv);
    if (duplicates != nullptr)
        *duplicates =
            static_cast<std::int64_t>(ti.size()) - static_cast<std::int64_t>(a.col.size());
    return a;
}

Csr read_matrix_market(const std::string& path, std::int64_t* duplicates) {
    std::ifstream in = open(path);
    return read_matrix_market(in, path, duplicates);
}

std::vector<double> read_matrix_market_vector(std::istream& in, const std::string& name,
                                              std::int64_t* duplicates) {
    LineReader r(in, name);
    const Header h = read_banner(r);
    if (h.symmetry != Symmetry::kGeneral) r.fail(1, "a vector must have the symmetry 'general'");
    const Size size = read_size(r, h.format);
    if (size.cols != 1) {
        r.fail("expected an n x 1 vector, the size line gives " + std::to_string(size.rows) +
               " x " + std::to_string(size.cols));
    }
    std::vector<double> v(static_cast<std::size_t>(size.rows), 0.0);
    if (h.format == Format::kCoordinate) {
        if (size.entries > kMaxIndex) r.too_large(std::to_string(size.entries) + " entries");
        std::vector<bool> seen(v.size(), false);
        std::int64_t repeated = 0;
        read_coordinate_entries(r, h, size, [&](std::int64_t i, std::int64_t, double value) {
            v[static_cast<std::size_t>(i)] += value;
            repeated += seen[static_cast<std::size_t>(i)] ? 1 : 0;
            seen[static_cast<std::size_t>(i)] = true;
        });
        if (duplicates != nullptr) *duplicates = repeated;
        return v;
    }
    Tokens t;
    for (std::int64_t k = 0; k < size.rows; ++k) {
        if (!r.next_data(t)) {
            r.fail("the file ends after " + std::to_string(k) + " of the " +
                   std::to_string(size.rows) + " values declared on line " +
                   std::to_string(size.line));
        }
        if (t.count != 1) {
            r.fail("array entry: expected one value per line, got " + std::to_string(t.count) +
                   " fields");
        }
        double& value = v[static_cast<std::size_t>(k)];
        if (h.field == Field::kInteger) {
            std::int64_t iv = 0;
            if (!parse_int(t.tok[0], iv)) {
                r.fail("value " + quote_input(t.tok[0]) + " is not an integer (integer field)");
            }
            value = static_cast<double>(iv);
        } else if (!parse_double(t.tok[0], value)) {
            r.fail("value " + quote_input(t.tok[0]) + " is not a number");
        } else if (!std::isfinite(value)) {
            r.fail("value " + quote_input(t.tok[0]) + " is not finite");
        }
    }
    if (r.next_data(t)) {
        r.fail("more values than the " + std::to_string(size.rows) + " declared on line " +
               std::to_string(size.line));
    }
    return v;
}

std::vector<double> read_matrix_market_vector(const std::string& path, std::int64_t* duplicates) {
    std::ifstream in = open(path);
    return read_matrix_market_vector(in, path, duplicates);
}

Bsr promote_to_bsr(const Csr& pattern, int block_size, std::uint64_t seed) {
    if (pattern.rows != pattern.cols) {
        throw InputError("promote_to_bsr: the pattern must be square, it is " +
                         std::to_string(pattern.rows) + " x " + std::to_string(pattern.cols));
    }
    if (block_size < 1 || block_size > kMaxPromotedBlockSize) {
        throw InputError("promote_to_bsr: block size " + std::to_string(block_size) +
                         " is outside 1.." + std::to_string(kMaxPromotedBlockSize));
    }
    const std::size_t bb = static_cast<std::size_t>(block_size) * block_size;
    Bsr out;
    out.block_rows = pattern.rows;
    out.block_cols = pattern.cols;
    out.block_size = block_size;
    out.row_ptr = pattern.row_ptr.empty() ? std::vector<std::int32_t>{0} : pattern.row_ptr;
    out.col = pattern.col;
    out.val.resize(out.col.size() * bb);
    const auto cols = static_cast<std::uint64_t>(pattern.cols);
    // Each block draws from its own stream (i * cols + j): the values do not depend on the
    // thread count or the loop schedule.
#pragma omp parallel for schedule(dynamic, 64)
    for (index_t i = 0; i < out.block_rows; ++i) {
        for (std::int32_t p = out.row_ptr[i]; p < out.row_ptr[i + 1]; ++p) {
            Rng rng(seed,
                    static_cast<std::uint64_t>(i) * cols + static_cast<std::uint64_t>(out.col[p]));
            double* block = out.val.data() + static_cast<std::size_t>(p) * bb;
            for (std::size_t k = 0; k < bb; ++k) block[k] = rng.uniform(-1.0, 1.0);
        }
    }
    return out;
}

}  // namespace heptane
