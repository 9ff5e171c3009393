#include "wells/two_phase_wells.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "core/base/vector_ops.hpp"
#include "grid/dual.hpp"

namespace heptane::wells {

using grid::kOil;
using grid::kWater;

TwoPhaseWells::TwoPhaseWells(const grid::TwoPhaseCells& cells, std::vector<WellSpec> wells)
    : cells_(cells), wells_(std::move(wells)) {
    const grid::Grid3D& g = cells_.grid();
    validate_wells(g, wells_);
    validate_perforations(g, cells_.rock(), wells_);
    layout_ = well_layout(g, wells_, 2);
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        const WellSpec& spec = wells_[w];
        producer_.push_back(spec.type == WellType::producer ? 1 : 0);
        ref_depth_.push_back(std::isnan(spec.bhp_depth) ? cells_.depths()[layout_.cell0[w]]
                                                        : spec.bhp_depth);
    }
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        std::vector<double> wi;
        try {
            wi = connection_indices(w, wells_[w].connections);
        } catch (const InputError& e) {
            throw InputError("wells[" + std::to_string(w) + "]." + e.key(), e.detail());
        }
        double total = 0.0;
        for (double x : wi) total += x;
        wi_.insert(wi_.end(), wi.begin(), wi.end());
        // A rate target through cells that cannot flow has no solution (the solve broke down
        // with NaN): an input error naming the well.
        if (is_rate(wells_[w].control) && !(total > 0.0)) {
            throw InputError("wells[" + std::to_string(w) + "]",
                             "well '" + wells_[w].name +
                                 "' is rate-controlled but every perforated cell has zero "
                                 "horizontal permeability (or connection factor): it cannot "
                                 "deliver its rate");
        }
    }
}

std::vector<double> TwoPhaseWells::connection_indices(
    std::size_t w, const std::vector<WellConnection>& connections) const {
    WellSpec spec = wells_.at(w);
    spec.connections = connections;
    const index_t count = layout_.count[w];
    if (!connections.empty() && connections.size() != static_cast<std::size_t>(count)) {
        throw std::invalid_argument("TwoPhaseWells::connection_indices: one per perforation");
    }
    std::vector<double> wi;
    for (index_t l = 0; l < count; ++l) {
        wi.push_back(connection_index(cells_.grid(), layout_.cell0[w] + l, cells_.rock(), spec,
                                      static_cast<int>(l)));
    }
    return wi;
}

void TwoPhaseWells::set_well_indices(std::size_t w, const std::vector<double>& wi) {
    const auto count = static_cast<std::size_t>(layout_.count.at(w));
    if (wi.size() != count) {
        throw std::invalid_argument("TwoPhaseWells::set_well_indices: one per perforation");
    }
    std::copy(wi.begin(), wi.end(), wi_.begin() + layout_.first[w] / 2);
}

std::vector<double> TwoPhaseWells::initial_bhp(const grid::CellState& x) const {
    std::vector<double> p_bh(wells_.size());
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        // A rate well starts with no drawdown at its first perforation.
        const index_t c0 = layout_.cell0[w];
        const double rho_wb =
            grid::reference_density(cells_.params(), producer_[w] != 0 ? kOil : kWater);
        p_bh[w] = wells_[w].control == ControlKind::bhp
                      ? wells_[w].target
                      : x.p[c0] - rho_wb * cells_.params().gravity *
                                      (cells_.depths()[c0] - ref_depth_[w]);
    }
    return p_bh;
}

std::vector<WellControl> TwoPhaseWells::initial_controls(const grid::CellState& x) const {
    std::vector<WellControl> c(wells_.size());
    bool reservoir = false;
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        c[w] = {true, wells_[w].control, wells_[w].target};
        reservoir = reservoir || c[w].kind == ControlKind::reservoir_rate;
    }
    if (!reservoir) return c;  // no pass over the cells
    const std::array<double, 2> b = reservoir_factors(x);
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        WellControl& ctl = c[w];
        if (ctl.kind != ControlKind::reservoir_rate) continue;
        ctl.factor[kOil] = b[kOil];
        ctl.factor[kWater] = b[kWater];
        const VoidageOf& v = wells_[w].voidage;
        if (v.given) ctl.target = voidage(v, b[kOil], b[kWater]);
    }
    return c;
}

double mean_hydrocarbon_pressure(const std::array<double, 4>& sums) {
    if (sums[1] > 0.0) return sums[0] / sums[1];
    if (sums[3] > 0.0) return sums[2] / sums[3];
    throw std::invalid_argument("mean_hydrocarbon_pressure: no cell has pore volume");
}

double TwoPhaseWells::mean_hydrocarbon_pressure(const grid::CellState& x) const {
    const grid::TwoPhaseCellsView v = cells_.view();
    const double* p = x.p.data();
    const double* sw = x.sw.data();
    return wells::mean_hydrocarbon_pressure(vec::fused_sums<4>(
        cells_.grid().num_cells(),
        [&](index_t m, double* t) { hydrocarbon_pressure_terms(v, m, p[m], sw[m], t); }));
}

