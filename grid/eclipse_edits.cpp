// The GRID section's array edits (grid/eclipse_reader.hpp): EQUALS, MULTIPLY, ADD, COPY,
// MINVALUE, MAXVALUE; the region edits EQUALREG, MULTIREG, ADDREG, COPYREG; OPERATE.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/errors.hpp"
#include "core/base/text.hpp"
#include "grid/eclipse_reader.hpp"

namespace heptane::grid::detail {
namespace {

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

/// Why `keyword` cannot take `name`: an array heptane does not read, or one the model
/// computes that this edit cannot change.
std::string not_editable(const std::string& keyword, const std::string& name) {
    if (is_computed(name)) {
        return keyword + ": " + name +
               " is computed by the model; edit it with EQUALS, MULTIPLY, ADD, MINVALUE, "
               "MAXVALUE, EQUALREG, MULTIREG or ADDREG";
    }
    return keyword + ": " + quote_input(name) + " is not an array heptane reads";
}

/// The edit keyword's operation on a computed array (EclipseGridData::ComputedEdit::op).
char computed_op(const std::string& keyword) {
    if (keyword == "MULTIPLY" || keyword == "MULTIREG") return '*';
    if (keyword == "ADD" || keyword == "ADDREG") return '+';
    if (keyword == "MINVALUE") return '>';
    if (keyword == "MAXVALUE") return '<';
    return '=';
}

}  // namespace

bool is_computed(std::string_view k) {
    return k == "PORV" || k == "TRANX" || k == "TRANY" || k == "TRANZ";
}

void GridReader::add_computed_edit(const Source& src, const Token& at, const std::string& keyword,
                                   const std::string& name, char op, std::vector<std::size_t> cells,
                                   std::vector<double> values) {
    if (!edit_) {
        src.fail(at, keyword + ": " + name +
                         " is an EDIT-section array (the model computes it from the GRID "
                         "section); give it after the EDIT keyword");
    }
    for (double v : values) {
        if (!std::isfinite(v) || (op != '+' && v < 0.0)) {
            src.fail(at, keyword + ": the " +
                             (op == '*'   ? "factor"
                              : op == '+' ? "constant"
                              : op == '=' ? "value"
                                          : "bound") +
                             " of " + name + " is " + quote_input(number_text(v)) +
                             "; it must be finite" + (op == '+' ? "" : " and >= 0"));
        }
    }
    EclipseGridData::ComputedEdit e;
    e.array = name;
    e.op = op;
    e.cells = std::move(cells);
    e.values = std::move(values);
    e.where = where(src.path, src.text, at.offset) + keyword;
    std::string& first = name == "PORV" ? porv_edited_at_ : tran_edited_at_;
    if (first.empty()) first = e.where.substr(0, e.where.rfind(": "));
    data_.computed_edits.push_back(std::move(e));
}

/// PORV, TRANX, TRANY, TRANZ given as an array over the box (EDIT section only).
void GridReader::read_computed_array(Source& src, const Token& at, const std::string& keyword) {
    const std::vector<double> values = read_values(src, at, keyword);
    if (values.size() != box_.size()) {
        src.fail(at, keyword + ": " + std::to_string(values.size()) + " values, the box has " +
                         std::to_string(box_.size()) + " cells" +
                         (box_.r == full_.r ? " (the whole grid of grid.dims " + dims_text() + ")"
                                            : std::string(" (BOX)")));
    }
    std::vector<std::size_t> cells;
    std::vector<double> given;
    for_box(box_, [&](std::size_t cell, std::size_t n) {
        if (std::isnan(values[n])) return;  // n*: the cell keeps its computed value
        cells.push_back(cell);
        given.push_back(values[n]);
    });
    if (given.empty()) return;
    add_computed_edit(src, at, keyword, keyword, '=', std::move(cells), std::move(given));
}

/// EQUALS, MULTIPLY, ADD, COPY, MINVALUE, MAXVALUE: records until an empty one.
void GridReader::read_edit(Source& src, const Token& at, const std::string& keyword) {
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
        const bool computed = keyword != "COPY" && is_computed(name);
        if (keyword == "COPY" && !is_array(source_array))
            src.fail(record, not_editable(keyword, source_array));
        if (!is_array(name) && !computed) src.fail(record, not_editable(keyword, name));
        check_multiplier(src, record, name);
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
        if (computed) {
            std::vector<std::size_t> cells;
            for_box(b, [&](std::size_t cell, std::size_t) { cells.push_back(cell); });
            add_computed_edit(src, record, keyword, name, computed_op(keyword), std::move(cells),
                              {items[0]});
            continue;
        }
        apply_edit(src, record, keyword, keyword == "COPY" ? source_array : name, name,
                   values == 1 ? items[0] : 0.0, b);
    }
}

