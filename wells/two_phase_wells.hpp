#pragma once
/// @file Well terms of the two-phase model: perforation flows added to the cell equations
/// and one equation per well for its bottom-hole pressure p_bh.
///
/// Perforation l of well w in cell m (Peaceman index WI_l), wellbore pressure
///   p_wb = p_bh + rho_wb g (z_m - z_ref),  z_ref = the well's BHP reference depth (WellSpec::
///            bhp_depth; by default the first perforated cell's centre, design decision 94),
///   rho_wb = oil's (producer) or water's (injector) density at the reference pressure,
///            rho_s / B, constant.
/// Rates are surface volumes, mass / rho_s (B the formation volume factor at the reference
/// pressure: design decision 81), as Eclipse's and OPM's well controls take them.
/// Mass flow out of the cell (kg/s, > 0 = production), p_m the cell's oil pressure and
/// rho_a at the phase's own pressure (p_w = p_m - Pc(S_w), design decision 76):
///   producer:  q_a = WI rho_a lambda_a(S_w) (p_m - p_wb)
///   injector:  q_w = WI rho_w lambda_t(S_w) (p_m - p_wb), q_o = 0
///              (water at the cell's total mobility; cross-flow is not prevented)
/// The drawdown is the oil pressure's for both phases, as OPM's wells take it.
/// Well equation (scaled like the cell equations, core/base/units.hpp):
///   bhp:  (p_bh - target) / kPressureScale
///   rate: producer  sum_l (q_o/rho_o_s + q_w/rho_w_s) kTimeScale - target kTimeScale
///         injector -sum_l  q_w/rho_w_s kTimeScale               - target kTimeScale
///   oil_rate, water_rate (producers): sum_l q_a/rho_a_s kTimeScale - target kTimeScale
///   reservoir_rate: as rate with each phase's surface rate times its factor B_a (its formation
///         volume factor at the field's mean pressure, fixed over a time step: design
///         decision 100), so that the target is a reservoir volume rate
///   shut: (p_bh - target) / kPressureScale with no flow through its perforations (the well
///         keeps its unknown, so a simulation's GH structure never changes)
#include <array>
#include <cstdint>
#include <vector>

#include "core/matrix/gh_matrix.hpp"
#include "grid/two_phase.hpp"
#include "wells/well.hpp"

