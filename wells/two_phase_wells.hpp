#pragma once
/// @file Well terms of the two-phase model: perforation flows added to the cell equations
/// and one equation per well for its bottom-hole pressure p_bh.
///
/// Perforation l of well w in cell m (Peaceman index WI_l), wellbore pressure
///   p_wb = p_bh + rho_wb g (z_m - z_ref),  z_ref = depth of the first perforated cell,
///   rho_wb = reference density of oil (producer) or water (injector), constant.
/// Mass flow out of the cell (kg/s, > 0 = production):
///   producer:  q_a = WI rho_a(p_m) lambda_a(S_w) (p_m - p_wb)
///   injector:  q_w = WI rho_w(p_m) lambda_t(S_w) (p_m - p_wb), q_o = 0
///              (water at the cell's total mobility; cross-flow is not prevented)
/// Well equation (scaled like the cell equations, core/base/units.hpp):
///   bhp:  (p_bh - target) / kPressureScale
///   rate: producer  sum_l (q_o/rho_o_ref + q_w/rho_w_ref) kTimeScale - target kTimeScale
///         injector -sum_l  q_w/rho_w_ref kTimeScale                 - target kTimeScale
///   shut: (p_bh - target) / kPressureScale with no flow through its perforations (the well
///         keeps its unknown, so a simulation's GH structure never changes)
#include <array>
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
};

/// Volume rates of a well at reference density [m^3/s], out of the reservoir > 0 (an
/// injector's water rate is negative).
struct WellRates {
    double oil = 0.0;
    double water = 0.0;
};

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

    /// Each well's rates at (x, p_bh) under `controls` (a shut well's are zero).
    std::vector<WellRates> rates(const grid::CellState& x, const std::vector<double>& p_bh,
                                 const std::vector<WellControl>& controls) const;

    /// The controls of the specs: open, their kind and target.
    std::vector<WellControl> initial_controls() const;

    /// A starting p_bh per well: the target for BHP wells; for rate wells the wellbore
    /// pressure equal to the pressure of the first perforated cell (no flow yet).
    std::vector<double> initial_bhp(const grid::CellState& x) const;

    const std::vector<WellSpec>& specs() const { return wells_; }
    /// Peaceman index of each perforation, in layout order.
    const std::vector<double>& well_indices() const { return wi_; }

  private:
    /// Scaled volume rates [m^3/day at reference density] per phase out of the cell of
    /// perforation l of well w (perforation number perf), T = double or a Dual in
    /// (p_m, S_w m, p_bh).
    template <class T>
    std::array<T, 2> perforation_flow(std::size_t w, index_t l, std::size_t perf, const T& pm,
                                      const T& sw, const T& pb) const;

    const grid::TwoPhaseCells& cells_;
    std::vector<WellSpec> wells_;
    WellArrays layout_;
    std::vector<double> wi_;
};

}  // namespace heptane::wells
