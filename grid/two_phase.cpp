#include "grid/two_phase.hpp"

#include <array>

#include "core/base/errors.hpp"
#include "core/base/units.hpp"
#include "grid/dual.hpp"

namespace heptane::grid {
namespace {

/// Transmissibility of the face between cell m and its neighbour across diagonal d.
double face_transmissibility(const Transmissibilities& t, index_t m, index_t n, int d) {
    switch (d) {
        case 0:
            return t.tx[n];
        case 1:
            return t.ty[n];
        case 2:
            return t.tz[n];
        case 4:
            return t.tz[m];
        case 5:
            return t.ty[m];
        case 6:
            return t.tx[m];
        default:
            return 0.0;
    }
}

}  // namespace

TwoPhaseCells::TwoPhaseCells(const Grid3D& grid, const RockFields& rock,
                             const TwoPhaseParams& params)
    : grid_(grid), rock_(rock), params_(params), trans_(tpfa_transmissibilities(grid, rock)) {}

void TwoPhaseCells::assemble(const CellState& x, const CellState& x_old, double dt,
                             std::vector<double>& res, GHMatrix* jac) const {
    const index_t M = grid_.num_cells();
    if (jac != nullptr && (jac->block_size() != 2 || jac->num_cells() != M)) {
        throw NotSupported("TwoPhaseCells::assemble: Jacobian must be K = 2 on the same grid");
    }
    res.assign(static_cast<std::size_t>(2 * M), 0.0);
    const TwoPhaseParams& prm = params_;
    const double ps = units::kPressureScale;
    const double p_ref = prm.reference_pressure;
    // Mass rate [kg/s] -> scaled volume rate [m^3/day] per phase.
    const std::array<double, 2> scale = {units::kTimeScale / prm.oil.density,
                                         units::kTimeScale / prm.water.density};
    const auto off = stencil_offsets(grid_.ny, grid_.nz);
    // The accumulation term's blocks (for CPR's true-IMPES weights), layout of the centre.
    double* acc_block = jac != nullptr ? jac->accumulation_for_writing().data() : nullptr;
    const auto acc_at = [&](index_t m, int r, int c) -> double& {
        return acc_block[(r * 2 + c) * M + m];
    };

#pragma omp parallel for schedule(static)
    for (index_t m = 0; m < M; ++m) {
        if (jac != nullptr) {
            for (int d = 0; d < kStencilSize; ++d)
                for (int r = 0; r < 2; ++r)
                    for (int c = 0; c < 2; ++c) jac->at(d, m, r, c) = 0.0;
        }
        // An inactive cell: residual 0, identity block (its neighbours' faces have T = 0).
        if (!rock_.is_active(m)) {
            if (jac != nullptr) {
                jac->at(kCenter, m, 0, 0) = jac->at(kCenter, m, 1, 1) = 1.0;
                for (int r = 0; r < 2; ++r)
                    for (int c = 0; c < 2; ++c) acc_at(m, r, c) = r == c ? 1.0 : 0.0;
            }
            continue;
        }
        const double pore_factor = grid_.volume(m) / dt;
        // Accumulation: V/dt [(phi rho_a S_a)(x) - (phi rho_a S_a)(x_old)].
        using D2 = Dual<2>;
        const D2 p = D2::variable(x.p[m], kPressure, ps);
        const D2 sw = D2::variable(x.sw[m], kSaturation);
        const D2 phi = rock_porosity(rock_.porosity[m], prm.rock_compressibility, p, p_ref);
        const double phi_old =
            rock_porosity(rock_.porosity[m], prm.rock_compressibility, x_old.p[m], p_ref);
        for (int a = 0; a < 2; ++a) {
            const PhaseProperties& ph = phase_props(prm, a);
            const D2 s = a == kWater ? sw : 1.0 - sw;
            const double s_old = a == kWater ? x_old.sw[m] : 1.0 - x_old.sw[m];
            const D2 acc = pore_factor * (phi * phase_density(ph, p, p_ref) * s -
                                          phi_old * phase_density(ph, x_old.p[m], p_ref) * s_old);
            const D2 r = acc * scale[a];
            res[2 * m + a] += r.v;
            if (jac != nullptr) {
                for (int c = 0; c < 2; ++c) {
                    jac->at(kCenter, m, a, c) += r.d[c];
                    acc_at(m, a, c) = r.d[c];
                }
            }
        }
        // Fluxes through the six faces, upstream mobility, gravity.
        for (int d = 0; d < kStencilSize; ++d) {
            if (d == kCenter) continue;
            if (!stencil_has_neighbour(grid_.nx, grid_.ny, grid_.nz, m, d)) continue;
            const index_t n = m + off[d];
            const double t = face_transmissibility(trans_, m, n, d);
            if (t == 0.0) continue;
            const double dz = grid_.centre_depth(m) - grid_.centre_depth(n);  // z_m - z_n
            using D4 = Dual<4>;  // d/d (p_m, S_w m, p_n, S_w n)
            const D4 pm = D4::variable(x.p[m], 0, ps), swm = D4::variable(x.sw[m], 1);
            const D4 pn = D4::variable(x.p[n], 2, ps), swn = D4::variable(x.sw[n], 3);
            for (int a = 0; a < 2; ++a) {
                const PhaseProperties& ph = phase_props(prm, a);
                const D4 rho_m = phase_density(ph, pm, p_ref);
                const D4 rho_n = phase_density(ph, pn, p_ref);
                const D4 dphi = pm - pn - 0.5 * (rho_m + rho_n) * (prm.gravity * dz);
                const D4 mob = value(dphi) >= 0.0 ? rho_m * phase_mobility(prm, a, swm)
                                                  : rho_n * phase_mobility(prm, a, swn);
                const D4 flux = (t * scale[a]) * mob * dphi;
                res[2 * m + a] += flux.v;
                if (jac != nullptr) {
                    for (int c = 0; c < 2; ++c) {
                        jac->at(kCenter, m, a, c) += flux.d[c];
                        jac->at(d, m, a, c) += flux.d[2 + c];
                    }
                }
            }
        }
    }
}

CellState TwoPhaseCells::equilibrium_state(double p_datum, double z_datum, double sw) const {
    const PhaseProperties& oil = params_.oil;
    const double p_ref = params_.reference_pressure;
    const double g = params_.gravity;
    // p_b = p_a + (rho(p_a) + rho(p_b)) / 2 g (z_b - z_a), solved for p_b by fixed point:
    // the map contracts by c rho g |dz| / 2 (~1e-5 per 10 m), so a few sweeps reach rounding.
    auto step = [&](double p_a, double z_a, double z_b) {
        double p_b = p_a;
        for (int it = 0; it < 50; ++it) {
            const double next =
                p_a + 0.5 * (phase_density(oil, p_a, p_ref) + phase_density(oil, p_b, p_ref)) * g *
                          (z_b - z_a);
            if (next == p_b) break;
            p_b = next;
        }
        return p_b;
    };
    // Column by column (cells can have their own depths), top down from the datum.
    CellState s;
    const index_t M = grid_.num_cells();
    s.p.resize(static_cast<std::size_t>(M));
    s.sw.assign(static_cast<std::size_t>(M), sw);
#pragma omp parallel for schedule(static)
    for (index_t column = 0; column < grid_.num_columns(); ++column) {
        const index_t top = column * grid_.nz;
        s.p[top] = step(p_datum, z_datum, grid_.centre_depth(top));
        for (index_t m = top + 1; m < top + grid_.nz; ++m)
            s.p[m] = step(s.p[m - 1], grid_.centre_depth(m - 1), grid_.centre_depth(m));
    }
    return s;
}

}  // namespace heptane::grid
