#include "core/krylov/linear_solver.hpp"

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/base/errors.hpp"
#include "core/matrix/linear_operator.hpp"
#include "core/precond/block_smoothers.hpp"

namespace heptane {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// The reference Krylov solve of `method` (bicgstab or qmr) with right preconditioner M.
SolveResult krylov_solve(Method method, const LinearOperator& op, const std::vector<double>& b,
                         std::vector<double>& x, const SolveOptions& options,
                         const Preconditioner* M) {
    if (b.size() != static_cast<std::size_t>(op.size()) || x.size() != b.size()) {
        throw std::invalid_argument("solve: b and x must have the system's order");
    }
    return method == Method::qmr ? qmr(op, b.data(), x.data(), options, M)
                                 : bicgstab(op, b.data(), x.data(), options, M);
}

IterationCost krylov_cost(Method method) {
    return method == Method::qmr ? qmr_cpu_cost() : bicgstab_cpu_cost();
}

/// The CPU solver of a grid system: BiCGStab / QMR with a preconditioner object, or a block
/// smoother with its spatial blocks' factors.
class CpuGridSolver final : public LinearSolver {
  public:
    CpuGridSolver(const SolverSettings& s, const GHMatrix& A)
        : s_(s), A_(&A), op_(A, !is_smoother(s.method), s.method == Method::qmr) {
        info_.backend = "cpu";
        info_.kernel = "reference";
        info_.cost = is_smoother(s.method) ? IterationCost{0, 0} : krylov_cost(s.method);
        info_.bytes_per_iteration = iteration_bytes(s.method, s.preconditioner, s.block_shape, A,
                                                    GHOperator(A).minimal_bytes(), info_.cost);
        const auto t0 = Clock::now();
        factor();
        info_.setup_seconds = seconds_since(t0);
    }

    void update_values(const GHMatrix& A) override {
        check_same_structure(*A_, A, "update_values");
        const auto t0 = Clock::now();
        A_ = &A;
        op_.update(A);
        if (M_) {
            M_->update(A);
            ++info_.counts.factorizations;
            ++info_.counts.matrix_uploads;
        } else {
            factor();
        }
        info_.update_seconds = seconds_since(t0);
    }

    SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                      const SolveOptions& options) override {
        const auto t0 = Clock::now();
        SolveResult r;
        if (is_smoother(s_.method)) {
            if (b.size() != static_cast<std::size_t>(A_->rows()) || x.size() != b.size()) {
                throw std::invalid_argument("solve: b and x must have the system's order");
            }
            r = block_smoother_solve(s_.method, *A_, blocks_, b.data(), x.data(), options,
                                     s_.omega);
        } else {
            r = krylov_solve(s_.method, op_, b, x, options, M_.get());
        }
        info_.solve_seconds = seconds_since(t0);
        return r;
    }

    SolverInfo info() const override { return info_; }

  private:
    /// The factors of the current values (the first time, and for the smoothers).
    void factor() {
        ++info_.counts.matrix_uploads;
        ++info_.counts.factorizations;
        if (is_smoother(s_.method)) {
            blocks_ = factor_spatial_blocks(*A_, s_.block_shape);
            info_.workspace_bytes = sizeof(double) * (blocks_.inv.size() + blocks_.inv_d.size());
            return;
        }
        M_ = make_preconditioner(*A_, s_);
        info_.workspace_bytes =
            static_cast<std::size_t>(preconditioner_bytes(*A_, s_.preconditioner, s_.block_shape)) +
            op_.workspace_bytes();
    }

    SolverSettings s_;
    const GHMatrix* A_;
    CpuGHOperator op_;  ///< A x cell-major where it pays (K >= 6), the same bits
    std::unique_ptr<Preconditioner> M_;
    SpatialBlockFactors blocks_;
    SolverInfo info_;
};

