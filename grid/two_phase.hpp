#pragma once
/// @file Fully implicit oil-water model (DESIGN section 4): the cell terms (accumulation and
/// TPFA fluxes with upstream mobility and gravity). The well terms are in wells/; the fluid and
/// its property laws in grid/fluid_laws.hpp.
///
/// Unknowns per cell: c = 0 oil pressure p_o, c = 1 water saturation S_w. The water pressure
/// is p_w = p_o - Pc(S_w), Pc the table's capillary pressure (0 without one; design decision
/// 76). Equations per cell: e = 0 oil, e = 1 water mass balance, backward Euler over dt:
///   R_a(m) = V/dt [ (phi rho_a S_a)(x) - (phi rho_a S_a)(x_old) ]
///          + sum_faces T (rho_a lambda_a)_up dPhi_a            (mass out > 0)  [+ wells]
///   dPhi_a = p_a,m - p_a,n - rho_a_face g (z_m - z_n),  rho_a_face = (rho_a,m + rho_a,n) / 2
///   up = m if dPhi_a >= 0 else n;   lambda_a = kr_a(S_w) / mu_a
/// Slightly compressible fluids and rock: rho_a = (rho_a_s / B_a) exp(c_a (p_a - p_ref)) at the
/// phase's own pressure (rho_a_s the surface density, B_a the formation volume factor at
/// p_ref), phi = phi_ref exp(c_r (p_o - p_ref)). Corey: krw = krw_max Se^nw,
/// kro = kro_max (1-Se)^no, Se = (S_w - swc) / (1 - swc - sor) clamped to [0, 1]; or a table
/// (RelPermTable), which may carry Pc.
/// Scaling (core/base/units.hpp): equations are divided by rho_a_s and multiplied by
/// kTimeScale (surface m^3/day, Eclipse's and OPM's unit); pressure unknowns are in units of
/// kPressureScale (bar).
#include <array>
#include <cstdint>
#include <vector>

#include "core/base/canonical_math.hpp"
#include "core/base/units.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "grid/dual.hpp"  // value(): the property laws take double or Dual<N>
#include "grid/fluid_laws.hpp"
#include "grid/grid3d.hpp"
#include "grid/relperm.hpp"
#include "grid/rock.hpp"
#include "grid/transmissibility.hpp"

