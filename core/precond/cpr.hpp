#pragma once
/// @file CPR (constrained pressure residual) preconditioning, issue 21, CPU reference, first
/// part: the pressure system a GH matrix holds (quasi-IMPES decoupling), a structured
/// aggregation multigrid for it, and the two-stage preconditioner (solver.preconditioner:
/// cpr, CPU only; its keys and the GPU come next); design decision 36.
#include <array>
#include <memory>
#include <vector>

#include "core/matrix/gh_matrix.hpp"
#include "core/matrix/linear_operator.hpp"

namespace heptane {

// ---- stage 1's system: the pressure equation of every cell, the wells' equations --------

/// Quasi-IMPES weights: for each cell m the K values w_m with D_m^T w_m = e_0, D_m the cell's
/// diagonal block (column 0 is the pressure, for synthetic K > 2 the first unknown). Then
/// w_m^T D_m = e_0^T: the weighted sum of the cell's equations has pressure coefficient 1 on
/// its own cell and no other own unknown (what remains couples it to the neighbours'
/// unknowns, which stage 1 keeps only the pressures of). K = 1: w = 1 / D. Returns M K
/// values (cell m's at m K .. m K + K - 1). Throws InputError (solver.preconditioner, naming
/// the cell) for a singular diagonal block.
std::vector<double> quasi_impes_weights(const GHMatrix& A);
/// The same into `w` (resized to M K; a Newton step's update allocates nothing).
void quasi_impes_weights(const GHMatrix& A, std::vector<double>& w);

/// The pressure system of A for `weights`: a K = 1 GH matrix on the same grid with the same
/// well layout, P(m, n) = w_m^T A_mn e_0 over the 7 diagonals, a cell row's well column
/// w_m^T (d eq_m / d p_bh), a well row's cell columns d eq_w / d p(m) (its row of W,
/// component 0) and D. `P` must have that structure (make it with pressure_structure) and
/// its values are overwritten: a Newton step's update allocates nothing.
void extract_pressure(const GHMatrix& A, const std::vector<double>& weights, GHMatrix& P);

/// A zero K = 1 matrix with A's grid and well layout, for extract_pressure.
GHMatrix pressure_structure(const GHMatrix& A);

// ---- stage 1's solver: structured aggregation multigrid ----------------------------------

struct MgOptions {
    /// Cells aggregated per coarse cell along (i, j, k); the default coarsens horizontally
    /// only: the vertical couplings (dz << dx in reservoirs) are taken by the line smoother.
    std::array<int, 3> factor{2, 2, 1};
    int max_levels = 12;
    int coarsest_cells = 400;  ///< at most this many cells: a dense LU solve
    int pre_sweeps = 1, post_sweeps = 1;
    /// Damping of the vertical-line Jacobi smoother: undamped, it leaves the highest
    /// horizontal frequency (a checkerboard in i, j) as it is; 0.8 damps it (Poisson 32^3:
    /// V-cycle factor 0.92 at 1.0, 0.79 at 0.8, tests/core/cpr_test.cpp).
    double omega = 0.8;
    /// The coarse correction is added times this (over-correction: piecewise-constant
    /// aggregation's Galerkin operator is too stiff for smooth errors, so its correction is
    /// too small; Blaheta 1986, Braess 1995).
    double coarse_scale = 1.0;
};

/// A structured multigrid hierarchy for a K = 1 GH matrix (the pressure system): level 0 is
/// the matrix itself, wells included; each coarser level aggregates `factor` cells into one
/// (piecewise-constant transfer, a partial aggregate at an odd edge) and is the Galerkin
/// product R A P of the cell part of the level above (the wells stay on level 0: design
/// decision 36), which is again 7-point. Smoother: damped vertical-line block Jacobi
/// (LineJacobi, wells by 1 / D). Coarsest: dense LU.
class StructuredMg {
  public:
    StructuredMg(const GHMatrix& A, const MgOptions& options = {});
    ~StructuredMg();
    StructuredMg(StructuredMg&&) noexcept;
    /// New values of the same structure: the coarse operators, smoothers and the coarsest LU
    /// are recomputed in place.
    void update(const GHMatrix& A);
    /// x = one V-cycle on A x = b from x = 0 (a fixed linear operator of b).
    void vcycle(const double* b, double* x) const;

    int levels() const { return static_cast<int>(levels_.size()); }
    /// The operator of level l (0: the matrix given).
    const GHMatrix& level(int l) const;

  private:
    struct Level;
    struct Coarsest;
    void cycle(int l, const double* b, double* x) const;
    MgOptions options_;
    std::vector<std::unique_ptr<Level>> levels_;
    std::unique_ptr<Coarsest> coarsest_;
};

/// The coarse grid's dimensions: ceil(n / factor) per axis.
std::array<int, 3> coarse_dims(int nx, int ny, int nz, const std::array<int, 3>& factor);

/// The Galerkin product R A P of the cell part of A (K = 1; wells ignored) for piecewise-
/// constant aggregation by `factor`: coarse (I, J) = the sum of A(m, n) over the fine cells
/// m of I and n of J. Coarse cells are face neighbours only when fine ones are, so the
/// result is again a 7-point Bdia matrix (no wells); `C` must have coarse_dims and K = 1.
void galerkin_coarse(const GHMatrix& A, const std::array<int, 3>& factor, GHMatrix& C);

// ---- the two stages --------------------------------------------------------------------

/// CPR, combined multiplicatively (Wallis 1983; the two-stage form of OPM and others):
///   x_p = V-cycle(P, R r)            stage 1: the pressure system's correction
///   x   = E x_p                      into the pressure unknowns and the wells
///   z   = x + B^{-1} (r - A x)       stage 2: point-block Jacobi on what remains
/// R restricts with the quasi-IMPES weights (r_p(m) = w_m^T r_m, wells as they are), E puts
/// x_p into component 0 of each cell and into the wells. A fixed linear operator of r, so a
/// right preconditioner of BiCGStab. No transpose (QMR): NotSupported.
class CprPreconditioner : public Preconditioner {
  public:
    explicit CprPreconditioner(const GHMatrix& A, const MgOptions& options = {});
    ~CprPreconditioner() override;
    void apply(const double* r, double* z) const override;
    void apply_transpose(const double* r, double* z) const override;
    void update(const GHMatrix& A) override;
    PreconditionerCaps capabilities() const override { return {false, false}; }  // not local

    const GHMatrix& pressure() const { return pressure_; }
    const StructuredMg& multigrid() const { return *mg_; }

  private:
    const GHMatrix* A_;
    std::vector<double> weights_;
    GHMatrix pressure_;
    std::unique_ptr<StructuredMg> mg_;
    std::unique_ptr<Preconditioner> stage2_;
    mutable std::vector<double> rp_, xp_, x_, s_;
};

}  // namespace heptane
