#pragma once
/// @file A GPU rank's solver in a distributed run (issue 25, CUDA-free header): the rank's slab
/// of the GH system (dist::DistributedGH: its i-planes, one halo plane on each side that has a
/// neighbour, its wells) on its GPU, and BiCGStab or QMR with every vector on the device. The
/// iteration is core/krylov/krylov.cpp's, pass for pass; what crosses the ranks:
/// - before each product (A x, and A^T x for QMR: the same halo planes of its x) the slab's
///   first and last owned planes go to the neighbours: where every rank is on one node with
///   a GPU of its own and peer access to the others, the GPUs write them into each other's
///   memory (peer halos, gpu/src/base/peer_halo.cuh, design decision 58; CPR's exchanges and
///   gather too); otherwise they are copied to pinned host memory, exchanged
///   (SlabNeighbours, MPI in dist/) and copied into the halo planes (host-staged halos);
/// - each fused pass's sums as PassParts (core/base/piece_sums.hpp: the sums of the whole
///   global chunks it holds, the loose terms at its edges and its wells' terms): with peer
///   access between every rank's GPU (or one rank) BiCGStab's iteration runs on the device and
///   the GPUs gather every rank's parts and join them themselves (core/base/join_plan.hpp,
///   design decision 59); otherwise the parts go to the host and the Distribution joins them;
///   the one-process bits either way.
/// So 1, 2, 3 or 4 GPU ranks give the bits of one CPU process (and of one GPU). Without CUDA
/// (the stub) make_slab_solver throws NotCompiled.
#include <memory>
#include <string>
#include <vector>

#include "core/base/piece_sums.hpp"
#include "core/krylov/krylov.hpp"
#include "core/krylov/linear_solver.hpp"
#include "core/krylov/solver_settings.hpp"
#include "core/matrix/gh_matrix.hpp"
#include "core/precond/cpr.hpp"

namespace heptane::gpu {

/// Where a rank's entries sit in its slab's vectors ([halo plane below][owned planes][halo
/// plane above][wells]); the rank's local vectors are [owned cell entries, wells].
struct SlabLayout {
    long long own_at = 0;  ///< the first owned cell entry (0, or one plane with a halo below)
    long long own = 0;     ///< owned cell entries
    long long plane = 0;   ///< entries of one i-plane: ny nz K
    bool lo_halo = false, hi_halo = false;
    long long wells_at = 0;  ///< the first well entry: the slab's cell rows
    int wells = 0;
};

/// The rank's neighbours along i (dist::DistributedGH implements it with MPI).
class SlabNeighbours {
  public:
    virtual ~SlabNeighbours() = default;
    /// Sends `first` (the first owned plane) to the rank below and `last` to the rank above;
    /// receives the plane below into `lo` and the one above into `hi` (host memory, one plane
    /// each; a side without a neighbour is left alone). Collective between neighbours.
    virtual void exchange(const double* first, const double* last, double* lo,
                          double* hi) const = 0;
    /// Every rank's `bytes` bytes at `mine`, in rank order (the peer halos' set-up: which
    /// node and GPU each rank has, and its memory handle). Collective over every rank.
    virtual std::vector<unsigned char> all_gather(const void* mine, int bytes) const = 0;
    /// This rank's number and the ranks' count.
    virtual int rank() const = 0;
    virtual int ranks() const = 0;
};

/// Where a solve's wall time went on this rank (the last solve).
struct SlabTimes {
    double halo_seconds = 0.0;       ///< plane copies and the exchange, products included
    double reduction_seconds = 0.0;  ///< parts downloaded and joined across the ranks
    double transfer_seconds = 0.0;   ///< b and x to the device, x back (pageable copies)
    int halo_exchanges = 0;
    int reductions = 0;
};

class SlabSolver {
  public:
    virtual ~SlabSolver() = default;
    /// New values of the slab (same structure): uploaded, the preconditioner re-factored.
    virtual void update(const GHMatrix& slab) = 0;
    /// Solves with this rank's local b and x ([owned cells, wells]); options.distribution
    /// must be the run's Distribution (its sums). Collective: every rank calls it.
    virtual SolveResult solve(const double* b, double* x, const SolveOptions& options) = 0;
    virtual SolverInfo info() const = 0;
    virtual SlabTimes times() const = 0;
    /// How the halo planes travel: "peer" (peer access) or "host-staged".
    virtual std::string halos() const = 0;
    /// Where each pass's sums are joined across the ranks: "device" (BiCGStab where every
    /// other rank's GPU is reached by peer access, or one rank: the iteration runs on the
    /// device, design decision 59) or "host" (PassParts through the Distribution).
    virtual std::string joins() const = 0;
};

/// BiCGStab or QMR (settings.method) on the slab with the settings' preconditioner (none,
/// point_block_jacobi, line_jacobi: they work cell by cell or column by column, so each rank's
/// rows are the one-process rows; QMR applies M^-1 and M^-T), or BiCGStab with cpr: set up
/// and applied on the rank's slab and its part of the hierarchy (`planes`: dist::CprSplit's,
/// with slab storage; the halo planes of its split levels and the first whole level's
/// right-hand side by peer access, or staged through the host to planes' exchange and
/// gather; design decisions 55, 56, 58). `neighbours` and `planes` outlive the solver.
/// NotSupported for other settings. The constructor is collective (the peer halos' set-up).
/// InputError (key HEPTANE_HALO) for a bad HEPTANE_HALO, or for `peer` where it cannot be had;
/// the same (key HEPTANE_JOINS: auto, host, device) for the joins.
std::unique_ptr<SlabSolver> make_slab_solver(const SolverSettings& settings, const GHMatrix& slab,
                                             const SlabLayout& layout,
                                             const SlabNeighbours& neighbours,
                                             const CprPlanes* planes = nullptr);

/// Makes device `local_rank % device_count()` this process's device (one GPU per rank on a
/// node); returns its index. NotCompiled without CUDA.
int select_device(int local_rank);

}  // namespace heptane::gpu