namespace heptane::grid {

// ---- one cell's equations, on the host and the device (issue 23) ----------------------------

/// What the cell equations read, as plain arrays: the host's vectors, or their device copies.
struct TwoPhaseCellsView {
    int nx = 0, ny = 0, nz = 0;
    const double* porosity = nullptr;      ///< reference porosity per cell
    const std::uint8_t* active = nullptr;  ///< 1 active, 0 not; null: every cell active
    /// The saturation regions (design decision 87): cell m's relative permeability and
    /// capillary pressure are relperms[saturation_region[m]] (saturation_region null:
    /// relperms[0], every cell's). relperms is the model's regions, region 1 first (params'
    /// relperm); it is never null in a view assemble_cell reads.
    const RelPerm* relperms = nullptr;
    const std::int32_t* saturation_region = nullptr;
    /// Each cell's own end points (design decision 95), its region's table scaled to them;
    /// null: no cell's table is scaled.
    const EndPoints* end_points = nullptr;
    const double* volume = nullptr;  ///< bulk volume per cell [m^3]
    const double* depth = nullptr;   ///< centre depth per cell [m]
    const double* tx = nullptr;      ///< TPFA transmissibilities (grid/transmissibility)
    const double* ty = nullptr;
    const double* tz = nullptr;
    /// Non-neighbour connections (design decision 63), by cell row as the Jacobian's
    /// NncArrays: cell m's entries e in [nnc_ptr[m], nnc_ptr[m + 1]), the other cell
    /// nnc_col[e], its transmissibility nnc_t[e]. nnc_ptr null: none.
    const index_t* nnc_ptr = nullptr;
    const index_t* nnc_col = nullptr;
    const double* nnc_t = nullptr;
    TwoPhaseParams params;
};

/// Cell m's relative permeability: its saturation region's, scaled to its end points.
HEPTANE_HD inline CellRelPerm cell_relperm(const TwoPhaseCellsView& v, index_t m) {
    return {v.relperms[v.saturation_region != nullptr ? v.saturation_region[m] : 0],
            v.end_points != nullptr ? v.end_points + m : nullptr};
}

/// Cell m's pore volume at oil pressure p [m^3]: its bulk volume times the rock's porosity at
/// p (the one formula of the convergence measures, the fluid in place and the mean pressure).
HEPTANE_HD inline double pore_volume(const TwoPhaseCellsView& v, index_t m, double p) {
    const TwoPhaseParams& prm = v.params;
    return v.volume[m] *
           rock_porosity(v.porosity[m], prm.rock_compressibility, p, prm.reference_pressure);
}

/// A state's arrays: oil pressure [Pa] and water saturation per cell.
struct StateView {
    const double* p = nullptr;
    const double* sw = nullptr;
};

/// Where the Jacobian's cell part goes: Bdia entry (d, r, c) of cell m at
/// ((d 2 + r) 2 + c) stride + m - first (stride M on the host, the device's padded Mp; first:
/// the first cell the storage holds, a rank's slab of i-planes, else 0), the
/// accumulation blocks at (r 2 + c) stride + m - first and the non-neighbour blocks: entry
/// e of the view's connections at slot s = e (a whole grid's storage), or with nnc_slot
/// s = nnc_slot[e - nnc_first] (a slab's storage, its window's connections: -1 where the
/// other cell lies outside it). bdia null: the residual only.
struct JacobianView {
    double* bdia = nullptr;
    double* accumulation = nullptr;
    index_t stride = 0;
    index_t first = 0;
    double* nnc = nullptr;  ///< NncArrays::vals: slot s's (r, c) at (s 2 + r) 2 + c
    const index_t* nnc_slot = nullptr;
    index_t nnc_first = 0;
};

/// A phase's density rho_a(p_a) at its own pressure with d rho_a / d p_o (per kPressureScale)
/// and d rho_a / d S_w (through Pc, else 0), its mobility lambda_a(S_w) with d lambda_a / d
/// S_w, and (water) the capillary pressure Pc with dPc / d S_w (else 0), at a cell's state.
/// The derivatives are those the cell equations' dual numbers carry, so rebuilding the duals
/// from them gives the bits of evaluating the laws per face.
/// With a pressure-dependent viscosity (decision 84) also d lambda_a / d p_o (per
/// kPressureScale), dmob then the whole d lambda_a / d S_w (through Pc too).
struct PhaseState {
    double rho, drho, mob, dmob;
    double drho_ds = 0.0, pc = 0.0, dpc = 0.0;
    double dmob_dp = 0.0;
};

/// rp: the cell's relative permeability (its saturation region's).
HEPTANE_HD inline PhaseState phase_state(const TwoPhaseParams& prm, const CellRelPerm& rp, int a,
                                         double p, double sw) {
    using D1 = Dual<1>;
    using D2 = Dual<2>;  // d/d (p_o, S_w)
    // The phase's pressure (phase_pressure's arithmetic, Pc evaluated once).
    const bool capillary = a == kWater && rp.law->table.capillary;
    D2 pa = D2::variable(p, 0, units::kPressureScale);
    D2 pc(0.0);
    if (capillary) {
        pc = capillary_pressure(rp, D2::variable(sw, 1));
        pa -= pc;
    }
    const D2 rho = phase_density(prm, a, pa);
    PhaseState s{rho.v, rho.d[0], 0.0, 0.0};
    if (pressure_dependent_viscosity(prm, a)) {
        const D2 mob = phase_mobility(prm, rp, a, pa, D2::variable(sw, 1));
        s.mob = mob.v;
        s.dmob = mob.d[1];
        s.dmob_dp = mob.d[0];
    } else {  // kr(S_w) / mu: d / d S_w alone
        const D1 swd = D1::variable(sw, 0);
        const D1 mob = phase_mobility(prm, rp, a, swd, swd);
        s.mob = mob.v;
        s.dmob = mob.d[0];
    }
    if (capillary) {
        s.drho_ds = rho.d[1];
        s.pc = pc.v;
        s.dpc = pc.d[1];
    }
    return s;
}

/// Every cell's PhaseState of both phases, evaluated once a cell and read by the cell and
/// its six neighbours (decision 43): entry q < 4 of phase a of cell m at (4 a + q) stride + m
/// - first, for the cells [first, first + stride); with capillary pressure also water's
/// drho_ds, pc and dpc at (8, 9, 10) stride + m - first; with a pressure-dependent viscosity
/// (decision 84) phase a's dmob_dp at (8 + a) stride (11 + a with Pc): cell_property_arrays 8
/// to 13.
HEPTANE_HD inline int cell_property_arrays(const TwoPhaseParams& prm) {
    return 8 + (has_capillary_pressure(prm) ? 3 : 0) + (pressure_dependent_viscosity(prm) ? 2 : 0);
}
struct CellPropertiesView {
    double* values = nullptr;
    index_t stride = 0;
    index_t first = 0;
    bool capillary = false;  ///< the model has Pc: the three more arrays are there
    bool viscous = false;    ///< a viscosity depends on pressure: the two dmob_dp arrays are there

