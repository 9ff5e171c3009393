#include "wells/two_phase_wells.hpp"

#include <array>
#include <string>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
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
    const grid::RockFields& rock = cells_.rock();
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        double total = 0.0;
        for (index_t l = 0; l < layout_.count[w]; ++l) {
            const index_t m = layout_.cell0[w] + l;
            try {
                wi_.push_back(
                    peaceman_index(g, m, rock.kx[m], rock.ky[m], wells_[w].radius, wells_[w].skin));
            } catch (const InputError& e) {
                throw InputError("wells[" + std::to_string(w) + "]." + e.key(), e.detail());
            }
            total += wi_.back();
        }
        // A rate target through cells that cannot flow has no solution (the solve broke down
        // with NaN): an input error naming the well.
        if (wells_[w].control == ControlKind::rate && !(total > 0.0)) {
            throw InputError("wells[" + std::to_string(w) + "]",
                             "well '" + wells_[w].name +
                                 "' is rate-controlled but every perforated cell has zero "
                                 "horizontal permeability: it cannot deliver its rate");
        }
    }
}

std::vector<double> TwoPhaseWells::initial_bhp(const grid::CellState& x) const {
    std::vector<double> p_bh(wells_.size());
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        p_bh[w] = wells_[w].control == ControlKind::bhp ? wells_[w].target : x.p[layout_.cell0[w]];
    }
    return p_bh;
}

std::vector<WellControl> TwoPhaseWells::initial_controls() const {
    std::vector<WellControl> c(wells_.size());
    for (std::size_t w = 0; w < wells_.size(); ++w)
        c[w] = {true, wells_[w].control, wells_[w].target};
    return c;
}

template <class T>
std::array<T, 2> TwoPhaseWells::perforation_flow(std::size_t w, index_t l, std::size_t perf,
                                                 const T& pm, const T& sw, const T& pb) const {
    const grid::Grid3D& g = cells_.grid();
    const grid::TwoPhaseParams& prm = cells_.params();
    const WellSpec& spec = wells_[w];
    const bool producer = spec.type == WellType::producer;
    const double rho_wb = producer ? prm.oil.density : prm.water.density;
    const index_t top = g.cell(spec.i, spec.j, spec.k_first);
    const double dz = g.centre_depth(top + l) - g.centre_depth(top);
    const T drawdown = pm - (pb + rho_wb * prm.gravity * dz);
    const double wi = wi_[perf];
    const double p_ref = prm.reference_pressure;
    // Mass flow out of the cell per phase [kg/s] -> scaled volume rate.
    std::array<T, 2> q;
    if (producer) {
        for (int a = 0; a < 2; ++a) {
            const grid::PhaseProperties& ph = grid::phase_props(prm, a);
            q[a] = wi * grid::phase_density(ph, pm, p_ref) * grid::phase_mobility(prm, a, sw) *
                   drawdown * (units::kTimeScale / ph.density);
        }
    } else {
        const T total = grid::phase_mobility(prm, kOil, sw) + grid::phase_mobility(prm, kWater, sw);
        q[kOil] = T(0.0);
        q[kWater] = wi * grid::phase_density(prm.water, pm, p_ref) * total * drawdown *
                    (units::kTimeScale / prm.water.density);
    }
    return q;
}

void TwoPhaseWells::assemble(const grid::CellState& x, const std::vector<double>& p_bh,
                             std::vector<double>& res, std::vector<double>& res_wells,
                             GHMatrix* jac) const {
    assemble(x, p_bh, initial_controls(), res, res_wells, jac);
}

void TwoPhaseWells::assemble(const grid::CellState& x, const std::vector<double>& p_bh,
                             const std::vector<WellControl>& controls, std::vector<double>& res,
                             std::vector<double>& res_wells, GHMatrix* jac) const {
    if (controls.size() != wells_.size()) {
        throw NotSupported("TwoPhaseWells::assemble: one control per well");
    }
    const double ps = units::kPressureScale;
    const double ts = units::kTimeScale;
    WellArrays arrays = layout_;
    res_wells.assign(wells_.size(), 0.0);

    std::size_t perf = 0;  // running index into wi_
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        const WellControl& ctl = controls[w];
        const bool producer = wells_[w].type == WellType::producer;
        if (!ctl.open || ctl.kind == ControlKind::bhp) {
            res_wells[w] = (p_bh[w] - ctl.target) / ps;
            arrays.d[w] = 1.0;
        }
        if (!ctl.open) {  // no flow: zero W, W^T; the cells see nothing of this well
            perf += static_cast<std::size_t>(arrays.count[w]);
            continue;
        }
        using D3 = grid::Dual<3>;  // d/d (p_m, S_w m, p_bh)
        const D3 pb = D3::variable(p_bh[w], 2, ps);
        D3 rate_eq(0.0);
        for (index_t l = 0; l < arrays.count[w]; ++l, ++perf) {
            const index_t m = arrays.cell0[w] + l;
            const D3 pm = D3::variable(x.p[m], 0, ps);
            const D3 sw = D3::variable(x.sw[m], 1);
            const std::array<D3, 2> q = perforation_flow(w, l, perf, pm, sw, pb);
            const index_t base = arrays.first[w] + l * 2;
            D3 perf_rate(0.0);  // this perforation's volume rate at reference density [m^3/day]
            for (int a = 0; a < 2; ++a) {
                res[2 * m + a] += q[a].v;
                perf_rate += q[a];
                if (jac != nullptr) {
                    for (int c = 0; c < 2; ++c) jac->at(kCenter, m, a, c) += q[a].d[c];
                    arrays.wt_vals[base + a] = q[a].d[2];  // d eq(m, a) / d p_bh
                }
            }
            if (ctl.kind == ControlKind::rate) {
                const D3 contribution = producer ? perf_rate : -perf_rate;
                rate_eq += contribution;
                for (int c = 0; c < 2; ++c) arrays.w_vals[base + c] = contribution.d[c];
            }
        }
        if (ctl.kind == ControlKind::rate) {
            res_wells[w] = rate_eq.v - ctl.target * ts;
            arrays.d[w] = rate_eq.d[2];
        }
    }
    if (jac != nullptr) jac->set_wells(std::move(arrays));
}

std::vector<WellRates> TwoPhaseWells::rates(const grid::CellState& x,
                                            const std::vector<double>& p_bh,
                                            const std::vector<WellControl>& controls) const {
    std::vector<WellRates> out(wells_.size());
    std::size_t perf = 0;
    for (std::size_t w = 0; w < wells_.size(); ++w) {
        const index_t count = layout_.count[w];
        if (!controls[w].open) {
            perf += static_cast<std::size_t>(count);
            continue;
        }
        for (index_t l = 0; l < count; ++l, ++perf) {
            const index_t m = layout_.cell0[w] + l;
            const std::array<double, 2> q = perforation_flow(w, l, perf, x.p[m], x.sw[m], p_bh[w]);
            out[w].oil += q[kOil] / units::kTimeScale;
            out[w].water += q[kWater] / units::kTimeScale;
        }
    }
    return out;
}

}  // namespace heptane::wells
