#include "grid/eclipse_grid.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <sstream>
#include <string_view>
#include <system_error>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "grid/text_input.hpp"

namespace heptane::grid {
namespace {

using namespace detail;  // grid/text_input.hpp
namespace fs = std::filesystem;

constexpr double kUnset = std::numeric_limits<double>::quiet_NaN();

/// 0-based inclusive ranges of i, j, k.
struct Box {
    std::array<int, 6> r{0, 0, 0, 0, 0, 0};  // i0 i1 j0 j1 k0 k1
    std::size_t size() const {
        return static_cast<std::size_t>(r[1] - r[0] + 1) * (r[3] - r[2] + 1) * (r[5] - r[4] + 1);
    }
};

std::string number_text(double v) {
    std::ostringstream s;
    s << v;
    return s.str();
}

bool is_array(std::string_view k) {
    static constexpr std::string_view kArrays[] = {
        "PERMX",  "PERMY",  "PERMZ",  "PORO",    "NTG",     "ACTNUM", "DX",
        "DY",     "DZ",     "TOPS",   "MULTX",   "MULTY",   "MULTZ",  "MULTX-",
        "MULTY-", "MULTZ-", "MULTPV", "MULTNUM", "FLUXNUM", "OPERNUM"};
    return std::find(std::begin(kArrays), std::end(kArrays), k) != std::end(kArrays);
}

/// The sections after GRID (and EDIT): heptane's YAML deck gives fluid, wells and schedule.
bool ends_grid(std::string_view k) {
    return k == "PROPS" || k == "REGIONS" || k == "SOLUTION" || k == "SUMMARY" || k == "SCHEDULE" ||
           k == "END";
}

/// EQUALREG, MULTIREG, ADDREG, COPYREG: edits over the cells of one region number.
bool is_region_edit(std::string_view k) {
    return k == "EQUALREG" || k == "MULTIREG" || k == "ADDREG" || k == "COPYREG";
}

bool is_edit(std::string_view k) {
    return k == "EQUALS" || k == "MULTIPLY" || k == "ADD" || k == "COPY" || k == "MINVALUE" ||
           k == "MAXVALUE";
}

/// A token without its quotes ('PERMX' -> PERMX).
std::string_view unquoted(std::string_view t) {
    if (t.size() >= 2 && (t.front() == '\'' || t.front() == '"') && t.back() == t.front())
        return t.substr(1, t.size() - 2);
    return t;
}

/// An OPERATE operation: R = apply(R, X, alpha, beta) (the Eclipse manual's table).
struct Operation {
    const char* name;
    bool reads_target;  ///< uses R (POLY, MULTIPLY): the target must be defined
    double (*apply)(double r, double x, double a, double b);
};

constexpr Operation kOperations[] = {
    {"MULTA", false, [](double, double x, double a, double b) { return a * x + b; }},
    {"POLY", true, [](double r, double x, double a, double b) { return r + a * std::pow(x, b); }},
    {"SLOG", false, [](double, double x, double a, double b) { return std::pow(10.0, a + b * x); }},
    {"LOG10", false, [](double, double x, double, double) { return std::log10(x); }},
    {"LOGE", false, [](double, double x, double, double) { return std::log(x); }},
    {"INV", false, [](double, double x, double, double) { return 1.0 / x; }},
    {"MULTX", false, [](double, double x, double a, double) { return a * x; }},
    {"ADDX", false, [](double, double x, double a, double) { return a + x; }},
    {"COPY", false, [](double, double x, double, double) { return x; }},
    {"MAXLIM", false, [](double, double x, double a, double) { return std::min(a, x); }},
    {"MINLIM", false, [](double, double x, double a, double) { return std::max(a, x); }},
    {"MULTP", false, [](double, double x, double a, double b) { return a * std::pow(x, b); }},
    {"ABS", false, [](double, double x, double, double) { return std::abs(x); }},
    {"MULTIPLY", true, [](double r, double x, double, double) { return r * x; }},
};

const Operation* operation(const std::string& name) {
    for (const Operation& o : kOperations)
        if (name == o.name) return &o;
    return nullptr;
}

std::string operation_names() {
    std::string out;
    for (const Operation& o : kOperations) out += (out.empty() ? "" : ", ") + std::string(o.name);
    return out;
}

/// One file being read: its text, tokens and name, for messages.
struct Source {
    std::string path;
    std::string text;
    EclipseTokenizer tokens;
    Source(std::string p, std::string t) : path(std::move(p)), text(std::move(t)), tokens(text) {}
    [[noreturn]] void fail(const Token& at, const std::string& what) const {
        throw InputError(where(path, text, at.offset) + what);
    }
};

class GridReader {
  public:
    explicit GridReader(std::array<int, 3> dims) {
        data_.dims = dims;
        full_.r = {0, dims[0] - 1, 0, dims[1] - 1, 0, dims[2] - 1};
        box_ = full_;
    }

