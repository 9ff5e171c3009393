#include "dist/distributed_solver.hpp"

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

#include <algorithm>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "core/base/errors.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/names.hpp"
#include "core/precond/block_smoothers.hpp"
#include "dist/distributed_cpr.hpp"
#include "dist/distributed_gh.hpp"
#include "dist/mpi_sum.hpp"
#include "gpu/device.hpp"
#include "gpu/slab_solver.hpp"

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

/// A preconditioner whose blocks span several planes (spatial block Jacobi), built on the
/// rank's own planes: the split keeps its blocks whole (DistributedGH's granularity), so they are
/// the one-process blocks, and its vectors are the rank's local vectors.
class OwnPlanesPreconditioner final : public Preconditioner {
  public:
    OwnPlanesPreconditioner(const DistributedGH& D, const SolverSettings& s)
        : D_(D), own_(D.own_planes()), M_(make_preconditioner(own_, s)) {}
    void apply(const double* r, double* z) const override { M_->apply(r, z); }
    void apply_transpose(const double* r, double* z) const override { M_->apply_transpose(r, z); }
    void update(const GHMatrix&) override {
        own_ = D_.own_planes();
        M_->update(own_);
    }

  private:
    const DistributedGH& D_;
    GHMatrix own_;
    std::unique_ptr<Preconditioner> M_;
};

/// This rank's node-local rank (ranks sharing a node, in rank order).
int node_rank(MPI_Comm comm) {
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int rank = 0;
    MPI_Comm_rank(node, &rank);
    MPI_Comm_free(&node);
    return rank;
}

/// Makes this rank's DistributedGH (transpose, cpu_product).
using MakeSlab = std::function<std::unique_ptr<DistributedGH>(bool, bool)>;