/// The CPU solver of a BSR matrix (matrix decks).
class CpuBsrSolver final : public LinearSolver {
  public:
    CpuBsrSolver(const SolverSettings& s, const Bsr& A) : method_(s.method), op_(A) {
        if (is_smoother(s.method) || s.preconditioner != PreconditionerKind::none) {
            throw NotSupported(
                "a BSR (matrix deck) system takes bicgstab or qmr, no preconditioner");
        }
        info_.backend = "cpu";
        info_.kernel = "reference";
        info_.cost = krylov_cost(method_);
        info_.bytes_per_iteration =
            info_.cost.products * op_.minimal_bytes() +
            info_.cost.vector_passes * 8.0 * static_cast<double>(op_.size());
        info_.counts.matrix_uploads = 1;
    }
    void update_values(const GHMatrix&) override {
        throw NotSupported("update_values: this solver was made for a BSR matrix, not a GH one");
    }
    SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                      const SolveOptions& options) override {
        const auto t0 = Clock::now();
        SolveResult r = krylov_solve(method_, op_, b, x, options, nullptr);
        info_.solve_seconds = seconds_since(t0);
        return r;
    }
    SolverInfo info() const override { return info_; }

  private:
    Method method_;
    BsrOperator op_;
    SolverInfo info_;
};

}  // namespace

SolveResult solve_keeping_best(LinearSolver& solver, const std::vector<double>& b,
                               std::vector<double>& x, const SolveOptions& options,
                               double* first_solve_seconds) {
    const std::vector<double> x0 = x;
    SolveResult last = solver.solve(b, x, options);
    if (first_solve_seconds != nullptr) *first_solve_seconds = solver.info().solve_seconds;
    const std::vector<double>& h = last.history;
    if (last.status == SolveStatus::converged ||
        h.size() != static_cast<std::size_t>(last.iterations) + 1) {
        return last;
    }
    // The best recurrence residual (NaN never compares smaller; the last is h.back()).
    int best = 0;
    for (std::size_t i = 1; i < h.size(); ++i)
        if (h[i] < h[static_cast<std::size_t>(best)]) best = static_cast<int>(i);
    const double last_residual = std::isfinite(last.relative_residual)
                                     ? last.relative_residual
                                     : std::numeric_limits<double>::infinity();
    if (best == last.iterations ||
        !(h[static_cast<std::size_t>(best)] * kBestIterateFactor <= last_residual)) {
        return last;
    }
    SolveOptions replay = options;
    replay.max_iterations = best;
    replay.progress = nullptr;
    std::vector<double> x_best = x0;
    const SolveResult again = solver.solve(b, x_best, replay);
    if (!(again.true_relative_residual < last.true_relative_residual) &&
        std::isfinite(last.true_relative_residual)) {
        return last;  // the true residuals decide: the last iterate is no worse
    }
    SolveResult out = last;
    out.returned_iteration = again.iterations;
    out.relative_residual = again.relative_residual;
    out.true_relative_residual = again.true_relative_residual;
    out.last_relative_residual = last.relative_residual;
    out.last_true_relative_residual = last.true_relative_residual;
    x.swap(x_best);
    return out;
}

std::unique_ptr<LinearSolver> make_cpu_solver(const SolverSettings& settings, const GHMatrix& A) {
    return std::make_unique<CpuGridSolver>(settings, A);
}

std::unique_ptr<LinearSolver> make_cpu_solver(const SolverSettings& settings, const Bsr& A) {
    return std::make_unique<CpuBsrSolver>(settings, A);
}

double iteration_bytes(Method method, PreconditionerKind preconditioner,
                       std::array<int, 3> block_shape, const GHMatrix& A, double product_bytes,
                       const IterationCost& cost) {
    const double n = static_cast<double>(A.rows());
    if (is_smoother(method)) {
        return 2.0 * product_bytes +
               preconditioner_bytes(A, PreconditionerKind::block_jacobi, block_shape) +
               2.0 * 8.0 * n;
    }
    double bytes = cost.products * product_bytes + cost.vector_passes * 8.0 * n;
    if (preconditioner != PreconditionerKind::none) {
        bytes += cost.products * preconditioner_bytes(A, preconditioner, block_shape);
    }
    return bytes;
}

}  // namespace heptane