    void read_file(const std::string& path, std::vector<std::string>& stack) {
        std::error_code ec;
        const fs::path canonical = fs::weakly_canonical(path, ec);
        const std::string id = ec ? path : canonical.string();
        if (std::find(stack.begin(), stack.end(), id) != stack.end())
            throw InputError(path + ": INCLUDE cycle: the file includes itself");
        stack.push_back(id);
        Source src(path, read_whole_file(path));
        Token t;
        while (!ended_ && src.tokens.next(t)) {
            const std::string keyword(t.text);
            if (runspec_) {
                read_runspec_token(src, t, keyword);
                continue;
            }
            if (!is_keyword(t.text)) src.fail(t, quote_input(t.text) + " is not a keyword");
            if (is_array(keyword)) {
                read_array(src, t, keyword);
            } else if (is_edit(keyword)) {
                read_edit(src, t, keyword);
            } else if (is_region_edit(keyword)) {
                read_region_edit(src, t, keyword);
            } else if (keyword == "BOX") {
                box_ = read_box(src, t, keyword, full_, true);
            } else if (keyword == "ENDBOX") {
                box_ = full_;
            } else if (keyword == "INCLUDE") {
                read_include(src, t, stack);
            } else if (keyword == "RUNSPEC") {
                runspec_ = true;
            } else if (keyword == "DIMENS" || keyword == "SPECGRID") {
                read_dimensions(src, t, keyword);
            } else if (keyword == "DXV" || keyword == "DYV" || keyword == "DZV") {
                read_size_vector(src, t, keyword);
            } else if (keyword == "GRIDOPTS") {
                read_gridopts(src, t);
            } else if (keyword == "FAULTS") {
                read_faults(src, t);
            } else if (keyword == "MULTFLT") {
                read_multflt(src, t);
            } else if (keyword == "MINPV") {
                read_minpv(src, t);
            } else if (keyword == "OPERATE") {
                read_operate(src, t);
            } else if (ends_grid(keyword)) {
                ended_ = true;
                data_.notes.push_back(where(src.path, src.text, t.offset) + keyword +
                                      ": the file is not read from here on (fluid, wells and "
                                      "schedule come from the YAML deck)");
            } else if (keyword == "GRID" || keyword == "EDIT" || keyword == "ECHO" ||
                       keyword == "NOECHO" || keyword == "INIT") {
                // Section headers and print/output switches (INIT asks for the grid's arrays
                // in an output file: heptane's /grid always holds them). They take no data; a
                // '/' right after one (the Egg model's "INIT /") is its empty record.
                EclipseTokenizer probe = src.tokens;
                Token next;
                if (probe.next(next) && next.text == "/") src.tokens = probe;
            } else if (keyword == "COORD" || keyword == "ZCORN") {
                src.fail(t, keyword +
                                ": corner-point geometry is not supported (heptane reads "
                                "Cartesian grids: DX, DY, DZ and TOPS)");
            } else {
                src.fail(
                    t, quote_input(keyword) +
                           " is not a GRID-section keyword heptane applies (it reads "
                           "PERMX/Y/Z, PORO, NTG, ACTNUM, DX, DY, DZ, DXV, DYV, DZV, TOPS, "
                           "MULTX/Y/Z, MULTX-/Y-/Z-, MULTPV, MINPV, GRIDOPTS, FAULTS, MULTFLT, "
                           "MULTNUM, FLUXNUM, OPERNUM, EQUALREG, MULTIREG, ADDREG, COPYREG, "
                           "BOX, ENDBOX, EQUALS, MULTIPLY, ADD, COPY, MINVALUE, MAXVALUE, OPERATE, "
                           "INCLUDE, SPECGRID, and the RUNSPEC section's DIMENS and units)");
            }
        }
        stack.pop_back();
    }

    EclipseGridData take() { return std::move(data_); }

    /// "[nx, ny, nz]", the deck's grid.dims.
    std::string dims_text() const {
        return "[" + std::to_string(data_.dims[0]) + ", " + std::to_string(data_.dims[1]) + ", " +
               std::to_string(data_.dims[2]) + "]";
    }
    bool ended() const { return ended_; }

  private:
    std::size_t cells() const { return full_.size(); }
    std::size_t index(int i, int j, int k) const {
        return static_cast<std::size_t>(i) +
               static_cast<std::size_t>(data_.dims[0]) *
                   (static_cast<std::size_t>(j) + static_cast<std::size_t>(data_.dims[1]) * k);
    }
    template <class F>
    void for_box(const Box& b, F f) const {
        std::size_t n = 0;
        for (int k = b.r[4]; k <= b.r[5]; ++k)
            for (int j = b.r[2]; j <= b.r[3]; ++j)
                for (int i = b.r[0]; i <= b.r[1]; ++i) f(index(i, j, k), n++);
    }
    std::vector<double>& array(const std::string& name) {
        auto [it, inserted] = data_.arrays.try_emplace(name);
        if (inserted) it->second.assign(cells(), kUnset);
        return it->second;
    }