class DistributedSolver final : public LinearSolver {
  public:
    /// whole: the whole system every rank passed; null: the rank generated its slab itself,
    /// and solve() takes and returns this rank's local vectors, not the whole ones.
    DistributedSolver(const SolverSettings& s, const MakeSlab& make_slab, MPI_Comm comm, bool gpu,
                      const GHMatrix* whole)
        : s_(s), local_(whole == nullptr) {
        const auto t0 = Clock::now();
        int ranks = 1;
        MPI_Comm_size(comm, &ranks);
        const bool cpr = s_.preconditioner == PreconditionerKind::cpr;
        if (gpu) {  // one GPU per rank of a node; the slab and its vectors on it
            const int device = gpu::select_device(node_rank(comm));
            D_ = make_slab(false, false);
            // A GPU rank gathers the levels too small to pay for their exchanges (decision 61).
            if (cpr) split_ = std::make_unique<CprSplit>(*D_, s_.cpr, comm, kGpuSplitMinCells);
            gpu_ = gpu::make_slab_solver(s_, D_->slab(), D_->layout(), *D_,
                                         split_ ? &split_->planes() : nullptr);
            info_ = gpu_->info();
            info_.halo_path = gpu_->halos();
            info_.kernel += " over " + std::to_string(ranks) + " MPI ranks (device " +
                            std::to_string(device) + ", " +
                            (info_.halo_path == "peer" ? "peer halos: CUDA IPC, device flags"
                                                       : "host-staged halos") +
                            (gpu_->joins() == "device" ? "; sums joined on the devices"
                                                       : "; sums joined through the host") +
                            "; " +
                            (mpi_cuda_aware() ? "the MPI library reports CUDA support, unused"
                                              : "the MPI library is not CUDA-aware") +
                            ")";
        } else {
            D_ = make_slab(s_.method == Method::qmr, true);
            if (cpr) {  // on the slab (design decision 56)
                split_ = std::make_unique<CprSplit>(*D_, s_.cpr, comm);
                M_ = std::make_unique<DistributedCpr>(*D_, *split_, s_.cpr);
            } else if (s_.preconditioner == PreconditionerKind::block_jacobi) {
                M_ = std::make_unique<OwnPlanesPreconditioner>(*D_, s_);
            } else if (s_.preconditioner != PreconditionerKind::none) {
                M_ = std::make_unique<SlabPreconditioner>(*D_, s_);
            }
            info_.backend = "cpu";
            info_.kernel = "reference over " + std::to_string(ranks) + " MPI ranks";
            info_.halo_path = "mpi";
            info_.cost = s_.method == Method::qmr ? qmr_cpu_cost() : bicgstab_cpu_cost();
        }
        if (split_) {
            info_.kernel += "; CPR's first " + std::to_string(split_->split_levels()) + " of " +
                            std::to_string(split_->levels()) + " levels split over the ranks";
        }
        // `dropped`: connection values of M's rows that the count leaves out.
        const auto bytes_of = [&](const GHMatrix& M, index_t dropped = 0) {
            return iteration_bytes(s_.method, s_.preconditioner, s_.block_shape, M,
                                   GHOperator(M).minimal_bytes() - 8.0 * dropped, info_.cost);
        };
        if (whole != nullptr) {
            info_.bytes_per_iteration = bytes_of(*whole);
        } else {
            // The whole system's bytes without it. They are affine in the planes, c + nx p (+
            // the wells; c: the two i-boundaries' missing blocks): each rank counts its slab's
            // less its halo planes' h p, and all but rank 0 less c, and the counts are summed.
            // The connections are counted in their rows: the halo rows' are their owners'.
            const GHMatrix& slab = D_->slab();
            const GHMatrix one(1, slab.ny(), slab.nz(), slab.block_size());
            const GHMatrix two(2, slab.ny(), slab.nz(), slab.block_size());
            const double p = bytes_of(two) - bytes_of(one), c = bytes_of(one) - p;
            const int halo = slab.nx() - (D_->end_plane() - D_->first_plane());
            index_t halo_values = 0;
            if (slab.has_nnc()) {
                const std::vector<index_t>& ptr = slab.nnc().ptr;
                const index_t plane = static_cast<index_t>(slab.ny()) * slab.nz();
                const index_t own0 = (D_->first_plane() > 0 ? plane : 0);
                const index_t own1 = own0 + (D_->end_plane() - D_->first_plane()) * plane;
                halo_values =
                    (ptr[own0] + ptr.back() - ptr[own1]) * slab.block_size() * slab.block_size();
            }
            double bytes =
                bytes_of(slab, halo_values) - halo * p - (D_->first_plane() > 0 ? c : 0.0);
            MPI_Allreduce(MPI_IN_PLACE, &bytes, 1, MPI_DOUBLE, MPI_SUM, comm);
            info_.bytes_per_iteration = bytes;
        }
        info_.counts.matrix_uploads = info_.counts.factorizations = 1;
        info_.setup_seconds = seconds_since(t0);
    }

    void update_values(const GHMatrix& A) override {
        const auto t0 = Clock::now();
        local_ ? D_->update_slab(A) : D_->update(A);
        if (gpu_) gpu_->update(D_->slab());
        if (M_) M_->update(D_->slab());
        if (gpu_ || M_) ++info_.counts.factorizations;
        ++info_.counts.matrix_uploads;
        info_.update_seconds = seconds_since(t0);
    }

