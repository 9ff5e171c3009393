#include "grid/two_phase.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/dual.hpp"
#include "grid/end_points.hpp"

namespace heptane::grid {

TwoPhaseCells::TwoPhaseCells(const Grid3D& grid, const RockFields& rock,
                             const TwoPhaseParams& params, const std::vector<RelPerm>& more_regions)
    : grid_(grid), rock_(rock), params_(params), trans_(tpfa_transmissibilities(grid, rock)) {
    const index_t M = grid_.num_cells();
    relperms_.push_back(params_.relperm);
    relperms_.insert(relperms_.end(), more_regions.begin(), more_regions.end());
    params_.regions_capillary = false;
    for (const RelPerm& rp : more_regions) params_.regions_capillary |= rp.table.capillary;
    const std::vector<std::int32_t>& region = rock_.saturation_region;
    if (!region.empty() && region.size() != static_cast<std::size_t>(M))
        throw std::invalid_argument("TwoPhaseCells: one saturation region a cell");
    for (const std::int32_t r : region) {
        if (r < 0 || static_cast<std::size_t>(r) >= relperms_.size()) {
            throw std::invalid_argument("TwoPhaseCells: a cell of saturation region " +
                                        std::to_string(r + 1) + " of " +
                                        std::to_string(relperms_.size()));
        }
    }
    const std::string error = end_point_check(grid_, rock_, relperms_, end_points_);
    if (!error.empty()) throw std::invalid_argument("TwoPhaseCells: " + error);
    volume_.resize(static_cast<std::size_t>(M));
    depth_.resize(static_cast<std::size_t>(M));
    for (index_t m = 0; m < M; ++m) {
        volume_[m] = grid_.volume(m);
        depth_[m] = grid_.centre_depth(m);
    }
    if (!trans_.nnc.empty()) {
        nnc_ = nnc_layout(M, 1, nnc_pairs());
        nnc_t_.resize(nnc_.col.size());
        for (index_t row = 0; row < M; ++row) {  // each connection's T in both of its rows
            for (index_t e = nnc_.ptr[row]; e < nnc_.ptr[row + 1]; ++e) {
                const index_t lo = std::min(row, nnc_.col[e]), hi = std::max(row, nnc_.col[e]);
                const auto it = std::lower_bound(
                    trans_.nnc.begin(), trans_.nnc.end(), std::array<index_t, 2>{lo, hi},
                    [](const NncTransmissibility& c, const std::array<index_t, 2>& key) {
                        return c.a < key[0] || (c.a == key[0] && c.b < key[1]);
                    });
                nnc_t_[e] = it->t;
            }
        }
    }
}

std::vector<std::array<index_t, 2>> TwoPhaseCells::nnc_pairs() const {
    std::vector<std::array<index_t, 2>> pairs;
    pairs.reserve(trans_.nnc.size());
    for (const NncTransmissibility& c : trans_.nnc) pairs.push_back({c.a, c.b});
    return pairs;
}

GHMatrix TwoPhaseCells::zero_jacobian() const {
    GHMatrix J(grid_.nx, grid_.ny, grid_.nz, 2);
    if (has_nnc()) J.set_nnc(nnc_layout(grid_.num_cells(), 2, nnc_pairs()));
    return J;
}

GHMatrix TwoPhaseCells::zero_jacobian(int first, int count) const {
    GHMatrix J(count, grid_.ny, grid_.nz, 2);
    const index_t plane = static_cast<index_t>(grid_.ny) * grid_.nz;
    if (has_nnc()) {
        NncArrays w = nnc_window(nnc_, 1, first * plane, count * plane);
        w.vals.assign(w.col.size() * 4, 0.0);
        J.set_nnc(std::move(w));
    }
    return J;
}

TwoPhaseCellsView TwoPhaseCells::view() const {
    TwoPhaseCellsView v;
    v.nx = grid_.nx;
    v.ny = grid_.ny;
    v.nz = grid_.nz;
    v.porosity = rock_.porosity.data();
    v.active = rock_.active.empty() ? nullptr : rock_.active.data();
    v.relperms = relperms_.data();
    v.saturation_region =
        rock_.saturation_region.empty() ? nullptr : rock_.saturation_region.data();
    v.end_points = end_points_.empty() ? nullptr : end_points_.data();
    v.volume = volume_.data();
    v.depth = depth_.data();
    v.tx = trans_.tx.data();
    v.ty = trans_.ty.data();
    v.tz = trans_.tz.data();
    if (!nnc_.empty()) {
        v.nnc_ptr = nnc_.ptr.data();
        v.nnc_col = nnc_.col.data();
        v.nnc_t = nnc_t_.data();
    }
    v.params = params_;
    return v;
}

void TwoPhaseCells::assemble(const CellState& x, const CellState& x_old, double dt,
                             std::vector<double>& res, GHMatrix* jac) const {
    assemble(x, x_old, dt, res, jac, 0, grid_.num_cells());
}

void TwoPhaseCells::assemble(const CellState& x, const CellState& x_old, double dt,
                             std::vector<double>& res, GHMatrix* jac, index_t begin,
                             index_t end) const {
    const index_t M = grid_.num_cells();
    // The whole grid's Jacobian, or a slab of exactly the cells [begin, end).
    const bool slab = jac != nullptr && jac->num_cells() != M;
    if (jac != nullptr && (jac->block_size() != 2 || (slab && jac->num_cells() != end - begin) ||
                           jac->ny() != grid_.ny || jac->nz() != grid_.nz)) {
        throw NotSupported(
            "TwoPhaseCells::assemble: Jacobian must be K = 2 on the same grid, or on the "
            "planes of the cells assembled");
    }
    res.assign(static_cast<std::size_t>(2 * M), 0.0);
    const TwoPhaseCellsView v = view();
    JacobianView j;
    std::vector<index_t> slots;  // a slab's connection slots
    const auto nnc_layout_error = [] {
        throw NotSupported(
            "TwoPhaseCells::assemble: the Jacobian's non-neighbour connections are not laid out "
            "by zero_jacobian()");
    };
    if (jac != nullptr) {
        j.bdia = jac->bdia().data();
        j.accumulation = jac->accumulation_for_writing().data();
        j.stride = jac->num_cells();
        j.first = slab ? begin : 0;
        if (!nnc_.empty()) {
            if (slab) {  // each of the cells' entries' slot in the slab (nnc_window's order)
                const NncArrays& s = jac->nnc();
                slots.assign(static_cast<std::size_t>(nnc_.ptr[end] - nnc_.ptr[begin]), -1);
                index_t kept = 0;
                bool laid_out =
                    s.ptr.empty() || s.ptr.size() == static_cast<std::size_t>(end - begin) + 1;
                for (index_t m = begin; m < end && laid_out; ++m) {
                    for (index_t e = nnc_.ptr[m]; e < nnc_.ptr[m + 1]; ++e) {
                        const index_t n = nnc_.col[e];
                        if (n < begin || n >= end) continue;
                        laid_out = laid_out && kept < s.num_entries() && s.col[kept] == n - begin;
                        slots[e - nnc_.ptr[begin]] = kept++;
                    }
                    laid_out =
                        laid_out && (s.ptr.empty() ? kept == 0 : s.ptr[m - begin + 1] == kept);
                }
                if (!laid_out || kept != s.num_entries()) nnc_layout_error();
                j.nnc_slot = slots.data();
                j.nnc_first = nnc_.ptr[begin];
            } else if (jac->nnc().ptr != nnc_.ptr || jac->nnc().col != nnc_.col) {
                nnc_layout_error();
            }
            j.nnc = jac->nnc().vals.data();
        }
    }
    const StateView now{x.p.data(), x.sw.data()}, old{x_old.p.data(), x_old.sw.data()};
    // The properties of the assembled cells and of their neighbours (one plane a side),
    // first touched by the threads that read them.
    const index_t plane = static_cast<index_t>(grid_.ny) * grid_.nz;
    const index_t lo = std::max<index_t>(0, begin - plane), hi = std::min(M, end + plane);
    const std::unique_ptr<double[]> values(new double[cell_property_arrays(params_) * (hi - lo)]);
    const CellPropertiesView props = CellPropertiesView::of(params_, values.get(), hi - lo, lo);
#pragma omp parallel for schedule(static)
    for (index_t m = lo; m < hi; ++m) props.store(params_, relperm(m), m, x.p[m], x.sw[m]);
#pragma omp parallel for schedule(static)
    for (index_t m = begin; m < end; ++m) assemble_cell(v, m, now, old, props, dt, res.data(), j);
}

namespace {

/// p_b = p_a + (rho(p_a) + rho(p_b)) / 2 g (z_b - z_a), solved for p_b by fixed point: the map
/// contracts by c rho g |dz| / 2 (~1e-5 per 10 m), so a few sweeps reach rounding.
double hydrostatic_step(const TwoPhaseParams& prm, int a, double p_a, double z_a, double z_b) {
    double p_b = p_a;
    for (int it = 0; it < 50; ++it) {
        const double next = p_a + 0.5 * (phase_density(prm, a, p_a) + phase_density(prm, a, p_b)) *
                                      prm.gravity * (z_b - z_a);
        if (next == p_b) break;
        p_b = next;
    }
    return p_b;
}

}  // namespace

CellState TwoPhaseCells::equilibrium_state(const std::vector<Equilibrium>& regions) const {
    CellState s;
    equilibrate(regions, &s, nullptr);
    return s;
}

std::vector<double> TwoPhaseCells::equilibrium_capillary_pressure(
    const std::vector<Equilibrium>& regions) const {
    std::vector<double> pc;
    equilibrate(regions, nullptr, &pc);
    return pc;
}

void TwoPhaseCells::equilibrate(const std::vector<Equilibrium>& regions, CellState* s,
                                std::vector<double>* pc_eq) const {
    const index_t M = grid_.num_cells();
    for (const Equilibrium& e : regions) {
        if (e.sublayers < 1)
            throw std::invalid_argument("equilibrium_state: sublayers must be >= 1");
    }
    for (index_t m = 0; m < M; ++m) {
        if (equilibration_region(m) >= regions.size()) {
            throw std::invalid_argument("equilibrium_state: a cell's region has no record");
        }
    }
    // Each region's water pressure at its contact; each saturation region's Pc at its
    // largest saturation.
    std::vector<double> pw_contact;
    for (const Equilibrium& e : regions) {
        pw_contact.push_back(
            e.contact
                ? hydrostatic_step(params_, kOil, e.p_datum, e.z_datum, e.z_contact) - e.pc_contact
                : 0.0);
    }
    std::vector<double> pc_largest;
    for (const RelPerm& rp : relperms_) {
        pc_largest.push_back(
            capillary_pressure(rp, saturation_at_capillary_pressure(rp, -INFINITY)));
    }
    const auto n = static_cast<std::size_t>(M);
    if (s != nullptr) {
        s->p.resize(n);
        s->sw.resize(n);
    }
    if (pc_eq != nullptr) pc_eq->assign(n, std::nan(""));
    const bool swatinit = !rock_.swatinit.empty();
    // Column by column (cells can have their own depths), top down.
#pragma omp parallel for schedule(static)
    for (index_t column = 0; column < grid_.num_columns(); ++column) {
        const index_t top = column * grid_.nz;
        double p_oil = 0.0;         // the oil's hydrostatic pressure at the cell above
        double pw = 0.0, zw = 0.0;  // the water's pressure at the cell above, and its depth
        for (index_t m = top; m < top + grid_.nz; ++m) {
            const std::size_t r = equilibration_region(m);
            const Equilibrium& e = regions[r];
            const bool first = m == top || equilibration_region(m - 1) != r;
            const double z = grid_.centre_depth(m);
            p_oil = first ? hydrostatic_step(params_, kOil, e.p_datum, e.z_datum, z)
                          : hydrostatic_step(params_, kOil, p_oil, grid_.centre_depth(m - 1), z);
            if (s != nullptr) s->p[m] = p_oil;
            if (!e.contact) {
                if (s != nullptr) s->sw[m] = std::isnan(e.sw) ? connate_water(relperm(m)) : e.sw;
                continue;
            }
            if (first) {
                pw = pw_contact[r];
                zw = e.z_contact;
            }
            pw = hydrostatic_step(params_, kWater, pw, zw, z);
            zw = z;
            const double pc = p_oil - pw;
            if (pc_eq != nullptr) (*pc_eq)[m] = pc;
            if (s == nullptr) continue;
            // SWATINIT's cells (design decision 97): their Pc was scaled to hold it here.
            if (swatinit && !std::isnan(rock_.swatinit[m])) {
                s->sw[m] = rock_.swatinit[m];
                continue;
            }
            s->sw[m] = e.sublayers == 1 ? saturation_at_capillary_pressure(relperm(m), pc)
                                        : sublayer_mean_saturation(m, p_oil, pw, e.sublayers);
            const double largest = pc_largest[region(m)];
            if (pc <= largest) s->p[m] = pw + largest;  // the water zone: p_o from p_w
        }
    }
}

CellState TwoPhaseCells::equilibrium_state(double p_datum, double z_datum, double sw) const {
    Equilibrium e;
    e.p_datum = p_datum;
    e.z_datum = z_datum;
    e.sw = sw;
    return equilibrium_state(std::vector<Equilibrium>{e});
}

CellState TwoPhaseCells::equilibrium_state(double p_datum, double z_datum, double z_contact,
                                           double pc_contact, int sublayers) const {
    Equilibrium e;
    e.p_datum = p_datum;
    e.z_datum = z_datum;
    e.contact = true;
    e.z_contact = z_contact;
    e.pc_contact = pc_contact;
    e.sublayers = sublayers;
    return equilibrium_state(std::vector<Equilibrium>{e});
}

double TwoPhaseCells::sublayer_mean_saturation(index_t m, double p_o, double p_w,
                                               int sublayers) const {
    const double z = grid_.centre_depth(m), h = grid_.size_z(m) / sublayers;
    // The mean as the first layer's saturation plus the mean difference from it, so a cell
    // whose layers all have one saturation (no transition zone in it) gets exactly that one.
    double first = 0.0, sum = 0.0;
    for (int q = 0; q < sublayers; ++q) {
        const double zq = z + (q + 0.5 - 0.5 * sublayers) * h;
        const double pc = hydrostatic_step(params_, kOil, p_o, z, zq) -
                          hydrostatic_step(params_, kWater, p_w, z, zq);
        const double sw = saturation_at_capillary_pressure(relperm(m), pc);
        if (q == 0) first = sw;
        sum += sw - first;
    }
    return first + sum / sublayers;
}

}  // namespace heptane::grid
