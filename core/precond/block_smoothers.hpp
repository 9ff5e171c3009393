#pragma once
/// @file Block preconditioners and block smoothers (seed 003; DESIGN section 5), the CPU
/// reference. Every variant inverts diagonal blocks of GH exactly (LU with partial pivoting,
/// precomputed once; every block has its own factors: variable coefficients):
///  - point-block Jacobi: the K x K diagonal block of each cell;
///  - vertical-line Jacobi: the block tridiagonal matrix of each (i, j) column (diagonals
///    2, 3, 4), solved by block Thomas with precomputed pivot inverses (the k-fastest order
///    makes a column contiguous; the strongest coupling in reservoir grids is vertical);
///  - spatial-block Jacobi / Gauss-Seidel: blocks of bx x by x bz cells, each block's dense
///    matrix inverted (seed 003's A_b^{-1}, applied as a dgemv), edge blocks smaller.
/// Well rows are scaled by 1 / D in all of them (their couplings are left to the Krylov
/// solver). The per-block arithmetic is core/precond/block_arith.hpp, shared with the GPU.
#include <array>
#include <memory>
#include <vector>

#include "core/base/errors.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/solver_settings.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/block_arith.hpp"

namespace heptane {

/// Point-block Jacobi factors: inv[m K^2 + c K + r] = (A_mm^{-1})(r, c) (column-major per
/// cell); inv_d[w] = 1 / D[w].
struct PointBlockFactors {
    int K = 0;
    index_t cells = 0;
    std::vector<double> inv;
    std::vector<double> inv_d;
};

/// Vertical-line factors: pivot inverses P_k^{-1} of block Thomas (core/precond/block_arith.hpp
/// line_solve), pinv[m K^2 + c K + r] for cell m; inv_d[w] = 1 / D[w].
struct LineFactors {
    int K = 0;
    index_t cells = 0;
    std::vector<double> pinv;
    std::vector<double> inv_d;
};

/// A partition of the grid into spatial blocks of shape (bx, by, bz) (block_arith.hpp
/// spatial_block: bk fastest; edge blocks clipped).
struct SpatialBlocking {
    std::array<int, 3> grid{0, 0, 0};   ///< nx, ny, nz
    std::array<int, 3> shape{1, 1, 1};  ///< bx, by, bz (clipped to the grid)
    std::array<int, 3> count{0, 0, 0};  ///< blocks per axis: ceil(n / b)
    index_t blocks() const { return static_cast<index_t>(count[0]) * count[1] * count[2]; }
    block::SpatialBlock block(index_t b) const {
        return block::spatial_block(b, shape[0], shape[1], shape[2], count[1], count[2], grid[0],
                                    grid[1], grid[2]);
    }
};
/// @throws InputError("solver.block_shape", ...) for a shape entry < 1
SpatialBlocking make_blocking(int nx, int ny, int nz, std::array<int, 3> shape);

/// Spatial-block factors: block b's column-major inverse (n_b = cells_b K rows) at
/// inv[offset[b]], n_b^2 values; inv_d[w] = 1 / D[w].
struct SpatialBlockFactors {
    SpatialBlocking blocking;
    int K = 0;
    std::vector<index_t> offset;  ///< blocks + 1 entries
    std::vector<double> inv;
    std::vector<double> inv_d;
    /// Largest block order n_b (rows of the biggest block).
    int max_rows = 0;
};

/// Factor the diagonal blocks. A singular block (or pivot of the line Thomas algorithm) is an
/// InputError at key "solver.preconditioner" (or "solver.block_shape" for spatial blocks)
/// naming the cell (i, j, k) or block; storage above `max_bytes` is an InputError at
/// "solver.block_shape" (spatial blocks need M K (bx by bz K) values).
PointBlockFactors factor_point_blocks(const GHMatrix& A);
/// The errors factor_point_blocks throws (the device's factorization throws the same): cell m
/// of an nx x ny x nz grid has a singular diagonal block; well w has diagonal D = d.
InputError point_block_singular(int nx, int ny, int nz, index_t m);
InputError well_diagonal_zero(std::size_t w, double d);
LineFactors factor_lines(const GHMatrix& A);
/// The error factor_lines throws (the device's factorization throws the same): the pivot
/// block of cell m's vertical-line solve is singular.
InputError line_pivot_singular(int nx, int ny, int nz, index_t m);
SpatialBlockFactors factor_spatial_blocks(const GHMatrix& A, std::array<int, 3> shape,
                                          double max_bytes = 16.0e9);

/// z = M^{-1} r (apply) and z = M^{-T} r (apply_transpose, QMR) for each kind. Each is made
/// once from a matrix and keeps a pointer to it (the matrix must outlive the preconditioner,
/// or the next update()); update(A) takes new values of the same structure and re-factors.
class PointBlockJacobi : public Preconditioner {
  public:
    explicit PointBlockJacobi(const GHMatrix& A) : A_(&A), f_(factor_point_blocks(A)) {}
    void apply(const double* r, double* z) const override;
    void apply_transpose(const double* r, double* z) const override;
    void update(const GHMatrix& A) override;
    /// Cell-local: the in-kernel BiCGStab fuses it for K a power of two (decision 27).
    PreconditionerCaps capabilities() const override { return {true, true}; }
    const PointBlockFactors& factors() const { return f_; }