namespace heptane::wells {

/// The control a well runs under at one moment: its spec's at the start; a simulation's
/// schedule and well limits change it (sim/).
struct WellControl {
    bool open = true;
    ControlKind kind = ControlKind::bhp;
    double target = 0.0;  ///< rate [m^3/s] or BHP [Pa]; a shut well: the p_bh it keeps
    /// reservoir_rate: the reservoir volume of a surface m^3 of oil and of water (kOil,
    /// kWater), reservoir_factors' at the time step's start; unused by the other kinds.
    double factor[2] = {1.0, 1.0};
};

/// Surface volume rates of a well [m^3/s], out of the reservoir > 0 (an injector's water
/// rate is negative).
struct WellRates {
    double oil = 0.0;
    double water = 0.0;
};

/// The rate a rate control c holds, out of the reservoir: the oil's, the water's or the
/// liquid's surface rate (for `rate`; an injector's oil is 0, so its water), or for
/// reservoir_rate their reservoir volume with c's factors.
inline double controlled_rate(const WellControl& c, const WellRates& q) {
    switch (c.kind) {
        case ControlKind::oil_rate:
            return q.oil;
        case ControlKind::water_rate:
            return q.water;
        case ControlKind::reservoir_rate:
            return c.factor[0] * q.oil + c.factor[1] * q.water;
        default:
            return q.oil + q.water;
    }
}

// ---- one well's terms, on the host and the device (issue 23) -------------------------------

/// What the well terms read, as plain arrays (the layout of GHMatrix's WellArrays for K = 2).
struct TwoPhaseWellsView {
    int nw = 0;
    const index_t* first = nullptr;          ///< offset of well w's values: 2 per perforation
    const index_t* cell0 = nullptr;          ///< first perforated cell
    const index_t* count = nullptr;          ///< perforated cells
    const double* wi = nullptr;              ///< Peaceman index per perforation, in layout order
    const std::uint8_t* producer = nullptr;  ///< 1 producer, 0 injector, per well
    const double* ref_depth = nullptr;       ///< the depth p_bh refers to, per well [m]
};

/// Where the well part of the Jacobian goes (WellArrays' values; null: the residual only).
struct WellJacobianView {
    double* w_vals = nullptr;
    double* wt_vals = nullptr;
    double* d = nullptr;
};

/// Scaled surface volume rates [m^3/day] per phase out of a perforated cell at
/// depth dz below the well's BHP reference depth, T = double or a Dual in (p_m, S_w m, p_bh); rp
/// the cell's relative permeability (its saturation region's, grid::cell_relperm).
template <class T>
HEPTANE_HD void perforation_flow(const grid::TwoPhaseParams& prm, const grid::CellRelPerm& rp,
                                 bool producer, double dz, double wi, const T& pm, const T& sw,
                                 const T& pb, T (&q)[2]) {
    const double rho_wb = grid::reference_density(prm, producer ? grid::kOil : grid::kWater);
    const T drawdown = pm - (pb + rho_wb * prm.gravity * dz);
    // Mass flow out of the cell per phase [kg/s] -> scaled surface volume rate.
    if (producer) {
        for (int a = 0; a < 2; ++a) {
            const T pa = grid::phase_pressure(rp, a, pm, sw);
            const double rho_s = a == grid::kOil ? prm.oil.density : prm.water.density;
            q[a] = wi * grid::phase_density(prm, a, pa) * grid::phase_mobility(prm, rp, a, pa, sw) *
                   drawdown * (units::kTimeScale / rho_s);
        }
    } else {
        const T pw = grid::phase_pressure(rp, grid::kWater, pm, sw);
        const T total = grid::phase_mobility(prm, rp, grid::kOil, pm, sw) +
                        grid::phase_mobility(prm, rp, grid::kWater, pw, sw);
        q[grid::kOil] = T(0.0);
        q[grid::kWater] = wi * grid::phase_density(prm, grid::kWater, pw) * total * drawdown *
                          (units::kTimeScale / prm.water.density);
    }
}

/// Whether phase a's rate enters a rate control of kind k (the liquid's: both).
HEPTANE_HD inline bool controls_phase(ControlKind k, int a) {
    return k == ControlKind::oil_rate     ? a == grid::kOil
           : k == ControlKind::water_rate ? a == grid::kWater
                                          : true;
}

/// Perforation l of well w under control ctl: with wj.d, its W and W^T values (zero where
/// it has none); if the well is open, its flows added to its cell's residual res_cells (and
/// with jac.bdia their derivatives to the cell's diagonal block). Returns its term of the
/// well's rate equation (zero unless the well is open under rate control), a dual number in
/// (p_m, S_w m, p_bh). It touches its own cell and values only (wells never share a column),
/// so perforations can run in parallel with the same bits, after the cells' equations.
HEPTANE_HD inline grid::Dual<3> assemble_perforation(const grid::TwoPhaseCellsView& cells,
                                                     const TwoPhaseWellsView& v, int w,
                                                     WellControl ctl, index_t l, grid::StateView x,
                                                     const double* p_bh, double* res_cells,
                                                     grid::JacobianView jac, WellJacobianView wj) {
    using D3 = grid::Dual<3>;  // d/d (p_m, S_w m, p_bh)
    const double ps = units::kPressureScale;
    const index_t first = v.first[w], cell0 = v.cell0[w];
    const index_t base = first + l * 2, m = cell0 + l;
    const bool producer = v.producer[w] != 0;
    if (wj.d != nullptr) {
        for (int a = 0; a < 2; ++a) wj.w_vals[base + a] = wj.wt_vals[base + a] = 0.0;
    }
    if (!ctl.open) return D3(0.0);  // no flow: zero W, W^T; the cell sees nothing of this well
    const D3 pb = D3::variable(p_bh[w], 2, ps);
    const D3 pm = D3::variable(x.p[m], 0, ps);
    const D3 sw = D3::variable(x.sw[m], 1);
    D3 q[2];
    perforation_flow(cells.params, grid::cell_relperm(cells, m), producer,
                     cells.depth[m] - v.ref_depth[w], v.wi[first / 2 + l], pm, sw, pb, q);
    D3 perf_rate(0.0);  // this perforation's surface volume rate [m^3/day] under ctl
    for (int a = 0; a < 2; ++a) {
        res_cells[2 * m + a] += q[a].v;
        if (controls_phase(ctl.kind, a)) {
            perf_rate += ctl.kind == ControlKind::reservoir_rate ? ctl.factor[a] * q[a] : q[a];
        }
        if (jac.bdia != nullptr) {
            for (int c = 0; c < 2; ++c)
                jac.bdia[((kCenter * 2 + a) * 2 + c) * jac.stride + m - jac.first] += q[a].d[c];
        }
        if (wj.d != nullptr) wj.wt_vals[base + a] = q[a].d[2];  // d eq(m, a) / d p_bh
    }
    if (!is_rate(ctl.kind)) return D3(0.0);
    const D3 contribution = producer ? perf_rate : -perf_rate;
    if (wj.d != nullptr)
        for (int c = 0; c < 2; ++c) wj.w_vals[base + c] = contribution.d[c];
    return contribution;
}

/// Cell m's terms of mean_hydrocarbon_pressure's four sums at (p, sw): PV (1 - S_w) p,
/// PV (1 - S_w), PV p and PV, PV its pore volume at p (the host's and the device's bits).
HEPTANE_HD inline void hydrocarbon_pressure_terms(const grid::TwoPhaseCellsView& v, index_t m,
                                                  double p, double sw, double* t) {
    const double pv = grid::pore_volume(v, m, p);
    const double hpv = pv * (1.0 - sw);
    t[0] = hpv * p;
    t[1] = hpv;
    t[2] = pv * p;
    t[3] = pv;
}

/// The mean of hydrocarbon_pressure_terms' sums over the cells: weighted by hydrocarbon pore
/// volume, or by pore volume where no cell holds oil (std::invalid_argument where none has).
double mean_hydrocarbon_pressure(const std::array<double, 4>& sums);

/// Well w's equation into res_wells[w] (and with wj.d its D entry): the BHP target for an
/// open BHP well or a shut one, else rate_eq (its perforations' terms summed from 0 in order
/// l = 0, 1, ...) against the rate target.
HEPTANE_HD inline void well_equation(int w, WellControl ctl, const double* p_bh,
                                     const grid::Dual<3>& rate_eq, double* res_wells,
                                     WellJacobianView wj) {
    if (!ctl.open || ctl.kind == ControlKind::bhp) {
        res_wells[w] = (p_bh[w] - ctl.target) / units::kPressureScale;
        if (wj.d != nullptr) wj.d[w] = 1.0;
        return;
    }
    res_wells[w] = rate_eq.v - ctl.target * units::kTimeScale;
    if (wj.d != nullptr) wj.d[w] = rate_eq.d[2];
}

/// Well w's terms under control ctl: its perforations in order (assemble_perforation), then
/// its equation (well_equation).
HEPTANE_HD inline void assemble_well(const grid::TwoPhaseCellsView& cells,
                                     const TwoPhaseWellsView& v, int w, WellControl ctl,
                                     grid::StateView x, const double* p_bh, double* res_cells,
                                     double* res_wells, grid::JacobianView jac,
                                     WellJacobianView wj) {
    grid::Dual<3> rate_eq(0.0);
    for (index_t l = 0; l < v.count[w]; ++l)
        rate_eq += assemble_perforation(cells, v, w, ctl, l, x, p_bh, res_cells, jac, wj);
    well_equation(w, ctl, p_bh, rate_eq, res_wells, wj);
}

/// Well w's rates under ctl at (x, p_bh) [surface m^3/s] (zero for a shut
/// well): the perforation flows of assemble_well, summed down the well.
HEPTANE_HD inline WellRates well_rates(const grid::TwoPhaseCellsView& cells,
                                       const TwoPhaseWellsView& v, int w, WellControl ctl,
                                       grid::StateView x, const double* p_bh) {
    WellRates out;
    if (!ctl.open) return out;
    const index_t count = v.count[w], first = v.first[w], cell0 = v.cell0[w];
    for (index_t l = 0; l < count; ++l) {
        const index_t m = cell0 + l;
        double q[2];
        perforation_flow(cells.params, grid::cell_relperm(cells, m), v.producer[w] != 0,
                         cells.depth[m] - v.ref_depth[w], v.wi[first / 2 + l], x.p[m], x.sw[m],
                         p_bh[w], q);
        out.oil += q[grid::kOil] / units::kTimeScale;
        out.water += q[grid::kWater] / units::kTimeScale;
    }
    return out;
}

class TwoPhaseWells {
  public:
    TwoPhaseWells(const grid::TwoPhaseCells& cells, std::vector<WellSpec> wells);

