#include "grid/eclipse_model.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/corner_point.hpp"
#include "grid/eclipse_edit_section.hpp"
#include "grid/eclipse_units.hpp"

namespace heptane::grid {
namespace {

using detail::length_unit;
using detail::pore_volume_unit;
using detail::transmissibility_unit;

const std::vector<double>* find(const EclipseGridData& d, const char* name) {
    const auto it = d.arrays.find(name);
    return it == d.arrays.end() ? nullptr : &it->second;
}

/// The files' names for messages: "a.DATA" or "a.inc, b.inc".
std::string files_text(const EclipseGridSpec& spec) {
    std::string s;
    for (const std::string& f : spec.files) s += (s.empty() ? "" : ", ") + f;
    return s;
}

/// eclipse_to_cells for the files of `spec` (errors at its key, naming its files).
template <class Check, class Rule>
std::vector<double> to_cells(const Grid3D& g, const EclipseGridSpec& spec, const char* name,
                             const std::vector<double>& values, double scale, Check check,
                             Rule rule, const char* requirement) {
    return eclipse_to_cells(g, spec.key, files_text(spec), name, values, scale, check, rule,
                            requirement);
}

bool all_equal(const std::vector<double>& v) {
    for (double x : v)
        if (x != v[0]) return false;
    return true;
}

/// MULTREGT's factor on a connection, as OPM reads the records: a record of two regions (or
/// of each pair a defaulted region number makes) replaces an earlier record of the same two
/// regions, whatever their region arrays; a record of one region with itself multiplies every
/// connection of that region's cells (once where both cells are in it), on top of the pair's.
/// A record applies to the grid's neighbour connections unless its NNC type is NNC, to the
/// faults' non-neighbour connections (design decision 63) unless it is NONNC.
class RegionFactors {
  public:
    using Record = EclipseGridData::RegionMultiplier;

    RegionFactors(const Grid3D& g, const EclipseGridSpec& spec, const EclipseGridData& d)
        : records_(d.region_multipliers) {
        if (records_.empty()) return;
        // Each region array a record names, by cell (a cell it does not set is in region 1).
        std::map<std::string, std::vector<int>> numbers;  // the region numbers each array has
        const auto every = [](index_t) { return true; };
        const auto integer = [](double v) {
            return std::isnan(v) || (v >= 1.0 && v == std::floor(v) && v <= INT_MAX);
        };
        for (const Record& r : records_) {
            if (region_.count(r.regions) != 0) continue;
            const auto* values = find(d, r.regions.c_str());
            if (values == nullptr) {
                throw InputError(spec.key, r.where + "MULTREGT: " + r.regions +
                                               " is not defined (its records' regions are its "
                                               "numbers)");
            }
            const std::vector<double> cells = to_cells(g, spec, r.regions.c_str(), *values, 1.0,
                                                       every, integer, "an integer >= 1");
            std::vector<int>& v = region_[r.regions];
            for (double x : cells) v.push_back(std::isnan(x) ? 1 : static_cast<int>(x));
            std::vector<int> unique = v;
            std::sort(unique.begin(), unique.end());
            unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
            numbers[r.regions] = std::move(unique);
        }
        // The records in force: the last of each pair of regions, the last of each region alone.
        for (std::size_t q = 0; q < records_.size(); ++q) {
            const Record& r = records_[q];
            const std::vector<int>& all = numbers.at(r.regions);
            const std::vector<int> from = r.from != 0 ? std::vector<int>{r.from} : all;
            const std::vector<int> to = r.to != 0 ? std::vector<int>{r.to} : all;
            if (from.size() == 1 && to.size() == 1 && from[0] == to[0]) {
                alone_[from[0]] = q;
                continue;
            }
            for (int a : from)
                for (int b : to)
                    if (a != b) pairs_[{std::min(a, b), std::max(a, b)}] = q;
        }
    }

    bool empty() const { return records_.empty(); }

    /// The factor on the connection of cells m and p along `axis` (0 = x; -1: an NNC record's
    /// connection, which every direction takes), a non-neighbour connection with `nnc`.
    double operator()(index_t m, index_t p, int axis, bool nnc) const {
        double f = 1.0;
        for (const auto& [name, r] : region_) {
            const int rm = r[static_cast<std::size_t>(m)], rp = r[static_cast<std::size_t>(p)];
            const int lo = std::min(rm, rp), hi = std::max(rm, rp);
            if (lo != hi) f *= factor(pairs_, std::make_pair(lo, hi), name, axis, nnc);
            f *= factor(alone_, lo, name, axis, nnc);
            if (lo != hi) f *= factor(alone_, hi, name, axis, nnc);
        }
        return f;
    }