  private:
    const GHMatrix* A_;
    PointBlockFactors f_;
};

class LineJacobi : public Preconditioner {
  public:
    explicit LineJacobi(const GHMatrix& A) : A_(&A), f_(factor_lines(A)) {}
    void apply(const double* r, double* z) const override;
    void apply_transpose(const double* r, double* z) const override;
    void update(const GHMatrix& A) override;
    const LineFactors& factors() const { return f_; }

  private:
    const GHMatrix* A_;
    LineFactors f_;
};

class SpatialBlockJacobi : public Preconditioner {
  public:
    SpatialBlockJacobi(const GHMatrix& A, std::array<int, 3> shape)
        : A_(&A), shape_(shape), f_(factor_spatial_blocks(A, shape)) {}
    void apply(const double* r, double* z) const override;
    void apply_transpose(const double* r, double* z) const override;
    void update(const GHMatrix& A) override;
    const SpatialBlockFactors& factors() const { return f_; }

  private:
    const GHMatrix* A_;
    std::array<int, 3> shape_;
    SpatialBlockFactors f_;
};

/// The preconditioner of settings.preconditioner (block_shape for block_jacobi); none gives
/// an IdentityPreconditioner.
std::unique_ptr<Preconditioner> make_preconditioner(const GHMatrix& A,
                                                    const SolverSettings& settings);

/// Bytes the preconditioner of `kind` moves per application at least (its factors, r and z
/// once; Bdia's diagonals 2 and 4 for the line solve), for throughput reports.
double preconditioner_bytes(const GHMatrix& A, PreconditionerKind kind, std::array<int, 3> shape);

// ---- block smoothers as solvers (seed 003 Algorithms 1-3) -------------------------------

/// One damped block Jacobi sweep (seed 003 Algorithm 3): x = x + omega M_b^{-1} (b - A x),
/// M_b the spatial blocks' diagonal; well rows x_w += omega (b - A x)_w / D_w. `work` has
/// A.rows() entries.
void block_jacobi_sweep(const GHMatrix& A, const SpatialBlockFactors& F, const double* b, double* x,
                        double omega, double* work);

/// One block Gauss-Seidel sweep (seed 003 Algorithm 1, deterministic: the blocks in
/// order b = 0, 1, ..., each block's residual taken with the x of the blocks before it):
/// x_b = x_b + omega A_b^{-1} (b - A x)_b; then the well rows as in block_jacobi_sweep.
void block_gs_sweep(const GHMatrix& A, const SpatialBlockFactors& F, const double* b, double* x,
                    double omega);

/// Sweeps of `method` (block_jacobi or block_gs) until ||b - A x|| / ||b|| <= tolerance or
/// max_iterations sweeps: iterations = sweeps, history[k] = the true relative residual after
/// k sweeps (entry 0: the initial guess). A residual that grows to a non-finite value ends
/// with status non_finite.
SolveResult block_smoother_solve(Method method, const GHMatrix& A, const SpatialBlockFactors& F,
                                 const double* b, double* x, const SolveOptions& options,
                                 double omega);

/// The 3D Poisson matrix of seed 003 (equation 2): 6 on the diagonal, -1 to each of the 6
/// neighbours inside the grid (homogeneous Dirichlet outside), K = 1, no wells.
GHMatrix poisson_matrix(int nx, int ny, int nz);

}  // namespace heptane