    /// The view of the model prm's cell_property_arrays(prm) arrays at `values`.
    HEPTANE_HD static CellPropertiesView of(const TwoPhaseParams& prm, double* values,
                                            index_t stride, index_t first) {
        return {values, stride, first, has_capillary_pressure(prm),
                pressure_dependent_viscosity(prm)};
    }
    HEPTANE_HD double* dmob_dp_at(index_t m, int a) const {
        return values + ((capillary ? 11 : 8) + a) * stride + m - first;
    }

    /// Both phases of cell m at (p, sw), rp its relative permeability (cell_relperm): in a
    /// model with Pc, a region without stores Pc = 0 (the oil's zeros).
    HEPTANE_HD void store(const TwoPhaseParams& prm, const CellRelPerm& rp, index_t m, double p,
                          double sw) const {
        for (int a = 0; a < 2; ++a) {
            const PhaseState s = phase_state(prm, rp, a, p, sw);
            double* at = values + (4 * a * stride + m - first);
            at[0] = s.rho;
            at[stride] = s.drho;
            at[2 * stride] = s.mob;
            at[3 * stride] = s.dmob;
            if (capillary && a == kWater) {
                at[4 * stride] = s.drho_ds;
                at[5 * stride] = s.pc;
                at[6 * stride] = s.dpc;
            }
            if (viscous) *dmob_dp_at(m, a) = s.dmob_dp;
        }
    }
    /// Phase a of cell m; kCapillary false: the four arrays every model has (a model without
    /// Pc, whose other entries are 0).
    template <bool kCapillary = true>
    HEPTANE_HD PhaseState get(index_t m, int a) const {
        const double* at = values + (4 * a * stride + m - first);
        PhaseState s{at[0], at[stride], at[2 * stride], at[3 * stride]};
        if (kCapillary && capillary && a == kWater) {
            s.drho_ds = at[4 * stride];
            s.pc = at[5 * stride];
            s.dpc = at[6 * stride];
        }
        if (viscous) s.dmob_dp = *dmob_dp_at(m, a);
        return s;
    }
};

/// Transmissibility of the face between cell m and its neighbour n across diagonal d.
HEPTANE_HD inline double face_transmissibility(const TwoPhaseCellsView& v, index_t m, index_t n,
                                               int d) {
    switch (d) {
        case 0:
            return v.tx[n];
        case 1:
            return v.ty[n];
        case 2:
            return v.tz[n];
        case 4:
            return v.tz[m];
        case 5:
            return v.ty[m];
        case 6:
            return v.tx[m];
        default:
            return 0.0;
    }
}

/// Equation a (kOil or kWater) of cell m without well terms, scaled, into res[2 m + a], and
/// with jac.bdia row a of its seven 2 x 2 blocks of d res / d x (pressure columns per
/// kPressureScale) and of its accumulation block (identity rows for an inactive cell).
/// props: the properties of m and its neighbours at x. It writes its own entries only, each
/// once, so the equations can run in any order or in parallel with the same bits.
/// kCapillary: whether the model has Pc (has_capillary_pressure(v.params); assemble_equation
/// chooses): without, the capillary terms are not compiled in (they would be exact +0 and
/// cost the device kernel registers, decision 76).
template <bool kCapillary>
HEPTANE_HD inline void assemble_equation_of(const TwoPhaseCellsView& v, index_t m, int a,
                                            StateView x, StateView x_old, CellPropertiesView props,
                                            double dt, double* res, JacobianView jac) {
    const TwoPhaseParams& prm = v.params;
    const double ps = units::kPressureScale;
    const double p_ref = prm.reference_pressure;
    // Mass rate [kg/s] -> scaled surface volume rate [m^3/day].
    const double scale = units::kTimeScale / (a == kOil ? prm.oil.density : prm.water.density);
    const bool jacobian = jac.bdia != nullptr;
    auto J = [&](int d, int c) -> double& {
        return jac.bdia[((d * 2 + a) * 2 + c) * jac.stride + m - jac.first];
    };
    auto A = [&](int c) -> double& {
        return jac.accumulation[(a * 2 + c) * jac.stride + m - jac.first];
    };
    // An inactive cell: residual 0, identity block (its neighbours' faces have T = 0).
    if (v.active != nullptr && v.active[m] == 0) {
        if (jacobian) {
            for (int d = 0; d < kStencilSize; ++d)
                for (int c = 0; c < 2; ++c) J(d, c) = d == kCenter && a == c ? 1.0 : 0.0;
            for (int c = 0; c < 2; ++c) A(c) = a == c ? 1.0 : 0.0;
        }
        res[2 * m + a] = 0.0;
        return;
    }
    // The diagonal block's row is summed from 0 in registers (accumulation, then the faces in
    // d order) and written once; an off-diagonal block's row is its face's term added to 0.
    double center[2] = {0.0, 0.0};
    // Accumulation: V/dt [(phi rho_a S_a)(x) - (phi rho_a S_a)(x_old)].
    using D2 = Dual<2>;
    const double pore_factor = v.volume[m] / dt;
    const D2 p = D2::variable(x.p[m], kPressure, ps);
    const D2 sw = D2::variable(x.sw[m], kSaturation);
    const D2 phi = rock_porosity(v.porosity[m], prm.rock_compressibility, p, p_ref);
    const double phi_old =
        rock_porosity(v.porosity[m], prm.rock_compressibility, x_old.p[m], p_ref);
    const PhaseState own = props.get<kCapillary>(m, a);
    D2 rho = D2::variable(own.rho, kPressure, own.drho);
    if (kCapillary) rho.d[kSaturation] = own.drho_ds;
    const D2 s = a == kWater ? sw : 1.0 - sw;
    const double s_old = a == kWater ? x_old.sw[m] : 1.0 - x_old.sw[m];
    const double p_old =
        kCapillary ? phase_pressure(cell_relperm(v, m), a, x_old.p[m], x_old.sw[m]) : x_old.p[m];
    const D2 acc = pore_factor * (phi * rho * s - phi_old * phase_density(prm, a, p_old) * s_old);
    const D2 r = acc * scale;
    double r_cell = 0.0 + r.v;
    for (int c = 0; c < 2; ++c) {
        center[c] += r.d[c];
        if (jacobian) A(c) = r.d[c];
    }
    // Fluxes through the six faces, upstream mobility, gravity.
    const index_t col = static_cast<index_t>(v.nz) * v.ny;
    const unsigned neighbours = stencil_neighbour_mask(v.nx, v.ny, v.nz, m);
    using D4 = Dual<4>;  // d/d (p_m, S_w m, p_n, S_w n)
    // A cell's phase pressure p_o - Pc and density from its PhaseState, seeded at slot i (p)
    // and i + 1 (S_w): without Pc the oil pressure's dual itself (for oil, pc, dpc and drho_ds
    // are +0: the same bits).
    const auto phase_pressure_at = [&](index_t c, const PhaseState& st, int i) {
        D4 p_c = D4::variable(x.p[c], i, ps);
        if (kCapillary) {
            D4 pc(st.pc);
            pc.d[i + 1] = st.dpc;
            p_c -= pc;
        }
        return p_c;
    };
    const auto density_at = [](const PhaseState& st, int i) {
        D4 rho_c = D4::variable(st.rho, i, st.drho);
        if (kCapillary) rho_c.d[i + 1] = st.drho_ds;
        return rho_c;
    };
    // A cell's mobility seeded at slot i (p, with a pressure-dependent viscosity) and i + 1.
    const auto mobility_at = [&](const PhaseState& st, int i) {
        D4 mob_c = D4::variable(st.mob, i + 1, st.dmob);
        if (props.viscous) mob_c.d[i] = st.dmob_dp;
        return mob_c;
    };
    const D4 pm = phase_pressure_at(m, own, 0);
    const D4 rho_m = density_at(own, 0);
    // The flux of phase a from m to n through transmissibility t, added to the row's residual
    // and diagonal block; its d / d (p_n, S_w n) is the off-diagonal block's row.
    const auto face_flux = [&](index_t n, double t) {
        const double dz = v.depth[m] - v.depth[n];  // z_m - z_n
        const PhaseState other = props.get<kCapillary>(n, a);
        const D4 pn = phase_pressure_at(n, other, 2);
        const D4 rho_n = density_at(other, 2);
        const D4 dphi = pm - pn - 0.5 * (rho_m + rho_n) * (prm.gravity * dz);
        const D4 mob =
            value(dphi) >= 0.0 ? rho_m * mobility_at(own, 0) : rho_n * mobility_at(other, 2);
        const D4 flux = (t * scale) * mob * dphi;
        r_cell += flux.v;
        for (int c = 0; c < 2; ++c) center[c] += flux.d[c];
        return flux;
    };
    for (int d = 0; d < kStencilSize; ++d) {
        if (d == kCenter) continue;
        const index_t step = d == 0 || d == 6 ? col : d == 1 || d == 5 ? v.nz : 1;
        const index_t n = d < kCenter ? m - step : m + step;
        const double t = (neighbours >> d & 1u) != 0 ? face_transmissibility(v, m, n, d) : 0.0;
        if (t == 0.0) {
            if (jacobian) {
                for (int c = 0; c < 2; ++c) J(d, c) = 0.0;
            }
            continue;
        }
        const D4 flux = face_flux(n, t);
        for (int c = 0; c < 2; ++c) {
            if (jacobian) J(d, c) = 0.0 + flux.d[2 + c];  // 0 + : -0 -> 0, as summed from 0
        }
    }
    // The non-neighbour connections, after the stencil's faces (their blocks' order).
    if (v.nnc_ptr != nullptr) {
        for (index_t e = v.nnc_ptr[m]; e < v.nnc_ptr[m + 1]; ++e) {
            const D4 flux = face_flux(v.nnc_col[e], v.nnc_t[e]);
            const index_t slot = jac.nnc_slot != nullptr ? jac.nnc_slot[e - jac.nnc_first] : e;
            for (int c = 0; c < 2; ++c) {
                if (jacobian && slot >= 0) jac.nnc[(slot * 2 + a) * 2 + c] = 0.0 + flux.d[2 + c];
            }
        }
    }
    if (jacobian) {
        for (int c = 0; c < 2; ++c) J(kCenter, c) = center[c];
    }
    res[2 * m + a] = r_cell;
}

/// assemble_equation_of for the model's v.params (with or without capillary pressure).
HEPTANE_HD inline void assemble_equation(const TwoPhaseCellsView& v, index_t m, int a, StateView x,
                                         StateView x_old, CellPropertiesView props, double dt,
                                         double* res, JacobianView jac) {
    if (has_capillary_pressure(v.params)) {
        assemble_equation_of<true>(v, m, a, x, x_old, props, dt, res, jac);
    } else {
        assemble_equation_of<false>(v, m, a, x, x_old, props, dt, res, jac);
    }
}

/// Both equations of cell m (assemble_equation).
HEPTANE_HD inline void assemble_cell(const TwoPhaseCellsView& v, index_t m, StateView x,
                                     StateView x_old, CellPropertiesView props, double dt,
                                     double* res, JacobianView jac) {
    for (int a = 0; a < 2; ++a) assemble_equation(v, m, a, x, x_old, props, dt, res, jac);
}

/// The cell part of the two-phase residual and Jacobian.
class TwoPhaseCells {
  public:
    /// more_regions: the relative permeabilities of saturation regions 2, 3, ... (design
    /// decision 87; params.relperm is region 1), which rock.saturation_region numbers from 0;
    /// std::invalid_argument where a cell's region is not one of them. rock.end_points
    /// (design decision 95) scale a cell's table, an end point it leaves NaN its table's;
    /// std::invalid_argument for end points check_end_points refuses.
    TwoPhaseCells(const Grid3D& grid, const RockFields& rock, const TwoPhaseParams& params,
                  const std::vector<RelPerm>& more_regions = {});