    SolveResult solve(const std::vector<double>& b, std::vector<double>& x,
                      const SolveOptions& options) override {
        if (local_ && (b.size() != static_cast<std::size_t>(D_->size()) || x.size() != b.size())) {
            throw std::invalid_argument("DistributedSolver::solve: not this rank's local vectors");
        }
        const std::vector<double> b_mine = local_ ? std::vector<double>() : D_->local(b);
        std::vector<double> x_whole_mine = local_ ? std::vector<double>() : D_->local(x);
        const double* bp = local_ ? b.data() : b_mine.data();
        double* xp = local_ ? x.data() : x_whole_mine.data();
        const auto t0 = Clock::now();
        SolveOptions o = options;
        o.distribution = D_.get();
        D_->reset_times();
        if (split_) split_->reset_times();
        SolveResult r;
        if (gpu_) {
            r = gpu_->solve(bp, xp, o);
        } else if (s_.method == Method::qmr) {
            r = qmr(*D_, bp, xp, o, M_.get());
        } else {
            r = bicgstab(*D_, bp, xp, o, M_.get());
        }
        // A GPU rank's halo time includes its plane copies (measured by the slab solver).
        // CPR's exchanges and gathers (their MPI calls; a GPU rank's plane copies are not
        // counted) come on top.
        info_.halo_seconds = (gpu_ ? gpu_->times().halo_seconds : D_->halo_seconds()) +
                             (split_ ? split_->halo_seconds() : 0.0);
        info_.reduction_seconds = gpu_ ? gpu_->times().reduction_seconds : D_->reduction_seconds();
        info_.transfer_seconds = gpu_ ? gpu_->times().transfer_seconds : 0.0;
        info_.solve_seconds = seconds_since(t0);
        if (!local_) {
            const auto t_gather = Clock::now();
            x = D_->gather(x_whole_mine);
            info_.gather_seconds = seconds_since(t_gather);
        }
        return r;
    }

    SolverInfo info() const override { return info_; }

  private:
    SolverSettings s_;
    bool local_ = false;
    std::unique_ptr<DistributedGH> D_;
    std::unique_ptr<CprSplit> split_;  ///< cpr: the hierarchy's split over the ranks
    std::unique_ptr<Preconditioner> M_;
    std::unique_ptr<gpu::SlabSolver> gpu_;
    SolverInfo info_;
};

}  // namespace

bool mpi_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
    return MPIX_Query_cuda_support() == 1;
#else
    return false;
#endif
}

int checked_granularity(const SolverSettings& settings, int nx, int ny, int nz, MPI_Comm comm) {
    if (settings.preconditioner == PreconditionerKind::cpr) {
        // Every rank must split the same levels: their HEPTANE_CPR_SPLIT agreed on.
        const int mine = cpr_split_cap();
        int lo = mine, hi = mine;
        MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_INT, MPI_MIN, comm);
        MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_INT, MPI_MAX, comm);
        if (lo != hi) throw InputError("HEPTANE_CPR_SPLIT", "the ranks' values differ");
    }
    const int g = slab_granularity(settings, nx, ny, nz, size_of(comm));
    if (size_of(comm) > (nx + g - 1) / g) {
        const bool cpr = settings.preconditioner == PreconditionerKind::cpr;
        throw InputError(cpr ? "solver.cpr.coarsening" : "solver.block_shape",
                         std::to_string(size_of(comm)) + " ranks need as many groups of " +
                             std::to_string(g) + " i-planes (" +
                             (cpr ? "level 0's aggregates" : "block_shape[0]") +
                             ") as ranks; the " + std::to_string(nx) + " planes make " +
                             std::to_string((nx + g - 1) / g));
    }
    return g;
}

int slab_granularity(const SolverSettings& s, int nx, int ny, int nz, int ranks) {
    // The planes a spatial block spans along i, or CPR's level-0 aggregates: the split must
    // not cut them.
    if (s.preconditioner == PreconditionerKind::cpr) {
        return cpr_granularity(nx, ny, nz, s.cpr, ranks);
    }
    return s.preconditioner == PreconditionerKind::block_jacobi ? std::min(s.block_shape[0], nx)
                                                                : 1;
}