  private:
    /// The factor of record q (found in `map` for key) on a connection along `axis` whose
    /// cells are in regions of array `name`.
    template <class Map, class Key>
    double factor(const Map& map, const Key& key, const std::string& name, int axis,
                  bool nnc) const {
        const auto it = map.find(key);
        if (it == map.end()) return 1.0;
        const Record& r = records_[it->second];
        const bool applies = r.regions == name && (nnc ? r.nnc : r.adjacent) &&
                             (axis < 0 || ((r.directions >> axis) & 1) != 0);
        return applies ? r.multiplier : 1.0;
    }

    const std::vector<Record>& records_;
    std::map<std::string, std::vector<int>> region_;
    std::map<std::pair<int, int>, std::size_t> pairs_;
    std::map<int, std::size_t> alone_;
};

/// MULTREGT's multipliers of each cell's +i, +j, +k face (empty: none).
std::array<std::vector<double>, 3> region_multipliers(const Grid3D& g,
                                                      const RegionFactors& regions) {
    std::array<std::vector<double>, 3> out;
    if (regions.empty()) return out;
    const int size[3] = {g.nx, g.ny, g.nz};
    const auto n = static_cast<std::size_t>(g.num_cells());
    for (index_t m = 0; m < g.num_cells(); ++m) {
        const std::array<int, 3> ijk = g.ijk(m);
        for (int a = 0; a < 3; ++a) {
            if (ijk[a] + 1 >= size[a]) continue;  // the grid's edge: no connection
            std::array<int, 3> next = ijk;
            ++next[a];
            const double f = regions(m, g.cell(next[0], next[1], next[2]), a, false);
            if (f == 1.0) continue;
            if (out[a].empty()) out[a].assign(n, 1.0);
            out[a][static_cast<std::size_t>(m)] *= f;
        }
    }
    return out;
}

/// What a pinch-out connection's multiplier is made of (design decision 69), each empty where
/// nothing multiplies (1): each cell's MULTZ, MULTZ- and MULTFLT on its +k face, and each +k
/// face's multiplier without MULTREGT (rock.multz before the regions).
struct VerticalMultipliers {
    std::vector<double> own, minus, fault, face;
};

/// The transmissibility multipliers of each cell's +i, +j, +k face (rock.multx, multy,
/// multz; left empty where nothing multiplies): MULTX/Y/Z on the cell's own face, MULTX-/Y-/Z-
/// of the next cell along the axis on the face they share, each MULTFLT record on its
/// faults' faces (a face on the grid's edge has no flow to multiply) and MULTREGT's records.
/// `vertical` (non-null with PINCH) receives the parts of the +k faces' multipliers.
void apply_face_multipliers(const Grid3D& g, const EclipseGridSpec& spec, const EclipseGridData& d,
                            RockFields& rock, VerticalMultipliers* vertical) {
    const auto n = static_cast<std::size_t>(g.num_cells());
    const auto every = [](index_t) { return true; };
    const auto ok = [](double v) { return std::isnan(v) || (std::isfinite(v) && v >= 0.0); };
    std::vector<double>* mult[3] = {&rock.multx, &rock.multy, &rock.multz};
    const char* plus_name[3] = {"MULTX", "MULTY", "MULTZ"};
    const char* minus_name[3] = {"MULTX-", "MULTY-", "MULTZ-"};
    const int size[3] = {g.nx, g.ny, g.nz};
    const auto face_of = [&](int a) -> std::vector<double>& {  // created at 1 on first use
        if (mult[a]->empty()) mult[a]->assign(n, 1.0);
        return *mult[a];
    };
    // The cell whose + face along a is the - face of cell (i, j, k) (none at the edge: -1).
    const auto below = [&](std::array<int, 3> ijk, int a) -> index_t {
        if (ijk[a] == 0) return -1;
        --ijk[a];
        return g.cell(ijk[0], ijk[1], ijk[2]);
    };
    // Each fault connection's multiplier needs its own cells' MULTX/Y, MULTX-/Y- and MULTFLT
    // (decision 63): kept aside below where the grid has connections (empty: 1).
    const bool connections = g.geometry != nullptr && !g.geometry->nnc.empty();
    // The cells' own multipliers are kept along x and y for the faults' connections, along z
    // for PINCH's.
    const auto keep = [&](int a) { return a < 2 ? connections : vertical != nullptr; };
    std::array<std::vector<double>, 3> own, minus_own, faults;
    for (int a = 0; a < 3; ++a) {
        if (const auto* values = find(d, plus_name[a])) {
            *mult[a] = to_cells(g, spec, plus_name[a], *values, 1.0, every, ok, "finite and >= 0");
            for (double& v : *mult[a]) v = std::isnan(v) ? 1.0 : v;  // not given: 1
            if (keep(a)) own[a] = *mult[a];
        }
        if (const auto* values = find(d, minus_name[a])) {
            std::vector<double> minus =
                to_cells(g, spec, minus_name[a], *values, 1.0, every, ok, "finite and >= 0");
            std::vector<double>& face = face_of(a);
            for (index_t m = 0; m < g.num_cells(); ++m) {
                const double v = minus[static_cast<std::size_t>(m)];
                const index_t b = below(g.ijk(m), a);
                if (b >= 0 && !std::isnan(v)) face[static_cast<std::size_t>(b)] *= v;
            }
            if (keep(a)) {
                for (double& v : minus) v = std::isnan(v) ? 1.0 : v;
                minus_own[a] = std::move(minus);
            }
        }
    }
    for (const auto& [f, value] : d.fault_multipliers) {
        std::vector<double>& face = face_of(f.axis);
        const bool own_face = keep(f.axis);  // the faces a connection crosses
        if (own_face && faults[f.axis].empty()) faults[f.axis].assign(n, 1.0);
        for (int k = f.box[4]; k <= f.box[5]; ++k) {
            for (int j = f.box[2]; j <= f.box[3]; ++j) {
                for (int i = f.box[0]; i <= f.box[1]; ++i) {
                    const std::array<int, 3> ijk{i, j, k};
                    const index_t m = g.cell(i, j, k);
                    const index_t owner =
                        f.side > 0 ? (ijk[f.axis] + 1 < size[f.axis] ? m : -1) : below(ijk, f.axis);
                    if (owner < 0) continue;
                    face[static_cast<std::size_t>(owner)] *= value;
                    if (own_face) faults[f.axis][static_cast<std::size_t>(owner)] *= value;
                }
            }
        }
    }
    if (vertical != nullptr) *vertical = {own[2], minus_own[2], faults[2], rock.multz};
    const RegionFactors regions(g, spec, d);
    const std::array<std::vector<double>, 3> regional = region_multipliers(g, regions);
    for (int a = 0; a < 3; ++a) {
        if (regional[a].empty()) continue;
        std::vector<double>& face = face_of(a);
        for (std::size_t m = 0; m < n; ++m) face[m] *= regional[a][m];
    }
    // Each fault connection's own: the + face's MULTX/Y and MULTFLT of its - side cell, the
    // - face's MULTX-/Y- of its + side cell, MULTREGT of its two cells' regions.
    if (!connections) return;
    const auto value = [](const std::vector<double>& v, index_t m) {
        return v.empty() ? 1.0 : v[static_cast<std::size_t>(m)];
    };
    rock.nnc_mult.clear();
    for (const CellConnection& c : g.geometry->nnc) {
        rock.nnc_mult.push_back(value(own[c.axis], c.a) * value(minus_own[c.axis], c.b) *
                                value(faults[c.axis], c.a) * regions(c.a, c.b, c.axis, true));
    }
}

/// PINCH's pinch-out connections (design decision 69; OPM Flow's rules). In each column a run
/// of bypassed cells joins the active cell right above it (a) to the active cell right below
/// it (b); a cell is bypassed when it is inactive for its pore volume (none, or less than
/// MINPV), or ACTNUM 0 and at most item 1 thick. With NOGAP the run's cells together are at
/// most item 1 thick (the Eclipse outcomes of opm-tests' pinch cases; OPM Flow tests each
/// cell). No connection where more void (space between a cell's bottom and the next one's
/// top, the least over the pillars) than item 3 lies between a and b. T = t_a t_b / (t_a +
/// t_b), t = PERMZ half: a's through its bottom face, b's through the same face (the
/// connection's face is a's bottom face, as OPM builds it), times MULTZ of a (and MULTFLT of
/// its +k face) and MULTZ- of b (item 5 TOP) or the least +k face multiplier from a down to b
/// (item 5 ALL). With item 4 ALL, T is the +k faces' transmissibilities from a down to b in
/// series instead, each with its own multipliers and the bypassed cells' PERMZ (0 where not
/// given). Then times MULTREGT of a's and b's regions (its records along z that take
/// non-neighbour connections). SI; a < b; only T > 0.
std::vector<NncTransmissibility> pinch_connections(
    const Grid3D& g, const EclipseGridData& d, double unit, const std::vector<std::uint8_t>& actnum,
    const std::vector<std::uint8_t>& active, const std::vector<double>& kz,
    const VerticalMultipliers& mult, const RegionFactors& regions) {
    const EclipseGridData::Pinch& p = d.pinch;
    const double threshold = p.threshold * unit, max_gap = p.max_gap * unit;
    const CellGeometry* geo =
        g.geometry != nullptr && g.geometry->corner_point() ? g.geometry.get() : nullptr;
    const auto value = [](const std::vector<double>& v, index_t m) {
        return v.empty() ? 1.0 : v[static_cast<std::size_t>(m)];
    };
    const auto perm = [&](index_t m) {
        const double k = kz[static_cast<std::size_t>(m)];
        return std::isnan(k) ? 0.0 : k;
    };
    const auto bypassed = [&](index_t m) {
        if (active[static_cast<std::size_t>(m)]) return false;
        return actnum[static_cast<std::size_t>(m)] != 0 || g.size_z(m) <= threshold;
    };
    // PERMZ times the geometric half transmissibility through cell m's bottom (side 1) or top
    // (side 0); a cell of no thickness adds no resistance (infinite), whatever its PERMZ.
    const auto half_t = [&](index_t m, int side) {
        if (!(g.size_z(m) > 0.0)) return std::numeric_limits<double>::infinity();
        if (perm(m) == 0.0) return 0.0;
        if (geo != nullptr) return perm(m) * geo->half[6 * static_cast<std::size_t>(m) + 4 + side];
        return perm(m) * (2.0 * g.size_x(m) * g.size_y(m) / g.size_z(m));
    };
    // The void between cell m's bottom and the top of the cell below it.
    const auto void_below = [&](index_t m) {
        if (geo == nullptr) {
            return std::max(0.0, (g.centre_depth(m + 1) - 0.5 * g.size_z(m + 1)) -
                                     (g.centre_depth(m) + 0.5 * g.size_z(m)));
        }
        double least = 0.0;
        for (int r = 0; r < 4; ++r) {
            const double top = geo->corners[24 * static_cast<std::size_t>(m + 1) + 3 * r + 2];
            const double bottom = geo->corners[24 * static_cast<std::size_t>(m) + 3 * (r + 4) + 2];
            least = r == 0 ? top - bottom : std::min(least, top - bottom);
        }
        return std::max(0.0, least);
    };
    const auto in_series = [](double ta, double tb) {
        if (std::isinf(ta)) return tb;
        if (std::isinf(tb)) return ta;
        const double sum = ta + tb;
        return sum > 0.0 ? ta * tb / sum : 0.0;
    };
    std::vector<NncTransmissibility> out;
    for (index_t col = 0; col < g.num_columns(); ++col) {
        const index_t base = col * g.nz;
        for (int k = 0; k + 2 < g.nz; ++k) {
            const index_t a = base + k;
            if (!active[static_cast<std::size_t>(a)] || !bypassed(a + 1)) continue;
            index_t b = a + 1;
            while (b < base + g.nz && bypassed(b)) ++b;
            k = static_cast<int>(b - base) - 1;  // the loop goes on from b
            if (b == base + g.nz || !active[static_cast<std::size_t>(b)]) continue;
            if (!p.gap) {  // NOGAP: the bypassed cells together at most item 1 thick
                double thickness = 0.0;
                for (index_t c = a + 1; c < b; ++c) thickness += g.size_z(c);
                if (thickness > threshold) continue;
            }
            double gap = 0.0;
            for (index_t c = a; c < b; ++c) gap += void_below(c);
            if (gap > max_gap) continue;
            double t = 0.0;
            if (p.all_cells) {  // the faces from a down to b in series
                double resistance = 0.0;
                for (index_t c = a; c < b && resistance >= 0.0; ++c) {
                    const double face =
                        in_series(half_t(c, 1), half_t(c + 1, 0)) * value(mult.face, c);
                    resistance = face > 0.0 ? resistance + 1.0 / face : -1.0;
                }
                t = resistance > 0.0 ? 1.0 / resistance : 0.0;
            } else {
                const double half_b =
                    geo != nullptr
                        ? half_through_bottom(*geo, a, b)
                        : g.size_x(a) * g.size_y(a) /
                              (g.centre_depth(b) - g.centre_depth(a) - 0.5 * g.size_z(a));
                double m = value(mult.own, a) * value(mult.fault, a) * value(mult.minus, b);
                if (p.all_multz) {
                    m = value(mult.face, a);
                    for (index_t c = a + 1; c < b; ++c) m = std::min(m, value(mult.face, c));
                }
                t = in_series(half_t(a, 1), perm(b) * half_b) * m;
            }
            t *= regions(a, b, 2, true);
            if (t > 0.0) out.push_back({a, b, t});
        }
    }
    return out;
}

/// NNC's connections into rock.nnc_given (SI; MULTREGT of their cells' regions applied, its
/// records of every direction), then `pinched` (PINCH's), and EDITNNC's multipliers on them
/// and on the faults' connections (rock.nnc_mult); an EDITNNC record of two active cells with
/// none is an error (design decision 63).
void apply_cell_pairs(const Grid3D& g, const EclipseGridSpec& spec, const EclipseGridData& d,
                      const std::vector<std::uint8_t>& active,
                      const std::vector<NncTransmissibility>& pinched, RockFields& rock) {
    const double unit = transmissibility_unit(spec, d);
    const auto cell = [&](const std::array<int, 3>& c) { return g.cell(c[0], c[1], c[2]); };
    const RegionFactors regions(g, spec, d);
    rock.nnc_given.clear();
    for (const EclipseGridData::CellPair& p : d.nnc) {
        const index_t a = std::min(cell(p.a), cell(p.b)), b = std::max(cell(p.a), cell(p.b));
        rock.nnc_given.push_back({a, b, p.value * unit * regions(a, b, -1, true)});
    }
    rock.nnc_given.insert(rock.nnc_given.end(), pinched.begin(), pinched.end());
    const std::vector<CellConnection>* faults = g.geometry ? &g.geometry->nnc : nullptr;
    for (const EclipseGridData::CellPair& e : d.editnnc) {
        const index_t a = std::min(cell(e.a), cell(e.b)), b = std::max(cell(e.a), cell(e.b));
        bool found = false;
        for (std::size_t q = 0; faults != nullptr && q < faults->size(); ++q) {
            if ((*faults)[q].a != a || (*faults)[q].b != b) continue;
            if (rock.nnc_mult.empty()) rock.nnc_mult.assign(faults->size(), 1.0);
            rock.nnc_mult[q] *= e.value;
            found = true;
        }
        for (NncTransmissibility& c : rock.nnc_given) {
            if (c.a != a || c.b != b) continue;
            c.t *= e.value;
            found = true;
        }
        if (!found && active[static_cast<std::size_t>(a)] && active[static_cast<std::size_t>(b)]) {
            throw InputError(spec.key, e.where + "EDITNNC: the cells " + cell_text(g, a) + " and " +
                                           cell_text(g, b) +
                                           " have no non-neighbour connection to multiply "
                                           "(no fault's throw, NNC record or PINCH joins "
                                           "them)");
        }
    }
}

/// The files' corner-point geometry (COORD and ZCORN) as the grid's cells.
void apply_corner_point(Grid3D& grid, const EclipseGridSpec& spec, const EclipseGridData& d) {
    if (d.coord.empty() || d.zcorn.empty()) {
        throw InputError(spec.key,
                         files_text(spec) + ": " +
                             (d.coord.empty() ? "ZCORN needs COORD" : "COORD needs ZCORN") +
                             " (corner-point geometry takes both)");
    }
    for (const char* name : {"DX", "DY", "DZ", "TOPS"}) {
        if (find(d, name) != nullptr) {
            throw InputError(spec.key, files_text(spec) + ": " + name +
                                           " and COORD / ZCORN both give the cells' geometry: "
                                           "keep one of them");
        }
    }
    if (spec.has_cell_size) {
        throw InputError("grid.cell_size", "the files of " + spec.key +
                                               " give COORD and ZCORN: remove grid.cell_size");
    }
    if (spec.has_depth) {
        throw InputError("grid.depth",
                         "the files of " + spec.key + " give COORD and ZCORN: remove grid.depth");
    }
    CornerPointInput in;
    in.nx = grid.nx, in.ny = grid.ny, in.nz = grid.nz;
    in.coord = &d.coord, in.zcorn = &d.zcorn;
    in.unit = length_unit(spec, d);
    in.active = find(d, "ACTNUM");
    if (d.pinch.given) in.max_void = d.pinch.max_gap * in.unit;  // PINCH's item 3
    in.coord_where = d.coord_where, in.zcorn_where = d.zcorn_where;
    in.key = spec.key;
    auto geometry = std::make_shared<CellGeometry>(corner_point_cells(in));
    geometry->max_void = in.max_void;
    double top = geometry->corners[2];
    for (std::size_t c = 2; c < geometry->corners.size(); c += 3)
        top = std::min(top, geometry->corners[c]);
    grid.top_depth = top;
    grid.geometry = std::move(geometry);
}

}  // namespace

EclipseGridData read_grid_files(Grid3D& grid, const EclipseGridSpec& spec) {
    EclipseGridData d;
    try {
        d = read_eclipse_grid(spec.files, {grid.nx, grid.ny, grid.nz});
    } catch (const InputError& e) {
        throw InputError(spec.key, e.detail());
    }
    if (!d.gridunit.empty()) {  // GRIDUNIT must say the unit the lengths are read in
        const double unit = length_unit(spec, d);
        const double said = d.gridunit == "FEET" ? units::kFoot : d.gridunit == "CM" ? 0.01 : 1.0;
        if (said != unit) {
            throw InputError(spec.key,
                             d.gridunit_where + "GRIDUNIT: " + d.gridunit +
                                 ", but the files' lengths are read in " +
                                 (unit == units::kFoot ? "ft"
                                  : unit == 0.01       ? "cm"
                                  : unit == 1.0        ? "m"
                                                       : "another unit") +
                                 " (RUNSPEC FIELD, METRIC or LAB, else the deck's units)");
        }
    }
    // NEWTRAN (transmissibilities from corner-point faces) is heptane's rule for COORD and
    // ZCORN cells, OLDTRAN (from the cells' centres and sizes) its rule for box cells.
    const bool corner_point = !d.coord.empty() || !d.zcorn.empty();
    if (d.transmissibility_rule == (corner_point ? "OLDTRAN" : "NEWTRAN")) {
        throw InputError(
            spec.key,
            d.transmissibility_rule_where + d.transmissibility_rule +
                (corner_point ? ": heptane computes the transmissibilities of COORD and "
                                "ZCORN cells from their faces (NEWTRAN's rule), not from "
                                "their centres and sizes; remove OLDTRAN"
                              : ": heptane computes the transmissibilities of cells given "
                                "by their sizes from those sizes (OLDTRAN's rule), not "
                                "from corner-point faces; remove NEWTRAN or give the cells "
                                "as COORD and ZCORN"));
    }
    if (corner_point) {
        apply_corner_point(grid, spec, d);
        return d;
    }
    const int sizes = (find(d, "DX") ? 1 : 0) + (find(d, "DY") ? 1 : 0) + (find(d, "DZ") ? 1 : 0);
    if (sizes != 0 && sizes != 3) {
        throw InputError(spec.key, files_text(spec) +
                                       ": give all of DX, DY and DZ or none (none: the cells "
                                       "have grid.cell_size)");
    }
    if (sizes == 3 && spec.has_cell_size) {
        throw InputError("grid.cell_size",
                         "the files of " + spec.key + " give DX, DY and DZ: remove grid.cell_size");
    }
    const bool tops = find(d, "TOPS") != nullptr;
    if (tops && spec.has_depth) {
        throw InputError("grid.depth",
                         "the files of " + spec.key + " give TOPS: remove grid.depth");
    }
    if (sizes == 0 && !tops) {  // the deck's grid.cell_size (and grid.depth)
        if (!spec.has_cell_size) {
            throw InputError("grid.cell_size",
                             "is required: the files of " + spec.key +
                                 " give no cell geometry (DX, DY, DZ and TOPS, or COORD and "
                                 "ZCORN)");
        }
        return d;
    }
    if (sizes == 0) {
        throw InputError(spec.key, files_text(spec) +
                                       ": TOPS needs DX, DY and DZ in the files (per-cell "
                                       "depths come with per-cell sizes)");
    }
    if (!spec.has_depth && !tops) {
        throw InputError(
            spec.key, files_text(spec) + ": DX, DY and DZ need TOPS in the files (or grid.depth)");
    }
    const double unit = length_unit(spec, d);
    const auto every = [](index_t) { return true; };
    const auto size_ok = [](double v) { return std::isfinite(v) && v >= 0.0; };
    auto geometry = std::make_shared<CellGeometry>();
    geometry->dx = to_cells(grid, spec, "DX", *find(d, "DX"), unit, every, size_ok, "finite, >= 0");
    geometry->dy = to_cells(grid, spec, "DY", *find(d, "DY"), unit, every, size_ok, "finite, >= 0");
    geometry->dz = to_cells(grid, spec, "DZ", *find(d, "DZ"), unit, every, size_ok, "finite, >= 0");
    // Tops: given, or the cell above's top + its DZ (TOPS of the top layer is required).
    const auto top_layer = [&](index_t m) { return m % grid.nz == 0; };
    const auto finite = [](double v) { return std::isfinite(v); };
    std::vector<double> top;
    if (tops) {
        top = to_cells(grid, spec, "TOPS", *find(d, "TOPS"), unit, top_layer, finite, "finite");
    } else {
        top.assign(static_cast<std::size_t>(grid.num_cells()), NAN);
        for (index_t m = 0; m < grid.num_cells(); m += grid.nz) top[m] = grid.top_depth;
    }
    geometry->depth.resize(top.size());
    for (index_t m = 0; m < grid.num_cells(); ++m) {
        if (!top_layer(m) && std::isnan(top[m])) top[m] = top[m - 1] + geometry->dz[m - 1];
        geometry->depth[m] = top[m] + 0.5 * geometry->dz[m];
    }
    // One size and layer tops that stack: the uniform grid, bit for bit.
    bool uniform = all_equal(geometry->dx) && all_equal(geometry->dy) && all_equal(geometry->dz);
    for (index_t m = 0; uniform && m < grid.num_cells(); ++m) {
        uniform = top[m] == top[0] + static_cast<double>(m % grid.nz) * geometry->dz[0];
    }
    if (uniform && geometry->dx[0] > 0.0 && geometry->dy[0] > 0.0 && geometry->dz[0] > 0.0) {
        grid.dx = geometry->dx[0];
        grid.dy = geometry->dy[0];
        grid.dz = geometry->dz[0];
        grid.top_depth = top[0];
        grid.geometry = nullptr;
        return d;
    }
    if (d.pinch.given) geometry->max_void = d.pinch.max_gap * unit;  // PINCH's item 3
    grid.geometry = std::move(geometry);
    return d;
}

void apply_eclipse_rock(const Grid3D& g, const EclipseGridSpec& spec, const EclipseGridData& d,
                        bool permeability_given, bool porosity_given, RockFields& rock) {
    const auto n = static_cast<std::size_t>(g.num_cells());
    const auto every = [](index_t) { return true; };
    // ACTNUM first: the other arrays need values in active cells only.
    std::vector<std::uint8_t> active(n, 1);
    if (const auto* actnum = find(d, "ACTNUM")) {
        // Eclipse's default is 1: cells no keyword set (SPE1's EQUALS ACTNUM 0 in boxes) are
        // active.
        const auto flag = [](double v) { return std::isnan(v) || v == 0.0 || v == 1.0; };
        const auto a = to_cells(g, spec, "ACTNUM", *actnum, 1.0, every, flag, "0 or 1");
        for (std::size_t m = 0; m < n; ++m) active[m] = a[m] != 0.0 ? 1 : 0;
    }
    const auto is_active = [&](index_t m) { return active[m] != 0; };
    const auto fraction = [](double v) { return std::isfinite(v) && v >= 0.0 && v <= 1.0; };
    std::vector<double> ntg(n, 1.0);
    if (const auto* a = find(d, "NTG")) {  // default 1 where no keyword set it
        const auto ok = [&](double v) { return std::isnan(v) || fraction(v); };
        ntg = to_cells(g, spec, "NTG", *a, 1.0, is_active, ok, "in [0, 1]");
        for (double& v : ntg) v = std::isnan(v) ? 1.0 : v;
    }

    const bool file_poro = find(d, "PORO") != nullptr;
    if (file_poro && porosity_given) {
        throw InputError("rock.porosity",
                         "the files of " + spec.key + " give PORO: remove rock.porosity");
    }
    if (file_poro) {
        rock.porosity =
            to_cells(g, spec, "PORO", *find(d, "PORO"), 1.0, is_active, fraction, "in [0, 1]");
    }
    const int perms =
        (find(d, "PERMX") ? 1 : 0) + (find(d, "PERMY") ? 1 : 0) + (find(d, "PERMZ") ? 1 : 0);
    if (perms > 0 && permeability_given) {
        throw InputError("rock.permeability", "the files of " + spec.key +
                                                  " give permeability: remove rock.permeability");
    }
    if (perms != 0 && perms != 3) {
        throw InputError(spec.key, files_text(spec) +
                                       ": give all of PERMX, PERMY and PERMZ or none (COPY "
                                       "PERMX PERMY / gives one from another)");
    }
    if (perms == 3) {
        const auto ok = [](double v) { return std::isfinite(v) && v >= 0.0; };
        const char* rule = "finite and >= 0 mD";
        const double md = units::kMilliDarcy;
        rock.kx = to_cells(g, spec, "PERMX", *find(d, "PERMX"), md, is_active, ok, rule);
        rock.ky = to_cells(g, spec, "PERMY", *find(d, "PERMY"), md, is_active, ok, rule);
        rock.kz = to_cells(g, spec, "PERMZ", *find(d, "PERMZ"), md, is_active, ok, rule);
    }
    const bool pinch = d.pinch.given;
    VerticalMultipliers vertical;
    apply_face_multipliers(g, spec, d, rock, pinch ? &vertical : nullptr);
    if (rock.kx.size() != n || rock.ky.size() != n || rock.kz.size() != n ||
        rock.porosity.size() != n) {
        throw Error("apply_eclipse_rock: every field comes from the files or the deck");
    }
    std::vector<double> multpv(n, 1.0);
    if (const auto* a = find(d, "MULTPV")) {  // default 1 where no keyword set it
        const auto ok = [](double v) { return std::isnan(v) || (std::isfinite(v) && v >= 0.0); };
        multpv = to_cells(g, spec, "MULTPV", *a, 1.0, is_active, ok, "finite and >= 0");
        for (double& v : multpv) v = std::isnan(v) ? 1.0 : v;
    }
    // NTG scales pore volume and horizontal flow, MULTPV pore volume alone (porosity then
    // holds the pore volume per bulk volume); a cell without pore volume, or with less than
    // MINPV (or its MINPVV), is inactive.
    // MINPVV: a least pore volume for each cell (0 where not given), instead of MINPV's one.
    std::vector<double> least(n, std::isnan(d.minpv) ? 0.0 : d.minpv);
    if (const auto* a = find(d, "MINPVV")) {
        if (!std::isnan(d.minpv)) {
            throw InputError(spec.key, files_text(spec) +
                                           ": gives both MINPV and MINPVV; give one (simulators "
                                           "differ on which applies where both are given)");
        }
        const auto ok = [](double v) { return std::isnan(v) || (std::isfinite(v) && v >= 0.0); };
        least = to_cells(g, spec, "MINPVV", *a, 1.0, is_active, ok, "finite and >= 0");
        for (double& v : least) v = std::isnan(v) ? 0.0 : v;
    }
    const double pv_unit = pore_volume_unit(spec, d);
    // PINCH tells ACTNUM's inactive cells from the pore volume's, and takes the input PERMZ of
    // the cells it bypasses.
    const std::vector<std::uint8_t> actnum = pinch ? active : std::vector<std::uint8_t>();
    const std::vector<double> kz = pinch ? rock.kz : std::vector<double>();
    std::vector<double> pore_volume(n);
    for (std::size_t m = 0; m < n; ++m)
        pore_volume[m] = rock.porosity[m] * ntg[m] * multpv[m] * g.volume(static_cast<index_t>(m));
    std::vector<std::uint8_t> pore_volume_set;  // by the EDIT section's PORV
    detail::apply_pore_volume_edits(g, spec, d, active, pore_volume, pore_volume_set);
    for (std::size_t m = 0; m < n; ++m) {
        const double pv = pore_volume[m];
        if (active[m] && !(pv > 0.0 && pv >= least[m] * pv_unit)) active[m] = 0;
        if (!active[m]) {
            rock.kx[m] = rock.ky[m] = rock.kz[m] = rock.porosity[m] = 0.0;
            continue;
        }
        if (ntg[m] != 1.0) {
            rock.porosity[m] *= ntg[m];
            rock.kx[m] *= ntg[m];
            rock.ky[m] *= ntg[m];
        }
        if (multpv[m] != 1.0) rock.porosity[m] *= multpv[m];
        if (!pore_volume_set.empty() && pore_volume_set[m])
            rock.porosity[m] = pv / g.volume(static_cast<index_t>(m));
    }
    std::size_t count = 0;
    for (std::uint8_t a : active) count += a;
    if (count == 0) {
        throw InputError(spec.key, files_text(spec) +
                                       ": no cell is active (ACTNUM 0, or no pore volume "
                                       "or less than MINPV, everywhere)");
    }
    const std::vector<NncTransmissibility> pinched =
        pinch ? pinch_connections(g, d, length_unit(spec, d), actnum, active, kz, vertical,
                                  RegionFactors(g, spec, d))
              : std::vector<NncTransmissibility>();
    if (count < n) rock.active = active;
    detail::apply_transmissibility_edits(g, spec, d, rock);  // before the NNC records add theirs
    apply_cell_pairs(g, spec, d, active, pinched, rock);
    rock.pinch_outs = pinched.size();
}

}  // namespace heptane::grid
