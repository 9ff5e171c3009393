#pragma once
/// @file Reference Krylov solvers (DESIGN section 5): BiCGStab (seed 002, Algorithm 1) and
/// QMR (Freund-Nachtigal without look-ahead, as in Barrett et al., "Templates", Fig. 2.8),
/// OpenMP-parallel, right-preconditioned. Failing to converge is a result, not an exception.
#include <functional>
#include <string>
#include <vector>

#include "core/matrix/linear_operator.hpp"

namespace heptane {
class Distribution;  // core/base/piece_sums.hpp
}

namespace heptane {

enum class SolveStatus { converged, max_iterations, breakdown, non_finite };
const char* to_string(SolveStatus s);

struct SolveResult {
    SolveStatus status = SolveStatus::max_iterations;
    int iterations = 0;  ///< completed iterations
    int restarts = 0;    ///< BiCGStab shadow-residual restarts (see bicgstab)
    /// ||r|| / ||b|| of the recurrence residual at exit (both methods update r explicitly).
    double relative_residual = 0.0;
    /// ||b - A x|| / ||b||, recomputed from x at exit.
    double true_relative_residual = 0.0;
    /// relative_residual after each iteration; entry 0 is the initial residual.
    std::vector<double> history;
    /// QMR only: tau_i / ||b||, the quasi-residual norm (non-increasing by construction);
    /// ||r_i|| <= sqrt(i + 1) tau_i bounds the true residual.
    std::vector<double> quasi_history;
    /// For breakdown / non_finite: which quantity failed, e.g. "rho = (r_hat, r) = 0".
    std::string detail;
    /// solve_keeping_best (core/krylov/linear_solver.hpp): -1 when x is the last iterate;
    /// otherwise x is this earlier, better iterate, relative_residual and
    /// true_relative_residual are its own, and the two below are the last iterate's.
    int returned_iteration = -1;
    double last_relative_residual = 0.0;
    double last_true_relative_residual = 0.0;
};

struct SolveOptions {
    double tolerance = 1.0e-8;  ///< stop when ||r|| / ||b|| <= tolerance
    int max_iterations = 1000;
    /// BiCGStab: restarts allowed after a near-breakdown of rho before breakdown is reported.
    int max_restarts = 10;
    /// Called after every iteration with (iteration, relative residual); may be empty.
    std::function<void(int, double)> progress;
    /// A distributed run (dist/): the vectors are this rank's entries and every sum is taken
    /// across the ranks with the one-process bits. Null: one process.
    const Distribution* distribution = nullptr;
};

/// BiCGStab for A x = b. x holds the initial guess on entry and the iterate at exit.
/// One iteration = 2 products with A (and 2 preconditioner applications).
///
/// Shadow-residual restart: when rho = (r_hat, r) is numerically zero,
/// |rho| <= eps ||r_hat|| ||r|| (r has become orthogonal to r_hat = r_0 to rounding, which
/// happens on two-phase systems whose b is dominated by a few well rows), the solver restarts
/// from the current iterate: r = b - A x (the true residual), r_hat = r, p = r, and counts it
/// in SolveResult::restarts. After options.max_restarts restarts, or with max_restarts = 0,
/// the near-breakdown is reported as status breakdown. A restart is not an iteration.
SolveResult bicgstab(const LinearOperator& A, const double* b, double* x,
                     const SolveOptions& options, const Preconditioner* M = nullptr);

/// QMR for A x = b (products with A and A^T each iteration).
SolveResult qmr(const LinearOperator& A, const double* b, double* x, const SolveOptions& options,
                const Preconditioner* M = nullptr);

/// Vector passes (reads + writes of length-n vectors) of one iteration of each method as
/// implemented here, for effective-bandwidth reports: bytes per iteration =
/// products * A.minimal_bytes() + passes * 8 n.
struct IterationCost {
    int products;  ///< products with A or A^T
    int vector_passes;
};
/// The unfused iteration, one pass per BLAS-1 operation (the proxy's performance model).
IterationCost bicgstab_cost();
IterationCost qmr_cost();
/// The CPU solvers' own iteration (bicgstab() and qmr() here fuse an update with the
/// reductions that read its result; without a preconditioner).
IterationCost bicgstab_cpu_cost();
IterationCost qmr_cpu_cost();

}  // namespace heptane