void GridReader::apply_edit(const Source& src, const Token& at, const std::string& keyword,
                            const std::string& from, const std::string& to, double value,
                            const Box& b) {
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

/// EQUALREG (ARRAY value), MULTIREG (ARRAY factor), ADDREG (ARRAY constant), COPYREG
/// (FROM TO): records ending with a region number and optionally the region array (M:
/// MULTNUM, the default; F: FLUXNUM; O: OPERNUM), over the whole grid whatever the box; a
/// region array not given puts every cell in region 1.
void GridReader::read_region_edit(Source& src, const Token& at, const std::string& keyword) {
    each_record(src, at, keyword, [&](const std::vector<Token>& words) {
        const Token& record = words[0];
        const bool copy = keyword == "COPYREG";
        const std::string form =
            keyword + ": a record is " + (copy ? "FROM TO" : "ARRAY value") + " region [M|F|O] /";
        if (words.size() != 3 && words.size() != 4) src.fail(record, form);
        const std::string target(unquoted(words[copy ? 1 : 0].text));
        const std::string source(unquoted(words[0].text));
        const bool computed = !copy && is_computed(target);
        for (const std::string& name : {source, target}) {
            if (!is_array(name) && !computed) src.fail(record, not_editable(keyword, name));
        }
        check_multiplier(src, record, target);
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
            src.fail(words[2], keyword + ": the region number is " + quote_input(words[2].text) +
                                   "; it must be an integer >= 1");
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
            const bool given = regions != data_.arrays.end() && !std::isnan(regions->second[cell]);
            return (given ? regions->second[cell] : 1.0) == number[0];
        };
        if (computed) {
            std::vector<std::size_t> members;
            for (std::size_t c = 0; c < cells(); ++c)
                if (in_region(c)) members.push_back(c);
            add_computed_edit(src, record, keyword, target, computed_op(keyword),
                              std::move(members), {value});
            return;
        }
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
void GridReader::read_operate(Source& src, const Token& at) {
    each_record(src, at, "OPERATE", [&](const std::vector<Token>& words) {
        const Token& record = words[0];
        const std::string form =
            "OPERATE: a record is TARGET I1 I2 J1 J2 K1 K2 OPERATION SOURCE [alpha [beta]] /";
        std::vector<double> box;  // the box items: numbers up to the operation's name
        std::size_t w = 1;
        for (; w < words.size() && box.size() < 6 && !is_keyword(unquoted(words[w].text)); ++w)
            append_values(src.path, src.text, words[w], "OPERATE", box, 6, true);
        if (box.size() != 6 || w + 2 > words.size() || w + 4 < words.size()) src.fail(record, form);
        const std::string target(unquoted(record.text));
        const std::string op(unquoted(words[w].text));
        const std::string source(unquoted(words[w + 1].text));
        const Operation* f = operation(op);
        if (f == nullptr) {
            src.fail(words[w], "OPERATE: the operation is " + quote_input(op) +
                                   "; it must be one of " + operation_names());
        }
        for (const std::string& name : {target, source}) {
            if (!is_array(name)) src.fail(record, not_editable("OPERATE", name));
        }
        check_multiplier(src, record, target);
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
            src.fail(record, "OPERATE: " + op + " reads " + target + ", which is not defined yet");
        }
        const std::vector<double> x = from->second;  // `target` may be inserted below
        std::vector<double>& r = array(target);
        for (int k = b.r[4]; k <= b.r[5]; ++k) {
            for (int j = b.r[2]; j <= b.r[3]; ++j) {
                for (int i = b.r[0]; i <= b.r[1]; ++i) {
                    const std::size_t c = index(i, j, k);
                    const std::string cell = " at cell (" + std::to_string(i + 1) + ", " +
                                             std::to_string(j + 1) + ", " + std::to_string(k + 1) +
                                             ")";
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

/// COPYBOX: ARRAY I1 I2 J1 J2 K1 K2 I1' I2' J1' J2' K1' K2' / records until an empty one.
void GridReader::read_copybox(Source& src, const Token& at) {
    for (;;) {
        Token t;
        if (!src.tokens.next(t))
            src.fail(at, "COPYBOX: the file ends before the '/' that ends its records");
        if (t.text == "/") return;  // the empty record
        const Token record = t;
        const std::string name(unquoted(t.text));
        if (!is_array(name)) src.fail(record, not_editable("COPYBOX", name));
        check_multiplier(src, record, name);
        std::vector<double> items;
        bool closed = false;
        while (!closed && src.tokens.next(t)) {
            closed = t.text == "/";
            if (!closed) append_values(src.path, src.text, t, "COPYBOX", items, 13, true);
        }
        if (!closed) src.fail(record, "COPYBOX: the file ends before the record's '/'");
        const char* form = "COPYBOX: a record is ARRAY I1 I2 J1 J2 K1 K2 I1' I2' J1' J2' K1' K2' /";
        if (items.size() != 12) src.fail(record, form);
        for (double v : items) {
            if (std::isnan(v)) src.fail(record, std::string(form) + " (no item defaulted)");
        }
        const std::vector<double> first(items.begin(), items.begin() + 6);
        const std::vector<double> second(items.begin() + 6, items.end());
        const Box from = box_from(src, record, "COPYBOX", first, 0, full_, true);
        const Box to = box_from(src, record, "COPYBOX", second, 0, full_, true);
        for (int d = 0; d < 3; ++d) {
            if (from.r[2 * d + 1] - from.r[2 * d] != to.r[2 * d + 1] - to.r[2 * d]) {
                src.fail(record, "COPYBOX: the two boxes differ in shape along " +
                                     std::string("IJK").substr(d, 1) + " (" +
                                     std::to_string(from.r[2 * d + 1] - from.r[2 * d] + 1) +
                                     " and " + std::to_string(to.r[2 * d + 1] - to.r[2 * d] + 1) +
                                     " cells)");
            }
        }
        const auto it = data_.arrays.find(name);
        if (it == data_.arrays.end())
            src.fail(record, "COPYBOX: " + name + " is not defined yet (give it before the edit)");
        const std::vector<double> source = it->second;  // the boxes may overlap
        std::vector<std::size_t> cells;
        for_box(from, [&](std::size_t cell, std::size_t) { cells.push_back(cell); });
        std::vector<double>& a = it->second;
        for_box(to, [&](std::size_t cell, std::size_t n) { a[cell] = source[cells[n]]; });
    }
}

}  // namespace heptane::grid::detail