    /// Data tokens up to '/', values appended (defaults as NaN).
    std::vector<double> read_values(Source& src, const Token& at, const std::string& keyword) {
        std::vector<double> values;
        Token t;
        while (src.tokens.next(t)) {
            if (t.text == "/") return values;
            append_values(src.path, src.text, t, keyword, values, cells(), true);
            if (values.size() > cells()) break;
        }
        src.fail(at, keyword + ": " +
                         (values.size() > cells()
                              ? "more values than the grid's " + std::to_string(cells()) +
                                    " cells (is the '/' that ends it missing?)"
                              : std::string("the file ends before the '/' that closes its data")));
    }

    void read_array(Source& src, const Token& at, const std::string& keyword) {
        check_negative_multiplier(src, at, keyword);
        const std::vector<double> values = read_values(src, at, keyword);
        Box b = box_;
        const bool top_layer_only = keyword == "TOPS" && b.r == full_.r &&
                                    values.size() == static_cast<std::size_t>(data_.dims[0]) *
                                                         static_cast<std::size_t>(data_.dims[1]);
        if (top_layer_only) b.r[5] = 0;
        if (values.size() != b.size()) {
            src.fail(at, keyword + ": " + std::to_string(values.size()) + " values, the box has " +
                             std::to_string(b.size()) + " cells" +
                             (b.r == full_.r ? " (the whole grid of grid.dims " + dims_text() + ")"
                                             : std::string(" (BOX)")));
        }
        std::vector<double>& a = array(keyword);
        for_box(b, [&](std::size_t cell, std::size_t n) {
            if (!std::isnan(values[n])) a[cell] = values[n];
        });
    }

    /// Numbers up to the '/' that ends a record (n* defaults as NaN); false at the file's end.
    /// A record holds at most a value and a box (box_from refuses more).
    static bool read_record(Source& src, const std::string& keyword, std::vector<double>& items) {
        constexpr std::size_t kMostItems = 7;
        Token t;
        while (src.tokens.next(t)) {
            if (t.text == "/") return true;
            append_values(src.path, src.text, t, keyword, items, kMostItems, true);
        }
        return false;
    }

    /// A box from up to six 1-based integers (n* defaults take `fallback`'s), then '/' when
    /// `own_keyword` (BOX), or ended by the '/' of a record.
    Box read_box(Source& src, const Token& at, const std::string& keyword, const Box& fallback,
                 bool own_keyword) {
        std::vector<double> items;
        if (!read_record(src, keyword, items))
            src.fail(at, keyword + ": the file ends before the '/' that closes it");
        return box_from(src, at, keyword, items, 0, fallback, own_keyword);
    }

    Box box_from(const Source& src, const Token& at, const std::string& keyword,
                 const std::vector<double>& items, std::size_t first, const Box& fallback,
                 bool all_six) const {
        const std::size_t n = items.size() - first;
        if (n > 6 || (all_six && n != 6)) {
            src.fail(at,
                     keyword + ": a box is 6 integers I1 I2 J1 J2 K1 K2, got " + std::to_string(n));
        }
        Box b = fallback;
        for (std::size_t q = 0; q < n; ++q) {
            const double v = items[first + q];
            if (std::isnan(v)) continue;  // defaulted
            if (v != std::floor(v) || v < 1 || v > data_.dims[q / 2]) {
                src.fail(at, keyword + ": box item " + std::to_string(q + 1) + " (" +
                                 std::string("IJK").substr(q / 2, 1) + ") is " +
                                 quote_input(number_text(v)) + "; it must be an integer 1.." +
                                 std::to_string(data_.dims[q / 2]));
            }
            b.r[q] = static_cast<int>(v) - 1;
        }
        for (int d = 0; d < 3; ++d) {
            if (b.r[2 * d] > b.r[2 * d + 1]) {
                src.fail(at, keyword + ": the box's " + std::string("IJK").substr(d, 1) +
                                 " range " + std::to_string(b.r[2 * d] + 1) + ".." +
                                 std::to_string(b.r[2 * d + 1] + 1) + " is reversed");
            }
        }
        return b;
    }

