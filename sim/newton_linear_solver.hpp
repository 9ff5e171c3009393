#pragma once
/// @file The linear stage of a Newton loop (issue 16: the interface the simulator of issue
/// 17 calls). A simulation makes one solver object for the first Jacobian's structure
/// (core/krylov/linear_solver.hpp: make_cpu_solver, gpu::make_solver, or app's deck factory) and
/// hands every Newton step's Jacobian to it: the values are updated, never re-planned.
/// NewtonLinearSolver keeps the totals a simulation reports per time step.
#include <memory>
#include <vector>

#include "core/krylov/krylov.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/matrix/gh_matrix.hpp"

namespace heptane::sim {

/// Totals of a run of linear solves (a time step's or a simulation's linear columns).
struct LinearStats {
    int solves = 0;
    long long iterations = 0;
    int failures = 0;             ///< solves that ended other than converged
    double setup_seconds = 0.0;   ///< making the solver object (once)
    double update_seconds = 0.0;  ///< update_values, summed
    double solve_seconds = 0.0;   ///< solve, summed
};

/// The linear solver of a Newton loop.
class NewtonLinearSolver {
  public:
    /// `solver` was made from the first Jacobian; `defaults` are the per-solve options
    /// (tolerance, max_iterations, max_restarts, progress).
    NewtonLinearSolver(std::unique_ptr<LinearSolver> solver, SolveOptions defaults);

    /// dx for J dx = rhs (dx: the initial guess in, the step out). The first call solves with
    /// the values the solver was made from; every later call first takes J's values
    /// (update_values: same structure, std::invalid_argument otherwise). tolerance > 0
    /// replaces the default for this step (a Newton loop's forcing term); non-convergence is
    /// counted in stats().failures and returned, not thrown.
    SolveResult solve(const GHMatrix& J, const std::vector<double>& rhs, std::vector<double>& dx,
                      double tolerance = 0.0);

    const LinearStats& stats() const { return stats_; }
    const LinearSolver& solver() const { return *solver_; }

  private:
    std::unique_ptr<LinearSolver> solver_;
    SolveOptions defaults_;
    bool first_ = true;
    LinearStats stats_;
};

}  // namespace heptane::sim