    /// Adds the perforation flows to the cell residual res (size 2 M), writes the well
    /// equations to res_wells (size Nw) and, if jac is not null, adds d/dx_cell to its
    /// diagonal blocks and installs the W / W^T / D arrays. Each well under its spec's control.
    void assemble(const grid::CellState& x, const std::vector<double>& p_bh,
                  std::vector<double>& res, std::vector<double>& res_wells, GHMatrix* jac) const;
    /// The same with each well under controls[w] (size Nw).
    void assemble(const grid::CellState& x, const std::vector<double>& p_bh,
                  const std::vector<WellControl>& controls, std::vector<double>& res,
                  std::vector<double>& res_wells, GHMatrix* jac) const;
    /// The same into a slab of i-planes (a rank's part of a distributed simulation): every
    /// well's residual, but into `slab` (K = 2, its planes from `slab_first` on) only the
    /// Jacobian terms of the wells of the planes [own_first, own_end) and their W / W^T / D
    /// arrays (slab_wells' layout).
    void assemble_slab(const grid::CellState& x, const std::vector<double>& p_bh,
                       const std::vector<WellControl>& controls, std::vector<double>& res,
                       std::vector<double>& res_wells, GHMatrix& slab, int slab_first,
                       int own_first, int own_end) const;

    /// Each well's rates at (x, p_bh) under `controls` (a shut well's are zero).
    std::vector<WellRates> rates(const grid::CellState& x, const std::vector<double>& p_bh,
                                 const std::vector<WellControl>& controls) const;