    /// EQUALS, MULTIPLY, ADD, COPY, MINVALUE, MAXVALUE: records until an empty one.
    void read_edit(Source& src, const Token& at, const std::string& keyword) {
        Box previous = box_;
        for (;;) {
            Token t;
            if (!src.tokens.next(t))
                src.fail(at, keyword + ": the file ends before the '/' that ends its records");
            if (t.text == "/") return;  // the empty record
            const Token record = t;
            const std::string target(unquoted(t.text));
            std::string source_array;
            if (keyword == "COPY") {
                source_array = target;
                if (!src.tokens.next(t) || t.text == "/")
                    src.fail(record, "COPY: a record is FROM TO [box] /");
            }
            const std::string name = keyword == "COPY" ? std::string(unquoted(t.text)) : target;
            if (!is_array(name)) {
                src.fail(record,
                         keyword + ": " + quote_input(name) + " is not an array heptane reads");
            }
            check_negative_multiplier(src, record, name);
            std::vector<double> items;
            if (!read_record(src, keyword, items))
                src.fail(record, keyword + ": the file ends before the record's '/'");
            const std::size_t values = keyword == "COPY" ? 0 : 1;
            if (items.size() < values || (values == 1 && std::isnan(items[0]))) {
                src.fail(record, keyword + ": a record is " +
                                     (keyword == "EQUALS"     ? "ARRAY value"
                                      : keyword == "MULTIPLY" ? "ARRAY factor"
                                      : keyword == "ADD"      ? "ARRAY constant"
                                                              : "ARRAY bound") +
                                     " [I1 I2 J1 J2 K1 K2] /");
            }
            const Box b = box_from(src, record, keyword, items, values, previous, false);
            previous = b;
            apply_edit(src, record, keyword, keyword == "COPY" ? source_array : name, name,
                       values == 1 ? items[0] : 0.0, b);
        }
    }

    void apply_edit(const Source& src, const Token& at, const std::string& keyword,
                    const std::string& from, const std::string& to, double value, const Box& b) {
        if (keyword == "EQUALS") {
            std::vector<double>& a = array(to);
            for_box(b, [&](std::size_t cell, std::size_t) { a[cell] = value; });
            return;
        }
        const auto it = data_.arrays.find(from);
        if (it == data_.arrays.end())
            src.fail(at, keyword + ": " + from + " is not defined yet (give it before the edit)");
        if (keyword == "COPY") {
            const std::vector<double> source = it->second;  // `to` may be inserted below
            std::vector<double>& a = array(to);
            for_box(b, [&](std::size_t cell, std::size_t) { a[cell] = source[cell]; });
            return;
        }
        std::vector<double>& a = it->second;
        for_box(b, [&](std::size_t cell, std::size_t) {
            double& x = a[cell];
            if (keyword == "MULTIPLY") x *= value;
            if (keyword == "ADD") x += value;
            if (keyword == "MINVALUE") x = std::max(x, value);
            if (keyword == "MAXVALUE") x = std::min(x, value);
        });
    }

    /// MULTX- and the other negative-direction multipliers, refused after GRIDOPTS 'NO'.
    void check_negative_multiplier(const Source& src, const Token& at,
                                   const std::string& keyword) const {
        if (keyword.back() == '-' && !negative_multipliers_) {
            src.fail(at, keyword +
                             ": GRIDOPTS says 'NO' to negative-direction multipliers "
                             "(give GRIDOPTS 'YES' /)");
        }
    }

    /// DXV NX values / (DYV, DZV): every cell's DX (DY, DZ) by its column (row, layer).
    void read_size_vector(Source& src, const Token& at, const std::string& keyword) {
        const int axis = keyword[1] - 'X';
        const auto count = static_cast<std::size_t>(data_.dims[axis]);
        std::vector<double> values;
        Token t;
        bool closed = false;
        while (src.tokens.next(t)) {
            if (t.text == "/") {
                closed = true;
                break;
            }
            append_values(src.path, src.text, t, keyword, values, count);
            if (values.size() > count) break;
        }
        if (!closed && values.size() <= count)
            src.fail(at, keyword + ": the file ends before the '/' that closes its data");
        if (values.size() != count) {
            src.fail(at, keyword + ": " + std::to_string(values.size()) + " values, the grid has " +
                             std::to_string(count) + " cells along " +
                             std::string("IJK").substr(static_cast<std::size_t>(axis), 1) +
                             " (grid.dims " + dims_text() + ")");
        }
        std::vector<double>& a = array(std::string(1, 'D') + keyword[1]);
        for_box(full_, [&](std::size_t cell, std::size_t) {
            const std::size_t i = cell % static_cast<std::size_t>(data_.dims[0]);
            const std::size_t j = cell / static_cast<std::size_t>(data_.dims[0]) %
                                  static_cast<std::size_t>(data_.dims[1]);
            const std::size_t k = cell / (static_cast<std::size_t>(data_.dims[0]) * data_.dims[1]);
            a[cell] = values[axis == 0 ? i : axis == 1 ? j : k];
        });
    }

