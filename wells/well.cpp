#include "wells/well.hpp"

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include "core/base/errors.hpp"

namespace heptane::wells {
namespace {

std::string well_key(std::size_t n, const char* field) {
    return "wells[" + std::to_string(n) + "]." + field;
}

bool positive_finite(double v) { return std::isfinite(v) && v > 0.0; }

/// min_bhp belongs to producers, max_bhp to injectors; a BHP target must respect its limit.
void check_limits(const WellSpec& w, std::size_t n) {
    const bool producer = w.type == WellType::producer;
    for (const auto& [value, field, own] : {std::make_tuple(w.min_bhp, "min_bhp", producer),
                                            std::make_tuple(w.max_bhp, "max_bhp", !producer)}) {
        if (!std::isfinite(value) || value < 0.0) {
            throw InputError(well_key(n, field), "must be >= 0 (0: no limit)");
        }
        if (value > 0.0 && !own) {
            throw InputError(well_key(n, field),
                             producer ? "a producer's limit is min_bhp (max_bhp is an injector's)"
                                      : "an injector's limit is max_bhp (min_bhp is a producer's)");
        }
    }
    check_economic_limits(w.min_oil_rate, w.max_water_cut, producer, well_key(n, "min_oil_rate"),
                          well_key(n, "max_water_cut"));
    check_well_tests(w.test_interval, w.test_count, producer, well_key(n, "test_interval"),
                     well_key(n, "test_count"));
    if (w.control != ControlKind::bhp) return;
    if (producer && w.min_bhp > 0.0 && w.target < w.min_bhp) {
        throw InputError(well_key(n, "min_bhp"),
                         "the producer's minimum BHP is above its BHP target (control.value)");
    }
    if (!producer && w.max_bhp > 0.0 && w.target > w.max_bhp) {
        throw InputError(well_key(n, "max_bhp"),
                         "the injector's maximum BHP is below its BHP target (control.value)");
    }
}

}  // namespace

void check_economic_limits(double min_oil_rate, double max_water_cut, bool producer,
                           const std::string& rate_key, const std::string& cut_key) {
    if (!std::isfinite(min_oil_rate) || min_oil_rate < 0.0)
        throw InputError(rate_key, "must be >= 0 (0: no limit)");
    if (!std::isfinite(max_water_cut) || max_water_cut < 0.0 || max_water_cut >= 1.0)
        throw InputError(cut_key, "must be in [0, 1) (0: no limit)");
    if (!producer && (min_oil_rate > 0.0 || max_water_cut > 0.0)) {
        throw InputError(min_oil_rate > 0.0 ? rate_key : cut_key,
                         "economic limits are a producer's (an injector has none)");
    }
}

void check_well_tests(double test_interval, int test_count, bool producer,
                      const std::string& interval_key, const std::string& count_key) {
    if (!std::isfinite(test_interval) || test_interval < 0.0)
        throw InputError(interval_key, "must be >= 0 (0: no tests)");
    if (test_count < 0) throw InputError(count_key, "must be >= 0 (0: no bound)");
    if (!producer && (test_interval > 0.0 || test_count > 0)) {
        throw InputError(test_interval > 0.0 ? interval_key : count_key,
                         "well tests reopen a producer its economic limits shut (an injector "
                         "has none)");
    }
}

void check_voidage(const VoidageOf& v, ControlKind kind, const std::string& key) {
    if (!v.given) return;
    if (kind != ControlKind::reservoir_rate) {
        throw InputError(key, "surface rates to convert are a reservoir_rate control's");
    }
    if (!(std::isfinite(v.oil) && v.oil >= 0.0 && std::isfinite(v.water) && v.water >= 0.0) ||
        v.oil + v.water <= 0.0) {
        throw InputError(key, "the oil and water rates must be >= 0, not both 0");
    }
}

const char* control_kind_name(ControlKind k) {
    switch (k) {
        case ControlKind::rate:
            return "rate";
        case ControlKind::bhp:
            return "bhp";
        case ControlKind::oil_rate:
            return "oil_rate";
        case ControlKind::water_rate:
            return "water_rate";
        case ControlKind::reservoir_rate:
            return "reservoir_rate";
    }
    return "?";
}

void validate_wells(const grid::Grid3D& g, const std::vector<WellSpec>& wells) {
    std::map<std::string, std::size_t> names;
    std::map<std::pair<int, int>, std::size_t> columns;
    for (std::size_t n = 0; n < wells.size(); ++n) {
        const WellSpec& w = wells[n];
        if (w.name.empty()) throw InputError(well_key(n, "name"), "must not be empty");
        if (auto it = names.find(w.name); it != names.end()) {
            throw InputError(well_key(n, "name"), "'" + w.name + "' is already the name of wells[" +
                                                      std::to_string(it->second) + "]");
        }
        names[w.name] = n;
        if (w.i < 0 || w.i >= g.nx) {
            throw InputError(well_key(n, "column"),
                             "i = " + std::to_string(w.i) +
                                 " is outside the grid (nx = " + std::to_string(g.nx) + ")");
        }
        if (w.j < 0 || w.j >= g.ny) {
            throw InputError(well_key(n, "column"),
                             "j = " + std::to_string(w.j) +
                                 " is outside the grid (ny = " + std::to_string(g.ny) + ")");
        }
        if (w.k_first < 0 || w.k_last >= g.nz || w.k_first > w.k_last) {
            throw InputError(
                well_key(n, "perforations"),
                "[" + std::to_string(w.k_first) + ", " + std::to_string(w.k_last) +
                    "] must satisfy 0 <= k_first <= k_last < nz = " + std::to_string(g.nz));
        }
        if (!positive_finite(w.target)) {
            throw InputError(well_key(n, "control.value"),
                             is_rate(w.control)
                                 ? "the rate must be > 0 (its direction follows the well type)"
                                 : "the bottom-hole pressure must be > 0");
        }
        if (w.type == WellType::injector &&
            (w.control == ControlKind::oil_rate || w.control == ControlKind::water_rate)) {
            throw InputError(well_key(n, "control.kind"),
                             "an injector's rate is `rate` (the water it injects) or "
                             "`reservoir_rate` (its reservoir volume); oil_rate and water_rate "
                             "are a producer's");
        }
        check_voidage(w.voidage, w.control, well_key(n, "control.surface"));
        check_limits(w, n);
        if (!positive_finite(w.radius)) throw InputError(well_key(n, "radius"), "must be > 0");
        if (std::isinf(w.bhp_depth)) {  // NaN: the first perforation's centre
            throw InputError(well_key(n, "bhp_depth"), "must be a finite depth");
        }
        if (!std::isfinite(w.skin)) throw InputError(well_key(n, "skin"), "must be finite");
        check_connections(w, well_key(n, "connection_factors"));
        const auto column = std::make_pair(w.i, w.j);
        if (auto it = columns.find(column); it != columns.end()) {
            throw InputError(well_key(n, "column"),
                             "(i, j) = (" + std::to_string(w.i) + ", " + std::to_string(w.j) +
                                 ") is already used by well '" + wells[it->second].name +
                                 "' (wells may not share a column)");
        }
        columns[column] = n;
    }
}

void validate_perforations(const grid::Grid3D& g, const grid::RockFields& rock,
                           const std::vector<WellSpec>& wells) {
    for (std::size_t n = 0; n < wells.size(); ++n) {
        const WellSpec& w = wells[n];
        for (int k = w.k_first; k <= w.k_last; ++k) {
            if (rock.is_active(g.cell(w.i, w.j, k))) continue;
            throw InputError(well_key(n, "perforations"),
                             "well '" + w.name + "' perforates cell " +
                                 grid::cell_text(g, g.cell(w.i, w.j, k)) +
                                 ", which is inactive (ACTNUM 0 or no pore volume)");
        }
    }
}

double peaceman_index(const grid::Grid3D& g, index_t m, double kx, double ky, double radius,
                      double skin, double kh) {
    const bool isotropic = kx <= 0.0 || ky <= 0.0;  // no anisotropy to measure
    if (isotropic && std::isnan(kh)) return 0.0;
    const double ryx = isotropic ? 1.0 : std::sqrt(ky / kx);
    const double rxy = isotropic ? 1.0 : std::sqrt(kx / ky);
    const double dx = g.size_x(m), dy = g.size_y(m);
    const double r_o =
        0.28 * std::sqrt(ryx * dx * dx + rxy * dy * dy) / (std::sqrt(ryx) + std::sqrt(rxy));
    if (r_o <= radius) {
        throw InputError("radius", "r_w = " + std::to_string(radius) +
                                       " m is not smaller than the Peaceman equivalent radius "
                                       "r_o = " +
                                       std::to_string(r_o) + " m of the cell");
    }
    const double denom = std::log(r_o / radius) + skin;
    if (denom <= 0.0) {
        throw InputError("skin",
                         "ln(r_o / r_w) + skin = " + std::to_string(denom) + " must be > 0");
    }
    if (!std::isnan(kh)) return 2.0 * M_PI * kh / denom;
    return 2.0 * M_PI * std::sqrt(kx * ky) * g.size_z(m) / denom;
}

void check_connections(const WellSpec& w, const std::string& key) {
    if (w.connections.empty()) return;
    const std::size_t layers = static_cast<std::size_t>(w.k_last - w.k_first + 1);
    if (w.connections.size() != layers) {
        throw InputError(key, std::to_string(w.connections.size()) +
                                  " connections for the perforated layers " +
                                  std::to_string(w.k_first) + ".." + std::to_string(w.k_last) +
                                  ": give one per layer");
    }
    bool open = false;
    for (std::size_t l = 0; l < layers; ++l) {
        const WellConnection& c = w.connections[l];
        const std::string layer = "layer " + std::to_string(w.k_first + static_cast<int>(l));
        for (const auto& [value, what] : {std::make_pair(c.factor, "the connection factor"),
                                          std::make_pair(c.kh, "the permeability-thickness"),
                                          std::make_pair(c.multiplier, "the multiplier")}) {
            if (!std::isnan(value) && !(std::isfinite(value) && value >= 0.0)) {
                throw InputError(key, layer + ": " + what + " must be >= 0");
            }
        }
        if (!std::isnan(c.radius) && !positive_finite(c.radius)) {
            throw InputError(key, layer + ": the radius must be > 0");
        }
        if (std::isinf(c.skin)) throw InputError(key, layer + ": the skin must be finite");
        open = open || c.connected();
    }
    if (!open) throw InputError(key, "well '" + w.name + "' has no open connection");
}

double connection_index(const grid::Grid3D& g, index_t m, const grid::RockFields& rock,
                        const WellSpec& w, int layer) {
    if (w.connections.empty()) {
        return peaceman_index(g, m, rock.kx[m], rock.ky[m], w.radius, w.skin);
    }
    const WellConnection& c = w.connections[static_cast<std::size_t>(layer)];
    if (!c.open) return 0.0;
    if (!std::isnan(c.factor)) return c.multiplier * c.factor;
    return c.multiplier * peaceman_index(g, m, rock.kx[m], rock.ky[m],
                                         std::isnan(c.radius) ? w.radius : c.radius,
                                         std::isnan(c.skin) ? w.skin : c.skin, c.kh);
}

WellArrays well_layout(const grid::Grid3D& g, const std::vector<WellSpec>& wells, int block_size) {
    WellArrays a;
    const std::size_t nw = wells.size();
    a.first.resize(nw);
    a.cell0.resize(nw);
    a.count.resize(nw);
    a.d.assign(nw, 0.0);
    if (nw > 0) a.well_of_column.assign(static_cast<std::size_t>(g.num_columns()), -1);
    index_t offset = 0;
    for (std::size_t w = 0; w < nw; ++w) {
        a.first[w] = offset;
        a.cell0[w] = g.cell(wells[w].i, wells[w].j, wells[w].k_first);
        a.count[w] = wells[w].k_last - wells[w].k_first + 1;
        a.well_of_column[static_cast<std::size_t>(wells[w].i) * g.ny + wells[w].j] =
            static_cast<std::int32_t>(w);
        offset += a.count[w] * block_size;
    }
    a.w_vals.assign(static_cast<std::size_t>(offset), 0.0);
    a.wt_vals.assign(static_cast<std::size_t>(offset), 0.0);
    return a;
}

}  // namespace heptane::wells