namespace {

/// NewtonSplit::gather: every rank's own cells' entries (in rank order, which is plane order)
/// and its wells' (placed by their global numbers after the cells), on every rank.
void gather_local(const std::vector<double>& local, const std::vector<int>& wells,
                  std::vector<double>& whole, MPI_Comm comm) {
    const int ranks = size_of(comm);
    const int own = static_cast<int>(local.size() - wells.size());
    std::vector<int> counts(static_cast<std::size_t>(ranks)), displs(counts.size(), 0);
    MPI_Allgather(&own, 1, MPI_INT, counts.data(), 1, MPI_INT, comm);
    for (std::size_t r = 1; r < counts.size(); ++r) displs[r] = displs[r - 1] + counts[r - 1];
    const int cells = displs.back() + counts.back();
    MPI_Allgatherv(local.data(), own, MPI_DOUBLE, whole.data(), counts.data(), displs.data(),
                   MPI_DOUBLE, comm);
    // The wells as (number, value) pairs.
    std::vector<double> mine;
    for (std::size_t j = 0; j < wells.size(); ++j) {
        mine.push_back(static_cast<double>(wells[j]));
        mine.push_back(local[static_cast<std::size_t>(own) + j]);
    }
    const std::vector<double> all = allgather(mine, comm);
    for (std::size_t i = 0; i + 1 < all.size(); i += 2) {
        whole.at(static_cast<std::size_t>(cells) + static_cast<std::size_t>(all[i])) = all[i + 1];
    }
}

}  // namespace

sim::NewtonSplit newton_split(const SolverSettings& settings, int nx, int ny, int nz,
                              MPI_Comm comm) {
    const int rank = rank_of(comm), ranks = size_of(comm);
    const int g = checked_granularity(settings, nx, ny, nz, comm);
    const int first = slab_first_plane(nx, rank, ranks, g);
    const int end = slab_first_plane(nx, rank + 1, ranks, g);
    const index_t plane = static_cast<index_t>(ny) * nz;
    sim::NewtonSplit s;
    s.assemble_begin = std::max(first - 1, 0) * plane;
    s.assemble_end = std::min(end + 1, nx) * plane;
    s.own_begin = first * plane;
    s.own_end = end * plane;
    s.holds_wells = rank == 0;
    s.sums = [comm](const std::vector<std::vector<PieceSums>>& pieces) {
        return allreduce_canonical(pieces, comm);
    };
    s.max = [comm](double* v, int n) {
        MPI_Allreduce(MPI_IN_PLACE, v, n, MPI_DOUBLE, MPI_MAX, comm);
    };
    s.gather = [comm](const std::vector<double>& local, const std::vector<int>& wells,
                      std::vector<double>& whole) { gather_local(local, wells, whole, comm); };
    return s;
}

bool distributed_supports(const SolverSettings& s, std::string* why, bool gpu) {
    std::string reason;
    if (s.method != Method::bicgstab && s.method != Method::qmr) {
        reason = std::string("method ") + to_string(s.method) + " does not run over " +
                 (gpu ? "GPU" : "MPI") + " ranks yet (bicgstab and qmr do)";
    } else if (s.preconditioner == PreconditionerKind::cpr && s.method != Method::bicgstab) {
        reason = "preconditioner cpr runs with bicgstab only (it has no transpose for qmr)";
    }
    if (why != nullptr) *why = reason;
    return reason.empty();
}

std::unique_ptr<LinearSolver> make_distributed_solver(const SolverSettings& settings,
                                                      const GHMatrix& A, MPI_Comm comm, bool gpu) {
    std::string why;
    if (!distributed_supports(settings, &why, gpu)) throw NotSupported(why);
    const int g = checked_granularity(settings, A.nx(), A.ny(), A.nz(), comm);
    return std::make_unique<DistributedSolver>(
        settings,
        [&](bool transpose, bool cpu_product) {
            return std::make_unique<DistributedGH>(A, comm, transpose, cpu_product, g);
        },
        comm, gpu, &A);
}

std::unique_ptr<LinearSolver> make_slab_solver(const SolverSettings& settings, const GHMatrix& slab,
                                               const SlabPlacement& where, MPI_Comm comm,
                                               bool gpu) {
    std::string why;
    if (!distributed_supports(settings, &why, gpu)) throw NotSupported(why);
    const int g = checked_granularity(settings, where.nx, slab.ny(), slab.nz(), comm);
    return std::make_unique<DistributedSolver>(
        settings,
        [&](bool transpose, bool cpu_product) {
            return std::make_unique<DistributedGH>(slab, where.nx, where.global_wells,
                                                   where.total_wells, comm, transpose, cpu_product,
                                                   g);
        },
        comm, gpu, nullptr);
}

}  // namespace heptane::dist