    /// The words and numbers of one record up to its '/' (quotes removed); false at the file's
    /// end.
    static bool read_words(Source& src, std::vector<Token>& words) {
        Token t;
        while (src.tokens.next(t)) {
            if (t.text == "/") return true;
            words.push_back(t);
        }
        return false;
    }

    /// GRIDOPTS TRANMULT [NRMULT [NRPINC]] /.
    void read_gridopts(Source& src, const Token& at) {
        std::vector<Token> words;
        if (!read_words(src, words))
            src.fail(at, "GRIDOPTS: the file ends before the '/' that closes it");
        if (words.empty() || words.size() > 3)
            src.fail(at, "GRIDOPTS: expected TRANMULT [NRMULT [NRPINC]], then '/'");
        const std::string tranmult(unquoted(words[0].text));
        if (tranmult != "YES" && tranmult != "NO" && tranmult != "1*") {
            src.fail(words[0],
                     "GRIDOPTS: TRANMULT is " + quote_input(tranmult) + "; it must be YES or NO");
        }
        negative_multipliers_ = tranmult == "YES";  // Eclipse's default is NO
        data_.tranmult = negative_multipliers_ ? "YES" : "NO";
        const char* what[3] = {"", "NRMULT (MULTNUM regions)", "NRPINC (PINCHNUM regions)"};
        for (std::size_t q = 1; q < words.size(); ++q) {
            std::vector<double> v;
            append_values(src.path, src.text, words[q], "GRIDOPTS", v, 1, true);
            if (v.size() != 1 || (!std::isnan(v[0]) && v[0] != 0.0)) {
                src.fail(words[q], std::string("GRIDOPTS: ") + what[q] + " is " +
                                       quote_input(words[q].text) +
                                       "; regions are not supported (0 or defaulted)");
            }
        }
    }

    /// The one number of `word`, finite and >= 0 (else an error naming it `what`).
    static double non_negative(const Source& src, const Token& word, const std::string& keyword,
                               const std::string& what) {
        std::vector<double> v;
        append_values(src.path, src.text, word, keyword, v, 1);
        if (v.size() != 1 || !std::isfinite(v[0]) || v[0] < 0.0) {
            src.fail(word, keyword + ": " + what + " is " + quote_input(word.text) +
                               "; it must be finite and >= 0");
        }
        return v[0];
    }

    /// MINPV value /.
    void read_minpv(Source& src, const Token& at) {
        std::vector<Token> words;
        if (!read_words(src, words))
            src.fail(at, "MINPV: the file ends before the '/' that closes it");
        if (words.size() != 1) src.fail(at, "MINPV: expected one pore volume, then '/'");
        data_.minpv = non_negative(src, words[0], "MINPV", "the pore volume");
    }

    /// FACE of a FAULTS record: X, Y, Z (or I, J, K), with an optional + or -.
    static bool fault_face(std::string_view f, int& axis, int& side) {
        if (f.empty() || f.size() > 2) return false;
        const char a = f[0];
        axis = a == 'X' || a == 'I' ? 0 : a == 'Y' || a == 'J' ? 1 : a == 'Z' || a == 'K' ? 2 : -1;
        side = f.size() == 2 && f[1] == '-' ? -1 : 1;
        return axis >= 0 && (f.size() == 1 || f[1] == '+' || f[1] == '-');
    }

    /// f(words) for each record of `keyword` up to the empty one that ends the list.
    template <class F>
    static void each_record(Source& src, const Token& at, const std::string& keyword, F f) {
        for (;;) {
            std::vector<Token> words;
            if (!read_words(src, words))
                src.fail(at, keyword + ": the file ends before the '/' that ends its records");
            if (words.empty()) return;  // the empty record
            f(words);
        }
    }

    /// FAULTS: NAME I1 I2 J1 J2 K1 K2 FACE / records until an empty one.
    void read_faults(Source& src, const Token& at) {
        each_record(src, at, "FAULTS", [&](const std::vector<Token>& words) {
            const Token& record = words[0];
            if (words.size() != 8)
                src.fail(record, "FAULTS: a record is NAME I1 I2 J1 J2 K1 K2 FACE /");
            std::vector<double> items;
            for (std::size_t q = 1; q < 7; ++q)
                append_values(src.path, src.text, words[q], "FAULTS", items, 6);
            if (items.size() != 6)
                src.fail(record, "FAULTS: a record is NAME I1 I2 J1 J2 K1 K2 FACE /");
            EclipseGridData::FaultFace face;
            const std::string_view f = unquoted(words[7].text);
            if (!fault_face(f, face.axis, face.side)) {
                src.fail(words[7], "FAULTS: FACE is " + quote_input(f) +
                                       "; it must be X, Y or Z (or I, J, K), with + or -");
            }
            const Box b = box_from(src, record, "FAULTS", items, 0, full_, true);
            if (b.r[2 * face.axis] != b.r[2 * face.axis + 1]) {
                const std::string d = std::string("IJK").substr(face.axis, 1);
                src.fail(record, "FAULTS: a face along " + std::string("XYZ").substr(face.axis, 1) +
                                     " needs " + d + "1 = " + d + "2 (one layer of cells)");
            }
            face.box = b.r;
            data_.faults[std::string(unquoted(record.text))].push_back(face);
        });
    }

