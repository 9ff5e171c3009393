#pragma once
/// @file CPR over the CPU ranks of a distributed solve (issue 25; design decision 49). Each
/// rank sets up and applies the one-process CPR on its own planes and wells
/// (CprPreconditioner with CprPlanes): the weights, the pressure rows, level 0's line pivots,
/// stage 2's inverses and level 1's operator rows of its planes (level 1 then gathered,
/// MPI_Allgatherv); the weights' restriction, level 0's smoothing, restriction and
/// prolongation, and stage 2, the halo planes of the level-0 vectors exchanged with the
/// neighbouring ranks (MPI_Sendrecv). From level 1 on (a quarter of level 0's cells with the
/// default coarsening) the hierarchy is set up and cycled whole on every rank, its
/// right-hand side gathered. Each rank's entries of z are the one-process bits.
#include <mpi.h>

#include <memory>
#include <vector>

#include "core/precond/cpr.hpp"
#include "dist/distributed_gh.hpp"

namespace heptane::dist {

/// The planes a distributed CPR needs kept whole along i: level 0's aggregation factor along
/// i (1 when the hierarchy has one level, or does not coarsen i).
int cpr_granularity(const GHMatrix& A, const CprOptions& options);
int cpr_granularity(int nx, int ny, int nz, const CprOptions& options);

class DistributedCpr final : public Preconditioner {
  public:
    /// A: the whole system (every rank passes the same; it must outlive this, as for
    /// CprPreconditioner); D: this rank's slab of it, split with cpr_granularity. NotSupported
    /// for a hierarchy of one level (nothing to split it by).
    DistributedCpr(const GHMatrix& A, const DistributedGH& D, const CprOptions& options,
                   MPI_Comm comm);
    DistributedCpr(const DistributedCpr&) = delete;  // planes_ calls back into this object
    DistributedCpr& operator=(const DistributedCpr&) = delete;
    /// z = M^{-1} r on this rank's local vectors ([its cells, then its wells]).
    void apply(const double* r, double* z) const override;
    void apply_transpose(const double* r, double* z) const override;
    /// New values of the whole system (the same structure).
    void update(const GHMatrix& A) override { M_->update(A, planes_); }
    PreconditionerCaps capabilities() const override { return {false, false}; }

    /// Wall seconds in the halo exchanges and the level-1 gathers since the last reset.
    double halo_seconds() const { return halo_seconds_; }
    void reset_times() const { halo_seconds_ = 0.0; }

  private:
    void exchange(double* x) const;
    void gather(double* b) const;
    /// Throws on every rank the InputError of the lowest rank that met one (mine or null).
    void agree(const InputError* mine) const;

    const DistributedGH& D_;
    MPI_Comm comm_;
    int rank_ = 0, ranks_ = 1;
    CprPlanes planes_;
    std::unique_ptr<CprPreconditioner> M_;
    index_t plane_ = 0;                            ///< cells of a level-0 plane
    int lo_ = MPI_PROC_NULL, hi_ = MPI_PROC_NULL;  ///< the neighbouring ranks
    std::vector<int> counts_, displs_;             ///< level 1's entries of every rank
    mutable std::vector<double> r_, z_;            ///< the whole system's indexing
    mutable double halo_seconds_ = 0.0;
};

}  // namespace heptane::dist
