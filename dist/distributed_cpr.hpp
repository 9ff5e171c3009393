#pragma once
/// @file CPR over the ranks of a distributed solve (issue 25; design decisions 49, 55). Each
/// rank sets up and applies the one-process CPR on its own planes and wells on the leading
/// levels of the hierarchy (cpr_split_levels): level 0's weights, pressure rows and stage 2's
/// inverses, every split level's line pivots, sweeps, restriction and prolongation and the next
/// level's operator rows, the halo planes of each split level's vectors exchanged with the
/// neighbouring ranks (exchange_planes). The first whole level's operator and right-hand side are
/// gathered (MPI_Allgatherv) and the hierarchy from there on is set up and cycled on every
/// rank. Each rank's entries of z are the one-process bits. CprSplit is the split (the
/// CprPlanes of core/precond/cpr.hpp with their MPI exchanges), which the CPU ranks'
/// DistributedCpr and the GPU ranks' CPR (gpu/slab_solver.hpp) both run on. A rank holds
/// only its slab of each split level (design decision 56): level 0 is its DistributedGH's
/// slab, and no rank needs the whole system.
#include <mpi.h>

#include <memory>
#include <vector>

#include "core/precond/cpr.hpp"
#include "dist/distributed_gh.hpp"

namespace heptane::dist {

/// The leading levels of the hierarchy a distributed CPR splits over `ranks` ranks: as many as
/// leave the coarsest level whole and every rank a group of level-0 planes that their
/// aggregates along i do not cut (0: a hierarchy of one level; 1 with a W-cycle), and of
/// those beyond level 0 only levels of at least `min_cells` cells a rank (on average). Where
/// HEPTANE_CPR_SPLIT names a number (cpr_split_cap), at most that many and no min_cells.
int cpr_split_levels(int nx, int ny, int nz, const CprOptions& options, int ranks,
                     long long min_cells = 0);
/// GPU ranks split a level beyond level 0 only while it keeps each rank this many cells on
/// average (design decision 61): below, its kernels are latency-bound whatever a rank's share,
/// and gathering it once and running the rest of the cycle whole on every GPU costs less
/// than the peer exchanges of its halo planes (measured on SPE10 over 2 and 4 H100s).
inline constexpr long long kGpuSplitMinCells = 65536;
/// The environment's HEPTANE_CPR_SPLIT: at most that many levels split (1 to 64), or no cap
/// (unset or auto: INT_MAX); InputError (key HEPTANE_CPR_SPLIT) for another value.
int cpr_split_cap();
/// The planes a distributed CPR needs kept whole along i: the product of the split levels'
/// aggregation factors along i, for the most levels cpr_split_levels splits (min_cells 0), so
/// a split of fewer levels keeps them whole too.
int cpr_granularity(int nx, int ny, int nz, const CprOptions& options, int ranks);

/// This rank's part of CPR's hierarchy: each split level's planes and the MPI exchange of their
/// halo planes, the gather of the first whole level, level 0's wells of this rank, and the
/// agreement on setup errors (CprPlanes), each split level's vectors holding the rank's slab
/// of it (CprPlanes::nx).
class CprSplit {
  public:
    /// D: this rank's slab, split with cpr_granularity; the levels split are
    /// cpr_split_levels(..., min_cells). NotSupported for a hierarchy of one level (nothing
    /// to split it by).
    CprSplit(const DistributedGH& D, const CprOptions& options, MPI_Comm comm,
             long long min_cells = 0);
    CprSplit(const CprSplit&) = delete;  // planes_ calls back into this object
    CprSplit& operator=(const CprSplit&) = delete;
    const CprPlanes& planes() const { return planes_; }
    /// The levels split over the ranks, and the hierarchy's levels.
    int split_levels() const { return static_cast<int>(planes_.levels.size()); }
    int levels() const { return levels_; }

    /// Wall seconds in the halo exchanges and the gathers since the last reset.
    double halo_seconds() const { return halo_seconds_; }
    void reset_times() const { halo_seconds_ = 0.0; }

  private:
    /// A split level's planes of this rank, its plane size and its neighbours.
    struct Halo {
        index_t plane = 0;
        int first = 0, end = 0;
        int lo = MPI_PROC_NULL, hi = MPI_PROC_NULL;
    };
    void exchange(int level, double* x) const;
    void gather(double* b) const;
    /// Throws on every rank the InputError of the lowest rank that met one (mine or null).
    void agree(const InputError* mine) const;

    MPI_Comm comm_;
    int rank_ = 0, ranks_ = 1;
    int levels_ = 0;  ///< the hierarchy's
    CprPlanes planes_;
    std::vector<Halo> halos_;           ///< the split levels'
    std::vector<int> counts_, displs_;  ///< the first whole level's entries of every rank
    mutable double halo_seconds_ = 0.0;
};

/// CPR on a CPU rank: the one-process CprPreconditioner on this rank's slab of the system
/// (D.slab()) and its part of the hierarchy (split, with slab storage).
class DistributedCpr final : public Preconditioner {
  public:
    /// D and split outlive this.
    DistributedCpr(const DistributedGH& D, const CprSplit& split, const CprOptions& options);
    /// z = M^{-1} r on this rank's local vectors ([its cells, then its wells]).
    void apply(const double* r, double* z) const override;
    void apply_transpose(const double* r, double* z) const override;
    /// New values of the slab (D.slab() after D's update).
    void update(const GHMatrix& slab) override { M_->update(slab, split_.planes()); }
    PreconditionerCaps capabilities() const override { return {false, false}; }

  private:
    const DistributedGH& D_;
    const CprSplit& split_;
    std::unique_ptr<CprPreconditioner> M_;
    mutable std::vector<double> r_, z_;  ///< the slab's vectors
};

}  // namespace heptane::dist