    /// MULTFLT: NAME multiplier / records until an empty one; NAME may end with '*'.
    void read_multflt(Source& src, const Token& at) {
        each_record(src, at, "MULTFLT", [&](const std::vector<Token>& words) {
            const Token& record = words[0];
            if (words.size() != 2) src.fail(record, "MULTFLT: a record is NAME multiplier /");
            const double value = non_negative(src, words[1], "MULTFLT", "the multiplier");
            const std::string name(unquoted(record.text));
            const bool pattern = !name.empty() && name.back() == '*';
            const std::string stem = pattern ? name.substr(0, name.size() - 1) : name;
            bool found = false;
            for (const auto& [fault, faces] : data_.faults) {
                if (pattern ? fault.compare(0, stem.size(), stem) != 0 : fault != name) continue;
                found = true;
                for (const EclipseGridData::FaultFace& face : faces)
                    data_.fault_multipliers.emplace_back(face, value);
            }
            if (!found) {
                src.fail(record, "MULTFLT: no fault " + quote_input(name) +
                                     " (FAULTS defines the faults before MULTFLT names them)");
            }
        });
    }

    /// EQUALREG (ARRAY value), MULTIREG (ARRAY factor), ADDREG (ARRAY constant), COPYREG
    /// (FROM TO): records ending with a region number and optionally the region array (M:
    /// MULTNUM, the default; F: FLUXNUM; O: OPERNUM), over the whole grid whatever the box; a
    /// region array not given puts every cell in region 1.
    void read_region_edit(Source& src, const Token& at, const std::string& keyword) {
        each_record(src, at, keyword, [&](const std::vector<Token>& words) {
            const Token& record = words[0];
            const bool copy = keyword == "COPYREG";
            const std::string form = keyword + ": a record is " +
                                     (copy ? "FROM TO" : "ARRAY value") + " region [M|F|O] /";
            if (words.size() != 3 && words.size() != 4) src.fail(record, form);
            const std::string target(unquoted(words[copy ? 1 : 0].text));
            const std::string source(unquoted(words[0].text));
            for (const std::string& name : {source, target}) {
                if (!is_array(name)) {
                    src.fail(record,
                             keyword + ": " + quote_input(name) + " is not an array heptane reads");
                }
            }
            check_negative_multiplier(src, record, target);
            double value = 0.0;
            if (!copy) {
                std::vector<double> v;
                append_values(src.path, src.text, words[1], keyword, v, 1);
                if (v.size() != 1) src.fail(record, form);
                value = v[0];
            }
            std::vector<double> number;
            append_values(src.path, src.text, words[2], keyword, number, 1);
            if (number.size() != 1 || number[0] != std::floor(number[0]) || number[0] < 1) {
                src.fail(words[2], keyword + ": the region number is " +
                                       quote_input(words[2].text) + "; it must be an integer >= 1");
            }
            std::string region = "MULTNUM";
            if (words.size() == 4) {
                const std::string_view r = unquoted(words[3].text);
                region = r == "M" ? "MULTNUM" : r == "F" ? "FLUXNUM" : r == "O" ? "OPERNUM" : "";
                if (region.empty()) {
                    src.fail(words[3], keyword + ": the region array is " + quote_input(r) +
                                           "; it must be M (MULTNUM), F (FLUXNUM) or O (OPERNUM)");
                }
            }
            const auto regions = data_.arrays.find(region);
            const auto in_region = [&](std::size_t cell) {
                const bool given =
                    regions != data_.arrays.end() && !std::isnan(regions->second[cell]);
                return (given ? regions->second[cell] : 1.0) == number[0];
            };
            if (keyword == "EQUALREG") {
                std::vector<double>& a = array(target);
                for (std::size_t c = 0; c < cells(); ++c)
                    if (in_region(c)) a[c] = value;
                return;
            }
            const auto from = data_.arrays.find(source);
            if (from == data_.arrays.end()) {
                src.fail(record,
                         keyword + ": " + source + " is not defined yet (give it before the edit)");
            }
            const std::vector<double> values = from->second;  // `target` may be inserted below
            std::vector<double>& a = array(target);
            for (std::size_t c = 0; c < cells(); ++c) {
                if (!in_region(c)) continue;
                if (copy) a[c] = values[c];
                if (keyword == "MULTIREG") a[c] *= value;
                if (keyword == "ADDREG") a[c] += value;
            }
        });
    }

