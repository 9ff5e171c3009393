#include "app/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>

#include "app/hdf5_file.hpp"
#include "app/report.hpp"
#include "core/base/errors.hpp"

namespace heptane::app {
namespace {

/// The groups whose datasets are results (DESIGN section 7).
constexpr const char* kResultGroups[] = {"/solution", "/timesteps", "/wells"};

/// Whether `name` ends with `tail`.
bool ends_with(const std::string& name, const std::string& tail) {
    return name.size() > tail.size() &&
           name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
}

/// The result datasets of `f`: those of kResultGroups but a history well's observed series
/// (/wells/NAME/*_history, design decision 90) and a well's connection factors
/// (/wells/NAME/connection_factors, decision 102), which are the deck's input, not results.
std::vector<std::string> result_datasets(const h5::File& f) {
    std::vector<std::string> all;
    for (const char* g : kResultGroups) {
        for (const std::string& n : f.datasets(g)) {
            if (!ends_with(n, "_history") && !ends_with(n, "/connection_factors")) {
                all.push_back(n);
            }
        }
    }
    return all;
}

std::string shape_text(const std::vector<hsize_t>& dims) {
    std::string s = "(";
    for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + ")";
}

/// Multi-index of flat entry `flat` in C order.
std::string index_text(std::size_t flat, const std::vector<hsize_t>& dims) {
    std::vector<hsize_t> idx(dims.size());
    for (std::size_t d = dims.size(); d-- > 0;) {
        idx[d] = flat % dims[d];
        flat /= dims[d];
    }
    return shape_text(idx);
}

struct Difference {
    double max_abs = 0.0;   ///< max |a - b|
    double max_rel = 0.0;   ///< max |a - b| / |b| over b != 0
    double worst = 0.0;     ///< max |a - b| / (atol + rtol |b|); > 1 fails
    std::size_t where = 0;  ///< entry of `worst`
    std::size_t failing = 0;
    std::size_t nan_a = 0, nan_b = 0;  ///< NaN entries: never a valid value, so each fails
};

/// A cell field's entry `i` lies in an inactive cell: NaN there is the blank written for "no
/// value" (issue 20), valid when both files have it. `inactive` is empty for other datasets.
Difference differences(const h5::Dataset& a, const h5::Dataset& b, const CompareOptions& o,
                       const std::vector<bool>& inactive) {
    Difference d;
    for (std::size_t i = 0; i < a.values.size(); ++i) {
        const double x = a.values[i], y = b.values[i];
        double diff, ratio;
        if (std::isnan(x) && std::isnan(y) && !inactive.empty() && inactive[i]) {
            diff = ratio = 0.0;
        } else if (std::isnan(x) || std::isnan(y)) {
            // Reported by count (issue 19: "max rel 0" hid them), kept out of the maxima.
            d.nan_a += std::isnan(x) ? 1 : 0;
            d.nan_b += std::isnan(y) ? 1 : 0;
            if (d.nan_a + d.nan_b <= (std::isnan(x) && std::isnan(y) ? 2u : 1u)) {
                d.where = i;  // "worst at" the first NaN
                d.worst = INFINITY;
            }
            ++d.failing;
            continue;
        } else if (x == y) {  // also equal infinities
            diff = ratio = 0.0;
        } else {
            diff = std::abs(x - y);
            const double allowed = o.atol + o.rtol * std::abs(y);
            ratio = allowed > 0.0 ? diff / allowed : INFINITY;
            if (y != 0.0) d.max_rel = std::max(d.max_rel, diff / std::abs(y));
        }
        d.max_abs = std::max(d.max_abs, diff);
        if (ratio > 1.0) ++d.failing;
        if (ratio > d.worst) {
            d.worst = ratio;
            d.where = i;
        }
    }
    return d;
}

/// /grid/active as "inactive" flags and its shape; empty when every cell is active or the
/// file has no mask (a matrix deck's, or one written before issue 20: all cells active).
std::vector<bool> inactive_cells(const h5::File& f, std::vector<hsize_t>& dims) {
    if (!f.exists("/grid/active")) return {};
    const h5::Dataset d = f.read("/grid/active");
    std::vector<bool> out(d.values.size());
    bool any = false;
    for (std::size_t i = 0; i < out.size(); ++i) any |= out[i] = d.values[i] == 0.0;
    if (!any) return {};
    dims = d.dims;
    return out;
}

/// /solver@status, or empty when the file has none.
std::string solver_status(const h5::File& f) {
    return f.exists("/solver") ? f.attr_string("/solver", "status") : std::string();
}

}  // namespace

int compare_files(const std::string& path_a, const std::string& path_b, const CompareOptions& o,
                  std::ostream& out) {
    const h5::File a = h5::File::open(path_a);
    const h5::File b = h5::File::open(path_b);
    const auto names_a = result_datasets(a);
    const auto names_b = result_datasets(b);
    const std::set<std::string> set_a(names_a.begin(), names_a.end());
    const std::set<std::string> set_b(names_b.begin(), names_b.end());
    for (const auto& n : names_a) {
        if (!set_b.count(n))
            throw InputError("", n + " exists in " + path_a + " but not in " + path_b);
    }
    for (const auto& n : names_b) {
        if (!set_a.count(n))
            throw InputError("", n + " exists in " + path_b + " but not in " + path_a);
    }
    if (names_a.empty()) throw InputError("", path_a + " has no datasets under /solution");
    // The active cells must be the same (else the files hold different reservoirs); a cell
    // field's NaN in an inactive cell of both is then the blank, not a difference.
    std::vector<hsize_t> cell_dims_a, cell_dims_b;
    const std::vector<bool> inactive = inactive_cells(a, cell_dims_a);
    if (inactive != inactive_cells(b, cell_dims_b) || cell_dims_a != cell_dims_b) {
        throw InputError("", "/grid/active differs between " + path_a + " and " + path_b +
                                 ": the files hold different grids or active cells");
    }

    out << "compare " << path_a << " " << path_b << "  (|a - b| <= " << sci(o.atol, 3) << " + "
        << sci(o.rtol, 3) << " |b|)\n";
    char line[256];
    std::snprintf(line, sizeof line, "  %-32s %10s %11s %11s  %-16s %s\n", "dataset", "entries",
                  "max|a-b|", "max rel", "worst at", "result");
    out << line;
    int differing = 0;
    for (const auto& name : names_a) {
        const h5::Dataset da = a.read(name);
        const h5::Dataset db = b.read(name);
        if (da.dims != db.dims) {
            throw InputError("", name + " has shape " + shape_text(da.dims) + " in " + path_a +
                                     " but " + shape_text(db.dims) + " in " + path_b);
        }
        const bool cell_field = !inactive.empty() && da.dims == cell_dims_a;
        const Difference d = differences(da, db, o, cell_field ? inactive : std::vector<bool>{});
        const bool ok = d.failing == 0;
        differing += ok ? 0 : 1;
        std::string verdict = ok ? "ok" : "DIFFERS (" + std::to_string(d.failing) + " entries";
        if (d.nan_a + d.nan_b > 0) {
            verdict +=
                "; NaN: " + std::to_string(d.nan_a) + " in a, " + std::to_string(d.nan_b) + " in b";
        }
        if (!ok) verdict += ")";
        std::snprintf(line, sizeof line, "  %-32s %10zu %11s %11s  %-16s %s\n", name.c_str(),
                      da.values.size(), sci(d.max_abs, 3).c_str(), sci(d.max_rel, 3).c_str(),
                      da.values.empty() ? "-" : index_text(d.where, da.dims).c_str(),
                      verdict.c_str());
        out << line;
    }
    const std::string status_a = solver_status(a), status_b = solver_status(b);
    const bool status_ok = status_a == status_b;
    out << "  solver status: " << (status_a.empty() ? "-" : status_a) << " / "
        << (status_b.empty() ? "-" : status_b) << (status_ok ? "  ok" : "  DIFFERS") << '\n';
    differing += status_ok ? 0 : 1;
    out << (differing == 0 ? "files agree\n" : std::to_string(differing) + " item(s) differ\n");
    return differing == 0 ? 0 : 1;
}

}  // namespace heptane::app
