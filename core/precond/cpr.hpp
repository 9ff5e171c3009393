#pragma once
/// @file CPR (constrained pressure residual) preconditioning, issue 21, CPU reference: the
/// pressure system a GH matrix holds (quasi-IMPES decoupling), a structured aggregation
/// multigrid for it, and the two-stage preconditioner (solver.preconditioner: cpr, its keys
/// solver.cpr); design decision 36. Every step's arithmetic is core/precond/cpr_arith.hpp,
/// which the GPU (gpu/src/precond/cpr.cu) shares: the device gives these bits.
#include <functional>
#include <memory>
#include <vector>

#include "core/base/errors.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/cpr_arith.hpp"
#include "core/precond/cpr_options.hpp"

namespace heptane {

// ---- stage 1's system: the pressure equation of every cell, the wells' equations --------

/// The decoupling weights (cpr::impes_cell): for each cell m the K values w_m with
/// D_m^T w_m = e_0, scaled to max |w_m| = 1 (column 0 is the pressure, for synthetic K > 2
/// the first unknown). Quasi-IMPES: D_m is the cell's diagonal block, so the weighted sum of
/// the cell's equations has no own unknown but its pressure. True-IMPES: D_m is the
/// accumulation term's part of it (A.accumulation()), so the sum's time derivative has no
/// saturation terms, whatever the fluxes do. Returns M K values (cell m's at m K .. m K + K - 1).
/// Throws InputError (solver.preconditioner, naming the cell) for a singular block, and
/// (solver.cpr.weights) for true_impes on a matrix without accumulation blocks.
std::vector<double> decoupling_weights(const GHMatrix& A,
                                       CprWeights weights = CprWeights::quasi_impes);
/// The same into `w` (resized to M K; a Newton step's update allocates nothing).
void decoupling_weights(const GHMatrix& A, CprWeights weights, std::vector<double>& w);
/// The InputError of true_impes on a matrix without accumulation blocks (CPU and GPU).
void check_weights_available(const GHMatrix& A, CprWeights weights);

/// The pressure system of A for `weights`: a K = 1 GH matrix on the same grid with the same
/// well layout, P(m, n) = w_m^T A_mn e_0 over the 7 diagonals and A's non-neighbour
/// connections (P keeps their layout, a value an entry), a cell row's well column
/// w_m^T (d eq_m / d p_bh), a well row's cell columns d eq_w / d p(m) (its row of W,
/// component 0) and D. `P` must have that structure (make it with pressure_structure) and
/// its values are overwritten: a Newton step's update allocates nothing.
void extract_pressure(const GHMatrix& A, const std::vector<double>& weights, GHMatrix& P);

/// A zero K = 1 matrix with A's grid, well layout and connections' layout, for
/// extract_pressure.
GHMatrix pressure_structure(const GHMatrix& A);

// ---- stage 1's solver: structured aggregation multigrid ----------------------------------

/// One level's share of a rank in a distributed cycle: its i-planes [first_plane, end_plane)
/// of that level in the indexing of the level's vectors, and exchange(x), which fills planes
/// first_plane - 1 and end_plane of a vector of that level (cells only) from the neighbouring
/// ranks. origin: plane p of the level's vectors (the rank's slab of the level) is the
/// level's plane p + origin.
struct CprLevelPart {
    int first_plane = 0, end_plane = 0;
    std::function<void(double*)> exchange;
    int origin = 0;
};

/// What one rank of a distributed solve (dist/distributed_cpr.cpp) computes of CPR: the
/// leading levels 0 .. S - 1 (S = levels.size() >= 1) are split over the ranks, each rank its
/// planes of each (no aggregate crosses a boundary) and, on level 0, the wells whose column
/// lies there; gather(b) fills the other ranks' planes of a level-S vector (each rank computed
/// its own), and level S and below run whole on every rank. A split level's matrix and
/// vectors hold only the rank's planes and one halo plane a side (design decision 56; level 0:
/// the rank's slab of the system, the wells of its planes, `wells` all of them and
/// `global_wells` their numbers in the whole system; CprLevelPart::origin where each level's
/// slab starts), nx being level 0's planes in the whole grid.
/// The setup computes each split level's part of each rank alike (level 0: weights, pressure
/// rows, stage 2's inverses; every split level: line pivots, the next level's operator rows,
/// level S's gathered diagonal by diagonal), and agree(error), called by every rank after each
/// part with the InputError it met or null, throws the lowest failing rank's error on every
/// rank (so none is left waiting in a collective). minimum(v, n) replaces v[0..n) on every rank
/// by its element-wise minimum over the ranks (the GPU ranks' setup: the first bad index of
/// each of its checks).
struct CprPlanes {
    std::vector<CprLevelPart> levels;
    std::vector<int> wells;
    int nx = 0;                     ///< level 0's planes in the whole grid
    std::vector<int> global_wells;  ///< the wells' numbers in the whole system
    std::function<void(double*)> gather;
    std::function<void(const InputError*)> agree;
    std::function<void(int*, int)> minimum;
    /// Level l's part, or null where level l runs whole.
    const CprLevelPart* part(int l) const {
        return l < static_cast<int>(levels.size()) ? &levels[static_cast<std::size_t>(l)] : nullptr;
    }
};

/// The coarse grid's dimensions: ceil(n / factor) per axis.
std::array<int, 3> coarse_dims(int nx, int ny, int nz, const std::array<int, 3>& factor);

/// The grids of a hierarchy for an nx x ny x nz level 0: level l's sizes and its factor to
/// level l + 1 (`factor` where an axis can shrink; a single column with factor 1 in k
/// coarsens along k by 2), until a coarse level has at most coarsest_rows cells (level 0,
/// the one with wells and connections, is never the inverted one), or one column is left
/// (nx = ny = 1 and, when the factor's k is not 1, nz = 1), or max_levels. The last level's
/// factor is 1.
std::vector<cpr::LevelGrid> mg_grids(int nx, int ny, int nz, const MgOptions& options);

/// The grids of a hierarchy whose leading levels a rank holds slabs of (planes.nx: level 0's
/// planes in the whole grid): mg_grids of the whole grid, each split level's planes those
/// of its slab (its CprLevelPart, one halo plane a side where a neighbour has one) and sx the
/// slab's place in the next level's aggregation; the levels after the split stay whole.
std::vector<cpr::LevelGrid> mg_slab_grids(const CprPlanes& planes, int ny, int nz,
                                          const MgOptions& options);

/// The Galerkin product R A P of the cell part of A (K = 1; wells ignored) for piecewise-
/// constant aggregation by `factor` (cpr::galerkin_row): coarse (I, J) = the sum of A(m, n)
/// over the fine cells m of I and n of J. Coarse cells are face neighbours only when fine
/// ones are, so the stencil's product is again a 7-point Bdia matrix (no wells); A's
/// non-neighbour connections join aggregates that may be no face neighbours (a fault's
/// throw): each is added where cpr::coarse_face puts it (design decision 66), so C stays
/// 7-point. `C` must have coarse_dims and K = 1.
void galerkin_coarse(const GHMatrix& A, const std::array<int, 3>& factor, GHMatrix& C);

/// Whether a non-neighbour connection of A joins two columns of one red-black colour
/// ((i + j) % 2): red-black Gauss-Seidel then forms each colour's residual before any of its
/// columns changes (CPU and GPU; design decision 66). A slab's planes shift every column's i
/// alike, so a rank's answer is that of its rows.
bool nnc_joins_one_colour(const GHMatrix& A);

/// A structured multigrid hierarchy for a K = 1 GH matrix (the pressure system): level 0 is
/// the matrix itself, wells included; each coarser level aggregates `factor` cells into one
/// (piecewise-constant transfer, a partial aggregate at an odd edge) and is the Galerkin
/// product of the cell part of the level above (the wells stay on level 0: design decision
/// 36), which is again 7-point (level 0's connections projected: galerkin_coarse). Smoother:
/// vertical-line solves (line_jacobi or red-black line_gs; wells by 1 / D), whose residuals
/// include level 0's connections. Coarsest: at most coarsest_rows rows, inverted (dense), or
/// else coarsest_sweeps sweeps (one column without wells: one exact line solve).
class StructuredMg {
  public:
    /// planes: one rank's part of a distributed setup (CprPlanes, A its slab of level 0; null:
    /// the whole).
    StructuredMg(const GHMatrix& A, const MgOptions& options = {},
                 const CprPlanes* planes = nullptr);
    ~StructuredMg();
    StructuredMg(StructuredMg&&) noexcept;
    /// New values of the same structure: the coarse operators and the line pivots are
    /// recomputed in place. Throws InputError at an unusable line pivot.
    void update(const GHMatrix& A, const CprPlanes* planes = nullptr);
    /// x = one cycle on A x = b from x = 0 (a fixed linear operator of b).
    void vcycle(const double* b, double* x) const;
    /// The same on level l's system (level(l) x = b), with the levels below it: the cycle
    /// whose convergence factor is "level l's" (heptane bench cpr).
    void cycle_from(int l, const double* b, double* x) const;
    /// vcycle on one rank's planes (CprPlanes): the entries of its planes of the split levels
    /// are the one-process bits. Needs more levels than are split (std::invalid_argument).
    void vcycle(const double* b, double* x, const CprPlanes& planes) const;

