#include "sim/newton_linear_solver.hpp"

#include <stdexcept>
#include <utility>

namespace heptane::sim {

NewtonLinearSolver::NewtonLinearSolver(std::unique_ptr<LinearSolver> solver, SolveOptions defaults)
    : solver_(std::move(solver)), defaults_(std::move(defaults)) {
    if (!solver_) throw std::invalid_argument("NewtonLinearSolver: no solver");
    stats_.setup_seconds = solver_->info().setup_seconds;
}

SolveResult NewtonLinearSolver::solve(const GHMatrix& J, const std::vector<double>& rhs,
                                      std::vector<double>& dx, double tolerance) {
    if (!first_) {
        solver_->update_values(J);
        stats_.update_seconds += solver_->info().update_seconds;
    }
    first_ = false;
    SolveOptions options = defaults_;
    if (tolerance > 0.0) options.tolerance = tolerance;
    SolveResult result = solver_->solve(rhs, dx, options);
    ++stats_.solves;
    stats_.iterations += result.iterations;
    if (result.status != SolveStatus::converged) ++stats_.failures;
    stats_.solve_seconds += solver_->info().solve_seconds;
    return result;
}

}  // namespace heptane::sim