    /// OPERATE: TARGET I1 I2 J1 J2 K1 K2 OPERATION SOURCE [alpha [beta]] / records until an
    /// empty one: the target array R = f(R, X) on the box's cells, X the source array; a
    /// defaulted box item (n*) is the current BOX's (or the whole grid's), alpha and beta
    /// default to 0.
    void read_operate(Source& src, const Token& at) {
        each_record(src, at, "OPERATE", [&](const std::vector<Token>& words) {
            const Token& record = words[0];
            const std::string form =
                "OPERATE: a record is TARGET I1 I2 J1 J2 K1 K2 OPERATION SOURCE [alpha [beta]] /";
            std::vector<double> box;  // the box items: numbers up to the operation's name
            std::size_t w = 1;
            for (; w < words.size() && box.size() < 6 && !is_keyword(unquoted(words[w].text)); ++w)
                append_values(src.path, src.text, words[w], "OPERATE", box, 6, true);
            if (box.size() != 6 || w + 2 > words.size() || w + 4 < words.size())
                src.fail(record, form);
            const std::string target(unquoted(record.text));
            const std::string op(unquoted(words[w].text));
            const std::string source(unquoted(words[w + 1].text));
            const Operation* f = operation(op);
            if (f == nullptr) {
                src.fail(words[w], "OPERATE: the operation is " + quote_input(op) +
                                       "; it must be one of " + operation_names());
            }
            for (const std::string& name : {target, source}) {
                if (!is_array(name)) {
                    src.fail(record,
                             "OPERATE: " + quote_input(name) + " is not an array heptane reads");
                }
            }
            check_negative_multiplier(src, record, target);
            std::vector<double> params;
            for (std::size_t q = w + 2; q < words.size(); ++q)
                append_values(src.path, src.text, words[q], "OPERATE", params, 2, true);
            if (params.size() > 2) src.fail(record, form);
            params.resize(2, 0.0);
            const double alpha = std::isnan(params[0]) ? 0.0 : params[0];
            const double beta = std::isnan(params[1]) ? 0.0 : params[1];
            const Box b = box_from(src, record, "OPERATE", box, 0, box_, false);
            const auto from = data_.arrays.find(source);
            if (from == data_.arrays.end()) {
                src.fail(record,
                         "OPERATE: " + source + " is not defined yet (give it before the edit)");
            }
            if (f->reads_target && data_.arrays.count(target) == 0) {
                src.fail(record,
                         "OPERATE: " + op + " reads " + target + ", which is not defined yet");
            }
            const std::vector<double> x = from->second;  // `target` may be inserted below
            std::vector<double>& r = array(target);
            for (int k = b.r[4]; k <= b.r[5]; ++k) {
                for (int j = b.r[2]; j <= b.r[3]; ++j) {
                    for (int i = b.r[0]; i <= b.r[1]; ++i) {
                        const std::size_t c = index(i, j, k);
                        const std::string cell = " at cell (" + std::to_string(i + 1) + ", " +
                                                 std::to_string(j + 1) + ", " +
                                                 std::to_string(k + 1) + ")";
                        if (std::isnan(x[c]) || (f->reads_target && std::isnan(r[c]))) {
                            src.fail(record, "OPERATE: " + (std::isnan(x[c]) ? source : target) +
                                                 " has no value" + cell);
                        }
                        const double v = f->apply(r[c], x[c], alpha, beta);
                        if (!std::isfinite(v)) {
                            src.fail(record, "OPERATE: " + op + " of " + source + " = " +
                                                 number_text(x[c]) + " is not finite" + cell);
                        }
                        r[c] = v;
                    }
                }
            }
        });
    }

    void read_include(Source& src, const Token& at, std::vector<std::string>& stack) {
        Token t;
        if (!src.tokens.next(t) || t.text == "/")
            src.fail(at, "INCLUDE: expected a file name, then '/'");
        const std::string name(unquoted(t.text));
        Token slash;
        if (!src.tokens.next(slash) || slash.text != "/")
            src.fail(at, "INCLUDE: the file name must be followed by '/'");
        const fs::path file =
            fs::path(name).is_absolute() ? fs::path(name) : fs::path(src.path).parent_path() / name;
        try {
            read_file(file.string(), stack);
        } catch (const InputError& e) {
            throw InputError(std::string(e.what()) + "\n  (included from " +
                             where(src.path, src.text, at.offset) + "INCLUDE)");
        }
    }