    /// Scaled residual of every cell equation without well terms: res[m 2 + e], size 2 M.
    /// If jac is not null (a K = 2 GHMatrix on the same grid) its Bdia is overwritten with
    /// d res / d x (pressure columns per kPressureScale), and its accumulation blocks
    /// (GHMatrix::accumulation) with the accumulation term's part of the diagonal blocks
    /// (identity for an inactive cell). Parallel over cells: first each cell's properties
    /// (CellPropertiesView), then each cell's equations over its own six faces, so the result
    /// does not depend on the thread count.
    void assemble(const CellState& x, const CellState& x_old, double dt, std::vector<double>& res,
                  GHMatrix* jac) const;
    /// The same for the cells [begin, end) only (a rank of a distributed simulation): the
    /// other cells' entries of res are zero, their Jacobian rows left as they are. jac: the
    /// whole grid's, or a slab of exactly the planes of [begin, end) (a rank's own storage,
    /// laid out by zero_jacobian(first, count): a connection to a cell outside the slab adds
    /// to the residual and the diagonal block, its block is not stored).
    void assemble(const CellState& x, const CellState& x_old, double dt, std::vector<double>& res,
                  GHMatrix* jac, index_t begin, index_t end) const;

    /// The initial state of equilibration regions (design decision 92): each cell takes the
    /// record of its region (rock().equilibration_region; none: regions[0]), every region
    /// computed as if it were the model's only one, column by column (a column's run of cells
    /// of one region from the record's datum, the cells after its first from the cell above).
    /// Regions are not in equilibrium with each other: where two meet without a sealing
    /// face, fluid flows at the start (as in Eclipse). Within a region:
    ///
    /// Hydrostatic oil-pressure equilibrium: p at depth z_datum is p_datum [Pa], each cell of
    /// a column from the one above by the discrete balance p_{k+1} - p_k = rho_face g dz
    /// (fixed point), so the vertical oil fluxes of the initial state vanish. Saturation is
    /// uniform sw, or with sw NaN each cell's connate water (its saturation region's).
    /// Inactive cells get values too (they are never updated).
    ///
    /// With a contact, the capillary-gravity equilibrium (design decision 77, Eclipse's EQUIL
    /// with its cell-centre rule): the oil pressure as above, the water pressure
    /// p_o(z_contact) - pc_contact at depth z_contact and from there hydrostatic in each column
    /// by the same discrete balance (water densities at p_w); each cell's saturation is where
    /// the capillary pressure is p_o - p_w (saturation_at_capillary_pressure of its saturation
    /// region's law): the connate water above the transition zone, the law's largest
    /// saturation below it, where the oil pressure becomes p_w + Pc there (the oil immobile:
    /// the water sets the pressure). With krw = 0 at the connate water and kro = 0 at the
    /// largest saturation no phase flows. With `sublayers` > 1 (Eclipse's EQUIL item 9 < 0,
    /// design decision 78) a cell's saturation is instead the mean of that rule at the centres
    /// of `sublayers` equal layers of its thickness (each layer's p_o and p_w hydrostatic from
    /// the cell centre's), its pressures staying the centre's: the water in place closer to
    /// the profile's integral where the transition zone or the contact cuts a cell, at the
    /// cost of a small flow there at the start (the cell's Pc no longer matches p_o - p_w at
    /// its centre). std::invalid_argument for a cell's region without a record or sublayers
    /// < 1.
    CellState equilibrium_state(const std::vector<Equilibrium>& regions) const;
    /// Each cell's p_o - p_w of the capillary-gravity equilibrium of `regions` at its centre
    /// (NaN in a region without a contact): the Pc SWATINIT's cells are scaled to (design
    /// decision 97).
    std::vector<double> equilibrium_capillary_pressure(
        const std::vector<Equilibrium>& regions) const;
    /// One region's: the hydrostatic oil pressure with a uniform saturation (sw NaN: connate).
    CellState equilibrium_state(double p_datum, double z_datum, double sw) const;
    /// One region's capillary-gravity equilibrium about a water-oil contact.
    CellState equilibrium_state(double p_datum, double z_datum, double z_contact, double pc_contact,
                                int sublayers = 1) const;