    int levels() const { return static_cast<int>(levels_.size()); }
    /// The operator of level l (0: the matrix given).
    const GHMatrix& level(int l) const;
    /// Level l's line pivot inverses (M values) and its wells' 1 / D.
    const std::vector<double>& pivots(int l) const;
    const std::vector<double>& well_inverses(int l) const;
    /// The coarsest level's inverse (row-major), empty when it is not inverted.
    const std::vector<double>& coarsest_inverse() const;
    const MgOptions& options() const { return options_; }
    /// One smoothing sweep on level l from x (from zero: x is overwritten), the reference of
    /// the device's (tests): `work` has the level's rows.
    void smooth(int l, const double* b, double* x, bool from_zero, double* work) const;

  private:
    struct Level;
    /// planes: level 0 of a distributed cycle (null: the whole level).
    void cycle(int l, const double* b, double* x, const CprPlanes* planes = nullptr) const;
    void sweep(int l, const double* b, double* x, bool from_zero, double* r,
               const CprPlanes* planes) const;
    /// Level l's line pivots, coarsest inverse and wells' 1 / D (planes: a rank's part).
    void set_up_level(int l, const CprPlanes* planes);
    MgOptions options_;
    std::vector<std::unique_ptr<Level>> levels_;
};

// ---- the two stages --------------------------------------------------------------------

/// CPR, combined multiplicatively (Wallis 1983; the two-stage form of OPM and others):
///   x_p = cycle(P, R r)              stage 1: the pressure system's correction
///   x   = E x_p                      into the pressure unknowns and the wells
///   z   = B^{-1} (r - A x) + x       stage 2: point-block Jacobi on what remains
/// R restricts with the weights (r_p(m) = w_m^T r_m, wells as they are), E puts x_p into
/// component 0 of each cell and into the wells; B's blocks are inverted by cpr::invert_cell.
/// P and A E x_p include A's non-neighbour connections (design decision 66).
/// A fixed linear operator of r, so a right preconditioner of BiCGStab. No transpose (QMR):
/// NotSupported.
class CprPreconditioner : public Preconditioner {
  public:
    /// planes: one rank's part of a distributed setup and apply (CprPlanes, A the rank's slab;
    /// null: the whole).
    explicit CprPreconditioner(const GHMatrix& A, const CprOptions& options = {},
                               const CprPlanes* planes = nullptr);
    ~CprPreconditioner() override;
    void apply(const double* r, double* z) const override;
    /// apply on one rank's planes and wells (CprPlanes; r and z the slab's vectors, only that
    /// rank's entries read and written): the one-process bits there.
    void apply(const double* r, double* z, const CprPlanes& planes) const;
    void apply_transpose(const double* r, double* z) const override;
    void update(const GHMatrix& A) override;
    /// The setup again on one rank's part (CprPlanes).
    void update(const GHMatrix& A, const CprPlanes& planes);
    PreconditionerCaps capabilities() const override { return {false, false}; }  // not local

    const std::vector<double>& weights() const { return weights_; }
    const GHMatrix& pressure() const { return pressure_; }
    const StructuredMg& multigrid() const { return *mg_; }
    /// Stage 2's inverses: cell m's K x K block at m K^2 (column-major), then 1 / D per well.
    const std::vector<double>& stage2_inverses() const { return inv_; }

  private:
    void setup(const GHMatrix& A, const CprPlanes* planes);
    void run(const double* r, double* z, const CprPlanes* planes) const;
    const GHMatrix* A_;
    CprOptions options_;
    std::vector<double> weights_;
    GHMatrix pressure_;
    std::unique_ptr<StructuredMg> mg_;
    std::vector<double> inv_;
    mutable std::vector<double> rp_, xp_;
};

/// Stage 2's inverses of A (CprPreconditioner::stage2_inverses) into `inv`. Throws
/// InputError naming the cell for a singular block.
void cpr_stage2_inverses(const GHMatrix& A, std::vector<double>& inv);

}  // namespace heptane
