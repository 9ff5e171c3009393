#include "grid/transmissibility.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/base/errors.hpp"

namespace heptane::grid {
namespace {

/// Two half-cell transmissibilities in series: ta tb / (ta + tb), 0 when both are 0.
double in_series(double ta, double tb) {
    const double sum = ta + tb;
    return sum > 0.0 ? ta * tb / sum : 0.0;
}

/// Harmonic average of two half-cell transmissibilities 2 k A / L, each with its own cell's
/// sizes (per-cell geometry).
double harmonic_of_halves(double ka, double area_a, double length_a, double kb, double area_b,
                          double length_b) {
    return in_series(2.0 * ka * area_a / length_a, 2.0 * kb * area_b / length_b);
}

/// The transmissibility of the face between m and its neighbour n along `axis` (0 = x).
double face(const Grid3D& g, const RockFields& rock, index_t m, index_t n, int axis) {
    const std::vector<double>& k = axis == 0 ? rock.kx : axis == 1 ? rock.ky : rock.kz;
    if (g.uniform()) {  // the historical formula, bit for bit
        const double area = axis == 0 ? g.dy * g.dz : axis == 1 ? g.dx * g.dz : g.dx * g.dy;
        const double length = axis == 0 ? g.dx : axis == 1 ? g.dy : g.dz;
        return harmonic_transmissibility(k[m], k[n], area, length);
    }
    if (g.geometry->corner_point()) {  // each half from its face's geometry
        const std::vector<double>& h = g.geometry->half;
        return in_series(k[m] * h[6 * m + 2 * axis + 1], k[n] * h[6 * n + 2 * axis]);
    }
    const auto area = [&](index_t c) {
        return axis == 0   ? g.size_y(c) * g.size_z(c)
               : axis == 1 ? g.size_x(c) * g.size_z(c)
                           : g.size_x(c) * g.size_y(c);
    };
    const auto length = [&](index_t c) {
        return axis == 0 ? g.size_x(c) : axis == 1 ? g.size_y(c) : g.size_z(c);
    };
    if (axis == 2) {  // a void between the layers (TOPS): through m's bottom face (decision 70)
        const double bottom = g.centre_depth(m) + 0.5 * g.size_z(m);
        const double top = g.centre_depth(n) - 0.5 * g.size_z(n);
        if (top - bottom > 1e-6 + 1e-9 * std::max(std::abs(top), std::abs(bottom))) {
            if (top - bottom > g.geometry->max_void) return 0.0;
            return in_series(2.0 * k[m] * area(m) / length(m),
                             k[n] * area(m) / (g.centre_depth(n) - bottom));
        }
    }
    return harmonic_of_halves(k[m], area(m), length(m), k[n], area(n), length(n));
}

}  // namespace

Transmissibilities tpfa_transmissibilities(const Grid3D& grid, const RockFields& rock) {
    const index_t n_cells = grid.num_cells();
    const auto n = static_cast<std::size_t>(n_cells);
    if (rock.kx.size() != n || rock.ky.size() != n || rock.kz.size() != n) {
        throw Error("tpfa_transmissibilities: the permeability fields have " +
                    std::to_string(rock.kx.size()) + ", " + std::to_string(rock.ky.size()) + ", " +
                    std::to_string(rock.kz.size()) + " values, the grid has " +
                    std::to_string(n_cells) + " cells");
    }
    Transmissibilities t;
    t.tx.assign(n, 0.0);
    t.ty.assign(n, 0.0);
    t.tz.assign(n, 0.0);

    const index_t step[3] = {static_cast<index_t>(grid.ny) * grid.nz, grid.nz, 1};
    std::vector<double>* out[3] = {&t.tx, &t.ty, &t.tz};
    const std::vector<double>* mult[3] = {&rock.multx, &rock.multy, &rock.multz};
    const std::vector<double>* edited[3] = {&rock.tx_edited, &rock.ty_edited, &rock.tz_edited};
    const int size[3] = {grid.nx, grid.ny, grid.nz};
#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < n_cells; ++m) {
        const auto ijk = grid.ijk(m);
        for (int axis = 0; axis < 3; ++axis) {
            // Faces on the last layer of each direction border the outside: no flow, T = 0.
            if (ijk[axis] + 1 >= size[axis]) continue;
            const index_t nb = m + step[axis];
            if (!rock.is_active(m) || !rock.is_active(nb)) continue;
            if (!edited[axis]->empty() && !std::isnan((*edited[axis])[m])) {  // TRANX/Y/Z's
                (*out[axis])[m] = (*edited[axis])[m];
                continue;
            }
            double value = face(grid, rock, m, nb, axis);
            if (!mult[axis]->empty()) value *= (*mult[axis])[m];
            (*out[axis])[m] = value;
        }
    }
    if (grid.geometry != nullptr) {
        const std::vector<CellConnection>& nnc = grid.geometry->nnc;
        if (!rock.nnc_mult.empty() && rock.nnc_mult.size() != nnc.size()) {
            throw Error("tpfa_transmissibilities: " + std::to_string(rock.nnc_mult.size()) +
                        " connection multipliers for " + std::to_string(nnc.size()) +
                        " connections");
        }
        for (std::size_t q = 0; q < nnc.size(); ++q) {
            const CellConnection& c = nnc[q];
            if (!rock.is_active(c.a) || !rock.is_active(c.b)) continue;
            const std::vector<double>& k = c.axis == 0 ? rock.kx : rock.ky;
            double value = in_series(k[c.a] * c.half_a, k[c.b] * c.half_b);
            if (!rock.nnc_mult.empty()) value *= rock.nnc_mult[q];
            if (value > 0.0) t.nnc.push_back({c.a, c.b, value});
        }
    }
    // NNC records: on the stencil face where the cells are neighbours, else a connection of
    // their own (summed with a fault's of the same two cells).
    bool added = false;
    for (const NncTransmissibility& c : rock.nnc_given) {
        if (!rock.is_active(c.a) || !rock.is_active(c.b) || !(c.t > 0.0)) continue;
        int axis = -1;  // the axis along which b is a's + neighbour, if it is one
        const auto ia = grid.ijk(c.a), ib = grid.ijk(c.b);
        for (int a = 0; a < 3; ++a) {
            if (c.b - c.a == step[a] && ib[a] == ia[a] + 1) axis = a;
        }
        if (axis >= 0) {
            (*out[axis])[c.a] += c.t;
            continue;
        }
        t.nnc.push_back(c);
        added = true;
    }
    if (added) {  // sorted by (a, b), one entry a pair, a pair's terms summed in their order
        // (stable: a window of planes sums them as the whole grid does)
        std::stable_sort(t.nnc.begin(), t.nnc.end(), [](const auto& x, const auto& y) {
            return x.a != y.a ? x.a < y.a : x.b < y.b;
        });
        std::vector<NncTransmissibility> merged;
        for (const NncTransmissibility& c : t.nnc) {
            if (!merged.empty() && merged.back().a == c.a && merged.back().b == c.b) {
                merged.back().t += c.t;
            } else {
                merged.push_back(c);
            }
        }
        t.nnc = std::move(merged);
    }
    return t;
}

std::vector<NncTransmissibility> non_neighbour_transmissibilities(const Grid3D& grid,
                                                                  const RockFields& rock) {
    const bool faults = grid.geometry != nullptr && !grid.geometry->nnc.empty();
    if (!faults && rock.nnc_given.empty()) return {};
    return tpfa_transmissibilities(grid, rock).nnc;
}

std::size_t non_neighbour_connections(const Grid3D& grid, const RockFields& rock) {
    return non_neighbour_transmissibilities(grid, rock).size();
}

}  // namespace heptane::grid