std::array<double, 2> TwoPhaseWells::reservoir_factors(const grid::CellState& x) const {
    return reservoir_factors(mean_hydrocarbon_pressure(x));
}

std::array<double, 2> TwoPhaseWells::reservoir_factors(double p) const {
    return {grid::volume_factor(cells_.params(), kOil, p),
            grid::volume_factor(cells_.params(), kWater, p)};
}

TwoPhaseWellsView TwoPhaseWells::view() const {
    TwoPhaseWellsView v;
    v.nw = static_cast<int>(wells_.size());
    v.first = layout_.first.data();
    v.cell0 = layout_.cell0.data();
    v.count = layout_.count.data();
    v.wi = wi_.data();
    v.producer = producer_.data();
    v.ref_depth = ref_depth_.data();
    return v;
}

void TwoPhaseWells::assemble(const grid::CellState& x, const std::vector<double>& p_bh,
                             std::vector<double>& res, std::vector<double>& res_wells,
                             GHMatrix* jac) const {
    assemble(x, p_bh, initial_controls(x), res, res_wells, jac);
}

void TwoPhaseWells::assemble(const grid::CellState& x, const std::vector<double>& p_bh,
                             const std::vector<WellControl>& controls, std::vector<double>& res,
                             std::vector<double>& res_wells, GHMatrix* jac) const {
    if (controls.size() != wells_.size()) {
        throw NotSupported("TwoPhaseWells::assemble: one control per well");
    }
    WellArrays arrays = layout_;
    res_wells.assign(wells_.size(), 0.0);
    grid::JacobianView j;
    WellJacobianView wj;
    if (jac != nullptr) {
        j.bdia = jac->bdia().data();
        j.stride = jac->num_cells();
        wj = {arrays.w_vals.data(), arrays.wt_vals.data(), arrays.d.data()};
    }
    const grid::TwoPhaseCellsView cells = cells_.view();
    const TwoPhaseWellsView v = view();
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        assemble_well(cells, v, static_cast<int>(w), controls[w], {x.p.data(), x.sw.data()},
                      p_bh.data(), res.data(), res_wells.data(), j, wj);
    }
    if (jac != nullptr) jac->set_wells(std::move(arrays));
}

void TwoPhaseWells::assemble_slab(const grid::CellState& x, const std::vector<double>& p_bh,
                                  const std::vector<WellControl>& controls,
                                  std::vector<double>& res, std::vector<double>& res_wells,
                                  GHMatrix& slab, int slab_first, int own_first,
                                  int own_end) const {
    const grid::Grid3D& g = cells_.grid();
    if (controls.size() != wells_.size()) {
        throw NotSupported("TwoPhaseWells::assemble_slab: one control per well");
    }
    if (slab.block_size() != 2 || slab.ny() != g.ny || slab.nz() != g.nz) {
        throw NotSupported("TwoPhaseWells::assemble_slab: a K = 2 slab of the grid's planes");
    }
    const index_t plane = static_cast<index_t>(g.ny) * g.nz;
    WellArrays arrays = layout_;  // the whole layout's values (perforations only)
    res_wells.assign(wells_.size(), 0.0);
    grid::JacobianView j;
    j.bdia = slab.bdia().data();
    j.stride = slab.num_cells();
    j.first = slab_first * plane;
    const WellJacobianView wj{arrays.w_vals.data(), arrays.wt_vals.data(), arrays.d.data()};
    const grid::TwoPhaseCellsView cells = cells_.view();
    const TwoPhaseWellsView v = view();
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        const auto i = static_cast<int>(layout_.cell0[w] / plane);
        const bool mine = i >= own_first && i < own_end;
        assemble_well(cells, v, static_cast<int>(w), controls[w], {x.p.data(), x.sw.data()},
                      p_bh.data(), res.data(), res_wells.data(), mine ? j : grid::JacobianView{},
                      mine ? wj : WellJacobianView{});
    }
    slab.set_wells(
        slab_wells(arrays, g.ny, g.nz, 2, slab_first, slab.nx(), own_first, own_end, nullptr));
}

std::vector<WellRates> TwoPhaseWells::rates(const grid::CellState& x,
                                            const std::vector<double>& p_bh,
                                            const std::vector<WellControl>& controls) const {
    std::vector<WellRates> out(wells_.size());
    const grid::TwoPhaseCellsView cells = cells_.view();
    const TwoPhaseWellsView v = view();
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        out[w] = well_rates(cells, v, static_cast<int>(w), controls[w], {x.p.data(), x.sw.data()},
                            p_bh.data());
    }
    return out;
}

}  // namespace heptane::wells