    const Grid3D& grid() const { return grid_; }
    const TwoPhaseParams& params() const { return params_; }
    const RockFields& rock() const { return rock_; }
    /// The saturation regions' relative permeabilities, region 1 (params().relperm) first.
    const std::vector<RelPerm>& relperms() const { return relperms_; }
    /// Cell m's saturation region (from 0), and its relative permeability.
    std::size_t region(index_t m) const {
        return rock_.saturation_region.empty()
                   ? 0
                   : static_cast<std::size_t>(rock_.saturation_region[m]);
    }
    CellRelPerm relperm(index_t m) const {
        return {relperms_[region(m)], end_points_.empty() ? nullptr : &end_points_[m]};
    }
    /// Each cell's end points (design decision 95; empty: no cell's table is scaled).
    const std::vector<EndPoints>& end_points() const { return end_points_; }
    /// Cell m's equilibration region (from 0; design decision 92).
    std::size_t equilibration_region(index_t m) const {
        return rock_.equilibration_region.empty()
                   ? 0
                   : static_cast<std::size_t>(rock_.equilibration_region[m]);
    }
    /// The arrays assemble_cell reads (this object's; copy them for a device).
    TwoPhaseCellsView view() const;
    const std::vector<double>& volumes() const { return volume_; }
    const std::vector<double>& depths() const { return depth_; }
    const Transmissibilities& transmissibilities() const { return trans_; }
    /// The non-neighbour connections' cell pairs, for the Jacobian's layout (nnc_layout): its
    /// entries are then in the order of view()'s.
    std::vector<std::array<index_t, 2>> nnc_pairs() const;
    bool has_nnc() const { return !nnc_.empty(); }
    /// The connections' layout by cell row (K = 1, view()'s nnc_ptr and nnc_col) and each
    /// entry's transmissibility (view()'s nnc_t): what a device copies.
    const NncArrays& nnc() const { return nnc_; }
    const std::vector<double>& nnc_transmissibilities() const { return nnc_t_; }
    /// A zero K = 2 Jacobian of the whole grid, laid out for assemble (its connections).
    GHMatrix zero_jacobian() const;
    /// The same of the i-planes [first, first + count) alone (a rank's slab): the connections
    /// between its cells (nnc_window's layout).
    GHMatrix zero_jacobian(int first, int count) const;

  private:
    /// equilibrium_state's column walk: the state into s, each cell's p_o - p_w into pc_eq
    /// (either may be null).
    void equilibrate(const std::vector<Equilibrium>& regions, CellState* s,
                     std::vector<double>* pc_eq) const;
    /// Cell m's saturation by equilibrium_state's sub-layer rule, p_o and p_w its centre's.
    double sublayer_mean_saturation(index_t m, double p_o, double p_w, int sublayers) const;

    Grid3D grid_;
    RockFields rock_;
    TwoPhaseParams params_;
    Transmissibilities trans_;
    std::vector<double> volume_, depth_;  ///< per cell, from the grid (volume(m), centre_depth(m))
    NncArrays nnc_;                       ///< the connections' layout (K = 1), by cell row
    std::vector<double> nnc_t_;           ///< each entry's transmissibility
    std::vector<RelPerm> relperms_;       ///< the saturation regions', region 1 first
    std::vector<EndPoints> end_points_;   ///< each cell's (rock's, else its table's); or empty
};

}  // namespace heptane::grid
