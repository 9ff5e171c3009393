#pragma once
/// @file The solver object (issue 16; the pattern of OPM's GPU linear solvers and Ginkgo):
/// made once from the settings and a matrix, refreshed per Newton step by update_values(A)
/// (new values, same structure: the preconditioner is re-factored, nothing is re-planned or
/// re-allocated), run by solve(b, x) as often as needed, described by info(). The CPU
/// reference (make_cpu_solver, here) and the GPU solvers (gpu/solver.hpp, gpu::make_solver)
/// implement the same interface, so a simulation loop does not care where it solves.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/krylov/krylov.hpp"
#include "core/krylov/solver_settings.hpp"
#include "core/matrix/formats.hpp"
#include "core/matrix/gh_matrix.hpp"

namespace heptane {

/// What a solver object has done since it was made. Tests count them to show that
/// update_values and solve re-plan and re-allocate nothing.
struct SetupCounts {
    int plans = 0;           ///< launch plans and CUDA-graph captures (GPU)
    int matrix_uploads = 0;  ///< the matrix values taken in: the first, then one per update
    int factorizations = 0;  ///< preconditioner (or smoother block) factorizations
};

/// What a solver object is and what it costs.
struct SolverInfo {
    std::string backend;  ///< "cpu" or "gpu"
    /// The implementation: "reference" (CPU), "in_kernel (G blocks x T, shared ranges)",
    /// "multi_kernel", "multi_kernel/ksparse", "library/cusparse_bsr", "block_smoother".
    std::string kernel;
    /// Products and vector passes of one iteration as implemented (zero for the smoothers).
    IterationCost cost{0, 0};
    /// Bytes one iteration (smoother: sweep) moves at least, for the effective bandwidth
    /// (design decision 15; iteration_bytes below).
    double bytes_per_iteration = 0.0;
    double setup_seconds = 0.0;   ///< making the object: upload, factor, plan, capture
    double update_seconds = 0.0;  ///< the last update_values (0 before the first)
    /// The preconditioner's part of the last setup or update, where measured apart (the GPU
    /// CPR's setup on the device; 0 elsewhere).
    double preconditioner_setup_seconds = 0.0;
    double solve_seconds = 0.0;  ///< the last solve (device events on the GPU)
    /// Memory the object holds beyond the caller's matrix: device bytes (GPU) or the
    /// preconditioner's factors (CPU).
    std::size_t workspace_bytes = 0;
    SetupCounts counts;
    /// A distributed run (dist/): this rank's wall seconds in the last solve exchanging halo
    /// planes (a GPU rank: the plane copies to and from the host too), joining sums across
    /// the ranks, copying b and x to its GPU and x back (a GPU rank; in solve_seconds), and
    /// gathering the whole x on every rank after it (not in solve_seconds); 0 in one process.
    double halo_seconds = 0.0;
    double reduction_seconds = 0.0;
    double transfer_seconds = 0.0;
    double gather_seconds = 0.0;
    /// How a distributed run's halo planes travel: "mpi" (CPU ranks: host memory through MPI),
    /// "host-staged" (GPU ranks: through pinned host memory and MPI) or "peer" (GPU ranks: the
    /// GPUs write into each other's memory, design decision 58); "" in one process.
    std::string halo_path;
};

/// A solver of A x = b for one matrix structure.
class LinearSolver {
  public:
    virtual ~LinearSolver() = default;
    /// New values of the matrix the object was made for: same grid, K and wells
    /// (std::invalid_argument otherwise). Re-uploads the values and re-factors the
    /// preconditioner in place. The CPU solver keeps a pointer to A: A must outlive the
    /// solver or the next update (the GPU solvers copy it to the device).
    virtual void update_values(const GHMatrix& A) = 0;
    /// Solves A x = b with the current values: x holds the initial guess on entry and the
    /// iterate at exit (both of the system's order). options: tolerance, max_iterations,
    /// max_restarts and progress of this solve. Failing to converge is a result.
    virtual SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                              const SolveOptions& options) = 0;
    virtual SolverInfo info() const = 0;
};

/// A solve that returns the best iterate it passed, not a worse last one (issue 19): when
/// solver.solve(b, x, options) ends unconverged and its recurrence history holds an iterate at
/// least kBestIterateFactor times below the last one's residual, the solve is run again from
/// the same initial guess and stopped at that iteration. The solvers are deterministic (the
/// GPU's give the CPU's bits), so the second run retraces the same iterates; of the two, the
/// iterate with the smaller true residual ||b - A x|| / ||b|| is returned and
/// SolveResult::returned_iteration says which it is. A converged solve costs nothing more; an
/// unconverged one at most a second solve of no more iterations. `iterations`, `status` and
/// `history` stay those of the first run; solve_seconds in info() is the last run's, and
/// first_solve_seconds (when given) receives the first run's.
SolveResult solve_keeping_best(LinearSolver& solver, const std::vector<double>& b,
                               std::vector<double>& x, const SolveOptions& options,
                               double* first_solve_seconds = nullptr);
constexpr double kBestIterateFactor = 2.0;

/// The CPU reference solver of settings.method (bicgstab or qmr with settings.preconditioner,
/// or the block smoothers) on a grid system. A is kept by pointer (see update_values).
/// Factoring a singular block throws InputError at its deck key (core/precond/block_smoothers.hpp).
std::unique_ptr<LinearSolver> make_cpu_solver(const SolverSettings& settings, const GHMatrix& A);

/// The CPU reference BiCGStab or QMR on a square BSR matrix (matrix decks; no preconditioner,
/// no update_values: a Bsr has no GH structure). A is kept by reference.
std::unique_ptr<LinearSolver> make_cpu_solver(const SolverSettings& settings, const Bsr& A);

/// Bytes one iteration of `method` moves at least (design decision 15): the products and
/// vector passes of `cost` with `product_bytes` per product (minimal_bytes of the operator),
/// and one application of the preconditioner per product (BiCGStab: M^-1 twice; QMR: M^-1
/// and M^-T). A smoother sweep as implemented (core/precond/block_smoothers.cpp) is two products
/// (the sweep's residual and the convergence check's true residual), one application of the
/// spatial blocks' inverses and x updated.
double iteration_bytes(Method method, PreconditionerKind preconditioner,
                       std::array<int, 3> block_shape, const GHMatrix& A, double product_bytes,
                       const IterationCost& cost);

}  // namespace heptane