    /// RUNSPEC: DIMENS and the unit system are read; every other keyword there describes
    /// what the YAML deck gives (phases, tables, dimensions of arrays heptane does not use)
    /// and is passed over, named once in the notes. GRID ends the section.
    void read_runspec_token(Source& src, const Token& t, const std::string& keyword) {
        if (keyword == "GRID") {
            runspec_ = false;
            if (!runspec_skipped_.empty()) {
                data_.notes.push_back(src.path +
                                      ": RUNSPEC: not used (the YAML deck says what they "
                                      "describe): " +
                                      runspec_skipped_);
            }
        } else if (keyword == "DIMENS") {
            read_dimensions(src, t, keyword);
        } else if (keyword == "FIELD" || keyword == "METRIC" || keyword == "LAB") {
            data_.units = keyword;
        } else if (keyword == "PVT-M") {
            src.fail(t, "PVT-M units are not supported (FIELD, METRIC or LAB)");
        } else if (ends_grid(keyword)) {
            src.fail(t, keyword + " before the GRID section: the file has no GRID section");
        } else if (keyword == "TITLE" || (is_keyword(t.text) && starts_line(src, t))) {
            runspec_skipped_ += (runspec_skipped_.empty() ? "" : ", ") + keyword;
            if (keyword == "TITLE") skip_line(src);
        }
    }

    /// The token is the first of its line (a keyword, not a word of a record: START's JUN).
    static bool starts_line(const Source& src, const Token& t) {
        std::size_t i = t.offset;
        while (i > 0 && (src.text[i - 1] == ' ' || src.text[i - 1] == '\t')) --i;
        return i == 0 || src.text[i - 1] == '\n' || src.text[i - 1] == '\r';
    }

    /// TITLE's line of free text.
    static void skip_line(Source& src) {
        Token line_token;
        if (!src.tokens.next(line_token)) return;
        const std::size_t line = line_of(src.text, line_token.offset);
        Token peek;
        EclipseTokenizer probe = src.tokens;
        while (probe.next(peek) && line_of(src.text, peek.offset) == line) src.tokens = probe;
    }

    /// DIMENS NX NY NZ / or SPECGRID NX NY NZ NUMRES COORD /: must match the deck's grid.
    void read_dimensions(Source& src, const Token& at, const std::string& keyword) {
        std::vector<double> items;
        Token t;
        std::string coordinates;
        bool closed = false;
        const std::size_t most = keyword == "SPECGRID" ? 5 : 3;
        while (src.tokens.next(t)) {
            if (t.text == "/") {
                closed = true;
                break;
            }
            if (keyword == "SPECGRID" && items.size() == 4) {
                coordinates = std::string(unquoted(t.text));
                items.push_back(0.0);
                continue;
            }
            append_values(src.path, src.text, t, keyword, items, most, true);
        }
        if (!closed) src.fail(at, keyword + ": the file ends before the '/' that closes it");
        if (items.size() < 3 || items.size() > most || std::isnan(items[0]) ||
            std::isnan(items[1]) || std::isnan(items[2])) {
            src.fail(at, keyword + (keyword == "SPECGRID"
                                        ? ": expected NX NY NZ [NUMRES [COORD]], then '/'"
                                        : ": expected NX NY NZ, then '/'"));
        }
        if (keyword == "SPECGRID" && items.size() > 3 && !std::isnan(items[3]) && items[3] != 1.0)
            src.fail(at, "SPECGRID: several reservoirs (NUMRES > 1) are not supported");
        if (coordinates == "T")
            src.fail(at, "SPECGRID: radial (cylindrical) grids are not supported");
        const std::array<double, 3> file = {items[0], items[1], items[2]};
        for (int d = 0; d < 3; ++d) {
            if (file[d] != data_.dims[d]) {
                src.fail(at, keyword + " " + number_text(file[0]) + " " + number_text(file[1]) +
                                 " " + number_text(file[2]) + " does not match grid.dims " +
                                 dims_text());
            }
        }
    }

    EclipseGridData data_;
    Box full_, box_;
    bool runspec_ = false;              ///< inside the RUNSPEC section of a whole .DATA file
    std::string runspec_skipped_;       ///< the RUNSPEC keywords passed over, for the note
    bool ended_ = false;                ///< past the GRID and EDIT sections: nothing more is read
    bool negative_multipliers_ = true;  ///< GRIDOPTS' TRANMULT (not given: allowed)
};

}  // namespace

EclipseGridData read_eclipse_grid(const std::vector<std::string>& paths, std::array<int, 3> dims) {
    if (dims[0] < 1 || dims[1] < 1 || dims[2] < 1)
        throw InputError("the grid dimensions must be positive");
    GridReader reader(dims);
    for (const std::string& path : paths) {
        if (reader.ended()) {
            throw InputError(path +
                             ": follows a file whose GRID section has ended (PROPS, "
                             "SCHEDULE, ...); give the files in deck order");
        }
        std::vector<std::string> stack;
        reader.read_file(path, stack);
    }
    return reader.take();
}

EclipseGridData read_eclipse_grid(const std::string& path, std::array<int, 3> dims) {
    return read_eclipse_grid(std::vector<std::string>{path}, dims);
}

}  // namespace heptane::grid