    /// The controls of the specs at state x: open, their kind and target, a reservoir_rate's
    /// factors reservoir_factors(x)'s.
    std::vector<WellControl> initial_controls(const grid::CellState& x) const;

    /// The factors of a reservoir_rate control at state x (Eclipse's RESV; design decision
    /// 100): each phase's formation volume factor at mean_hydrocarbon_pressure(x), as OPM Flow
    /// converts RESV rates with its field's mean hydrocarbon pressure.
    std::array<double, 2> reservoir_factors(const grid::CellState& x) const;
    /// The same at a mean pressure p [Pa] (a NewtonSystem's mean_hydrocarbon_pressure).
    std::array<double, 2> reservoir_factors(double p) const;
    /// The mean oil pressure of x's cells [Pa], weighted by their hydrocarbon pore volume
    /// PV(p) (1 - S_w), or by their pore volume where no cell holds oil: canonical sums, so
    /// every backend and rank count gets the same bits.
    double mean_hydrocarbon_pressure(const grid::CellState& x) const;

    /// A starting p_bh per well: the target for BHP wells; for rate wells the wellbore
    /// pressure equal to the pressure of the first perforated cell (no flow yet).
    std::vector<double> initial_bhp(const grid::CellState& x) const;

    const std::vector<WellSpec>& specs() const { return wells_; }
    /// The well index [m^3] of each perforation (connection_index: Peaceman's, or the
    /// connection's own; 0 where not connected), in layout order.
    const std::vector<double>& well_indices() const { return wi_; }
    /// The well indices [m^3] of well w's perforations were its spec's connections
    /// `connections` (empty: the plain Peaceman column; else one per perforation): a schedule's
    /// change of them (design decision 103). InputError keyed as connection_index's.
    std::vector<double> connection_indices(std::size_t w,
                                           const std::vector<WellConnection>& connections) const;
    /// Well w's perforations take the well indices `wi` (one per perforation) from now on.
    void set_well_indices(std::size_t w, const std::vector<double>& wi);
    /// Each well's BHP reference depth [m] (its bhp_depth, else its first perforated cell's
    /// centre; design decision 94).
    const std::vector<double>& reference_depths() const { return ref_depth_; }

    /// The arrays assemble_well reads (this object's; copy them for a device), and the
    /// layout of the GH matrix's well arrays.
    TwoPhaseWellsView view() const;
    const WellArrays& layout() const { return layout_; }

  private:
    const grid::TwoPhaseCells& cells_;
    std::vector<WellSpec> wells_;
    WellArrays layout_;
    std::vector<double> wi_;
    std::vector<std::uint8_t> producer_;  ///< per well
    std::vector<double> ref_depth_;       ///< per well: the depth p_bh refers to [m]
};

}  // namespace heptane::wells
