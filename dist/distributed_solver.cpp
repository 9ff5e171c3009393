#include "dist/distributed_solver.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/names.hpp"
#include "core/precond/block_smoothers.hpp"
#include "dist/distributed_gh.hpp"

namespace heptane::dist {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

/// A cell- or column-local preconditioner of the slab, on this rank's local vectors.
class SlabPreconditioner final : public Preconditioner {
  public:
    SlabPreconditioner(const DistributedGH& D, const SolverSettings& s)
        : D_(D),
          M_(make_preconditioner(D.slab(), s)),
          r_(static_cast<std::size_t>(D.slab().rows())),
          z_(r_.size()) {}
    void apply(const double* r, double* z) const override { run(r, z, false); }
    void apply_transpose(const double* r, double* z) const override { run(r, z, true); }
    void update(const GHMatrix& slab) override { M_->update(slab); }

  private:
    void run(const double* r, double* z, bool transpose) const {
        D_.to_slab(r, r_.data());
        transpose ? M_->apply_transpose(r_.data(), z_.data()) : M_->apply(r_.data(), z_.data());
        D_.from_slab(z_.data(), z);
    }
    const DistributedGH& D_;
    std::unique_ptr<Preconditioner> M_;
    mutable std::vector<double> r_, z_;
};

class DistributedSolver final : public LinearSolver {
  public:
    DistributedSolver(const SolverSettings& s, const GHMatrix& A, MPI_Comm comm) : s_(s) {
        const auto t0 = Clock::now();
        D_ = std::make_unique<DistributedGH>(A, comm, s_.method == Method::qmr);
        if (s_.preconditioner != PreconditionerKind::none)
            M_ = std::make_unique<SlabPreconditioner>(*D_, s_);
        int ranks = 1;
        MPI_Comm_size(comm, &ranks);
        info_.backend = "cpu";
        info_.kernel = "reference over " + std::to_string(ranks) + " MPI ranks";
        info_.cost = s_.method == Method::qmr ? qmr_cpu_cost() : bicgstab_cpu_cost();
        info_.bytes_per_iteration = iteration_bytes(s_.method, s_.preconditioner, s_.block_shape, A,
                                                    GHOperator(A).minimal_bytes(), info_.cost);
        info_.counts.matrix_uploads = info_.counts.factorizations = 1;
        info_.setup_seconds = seconds_since(t0);
    }

    void update_values(const GHMatrix& A) override {
        const auto t0 = Clock::now();
        D_->update(A);
        if (M_) {
            M_->update(D_->slab());
            ++info_.counts.factorizations;
        }
        ++info_.counts.matrix_uploads;
        info_.update_seconds = seconds_since(t0);
    }

    SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                      const SolveOptions& options) override {
        const auto t0 = Clock::now();
        const std::vector<double> b_mine = D_->local(b);
        std::vector<double> x_mine = D_->local(x);
        SolveOptions o = options;
        o.distribution = D_.get();
        const SolveResult r = s_.method == Method::qmr
                                  ? qmr(*D_, b_mine.data(), x_mine.data(), o, M_.get())
                                  : bicgstab(*D_, b_mine.data(), x_mine.data(), o, M_.get());
        x = D_->gather(x_mine);
        info_.solve_seconds = seconds_since(t0);
        return r;
    }

    SolverInfo info() const override { return info_; }

  private:
    SolverSettings s_;
    std::unique_ptr<DistributedGH> D_;
    std::unique_ptr<Preconditioner> M_;
    SolverInfo info_;
};

}  // namespace

bool distributed_supports(const SolverSettings& s, std::string* why) {
    std::string reason;
    if (s.method != Method::bicgstab && s.method != Method::qmr) {
        reason = std::string("method ") + to_string(s.method) +
                 " does not run over MPI ranks yet (bicgstab and qmr do)";
    } else if (s.preconditioner != PreconditionerKind::none &&
               s.preconditioner != PreconditionerKind::point_block_jacobi &&
               s.preconditioner != PreconditionerKind::line_jacobi) {
        reason = std::string("preconditioner ") + to_string(s.preconditioner) +
                 " does not run over MPI ranks yet (none, point_block_jacobi and line_jacobi do)";
    }
    if (why != nullptr) *why = reason;
    return reason.empty();
}

std::unique_ptr<LinearSolver> make_distributed_solver(const SolverSettings& settings,
                                                      const GHMatrix& A, MPI_Comm comm) {
    std::string why;
    if (!distributed_supports(settings, &why)) throw NotSupported(why);
    return std::make_unique<DistributedSolver>(settings, A, comm);
}

}  // namespace heptane::dist
