#pragma once
/// @file The CPU solver object over MPI ranks (issue 25): the LinearSolver interface of
/// core/krylov/linear_solver.hpp on a DistributedGH, so `heptane run` under mpirun solves as
/// one process does. solve(b, x) takes and returns the whole vectors on every rank (each rank
/// solves for its slab; x is gathered at the end), so everything around the solve is the
/// one-process code. BiCGStab and QMR, without a preconditioner or with one that works cell by
/// cell or column by column (point-block and vertical-line Jacobi: applied on the slab, each
/// rank's rows are the one-process rows), spatial blocks (the split keeps them whole) and
/// BiCGStab with CPR (its leading levels split, dist/distributed_cpr.hpp). The halo
/// exchanges and cross-rank sums of the last solve are timed in info().halo_seconds and
/// reduction_seconds.
#include <mpi.h>

#include <memory>
#include <vector>

#include "core/krylov/linear_solver.hpp"
#include "core/krylov/solver_settings.hpp"
#include "sim/newton_system.hpp"

namespace heptane::dist {

/// Whether the distributed solver takes these settings (on GPU ranks with `gpu`), and why not.
bool distributed_supports(const SolverSettings& s, std::string* why = nullptr, bool gpu = false);

/// Whether the MPI library says it takes device pointers (Open MPI built with CUDA, and
/// MPIX_Query_cuda_support() at run time); false where it cannot say. GPU ranks stage their
/// halos through pinned host memory either way and say which in their kernel name (design
/// decision 46): no library available to heptane's tests reports CUDA support, so a device-
/// pointer path could not be tested and is not built.
bool mpi_cuda_aware();

/// The solver object of `settings` for A (every rank passes the same A) over `comm`; with
/// `gpu`, each rank solves on a GPU of its node (gpu/slab_solver.hpp: BiCGStab, host-staged
/// halos), with the same bits.
std::unique_ptr<LinearSolver> make_distributed_solver(const SolverSettings& settings,
                                                      const GHMatrix& A, MPI_Comm comm,
                                                      bool gpu = false);

/// The planes a rank's slab of an nx x ny x nz grid is split in groups of under `settings`
/// over `ranks` ranks (spatial blocks along i, the aggregates of CPR's split levels; else 1):
/// make_distributed_solver's split is slab_first_plane(nx, rank, ranks, slab_granularity(...)).
int slab_granularity(const SolverSettings& settings, int nx, int ny, int nz, int ranks);
/// slab_granularity over comm's ranks; InputError (solver.cpr.coarsening or
/// solver.block_shape) when the ranks outnumber the groups of that many planes.
int checked_granularity(const SolverSettings& settings, int nx, int ny, int nz, MPI_Comm comm);

/// This rank's share of a simulation's host Newton loop (sim::NewtonSplit; design decision
/// 51) for the solver `settings` makes on an nx x ny x nz grid over `comm`: its slab's cells
/// with the halo planes to assemble, its planes to measure (rank 0 the wells' rows), the
/// measures joined with dist::allreduce_canonical and MPI_MAX; the rank holds only its slab
/// of the Jacobian (make_slab_solver's solver on it; dx gathered to every rank), its window
/// that of slab_granularity's split.
sim::NewtonSplit newton_split(const SolverSettings& settings, int nx, int ny, int nz,
                              MPI_Comm comm);

/// Where a rank's own slab lies in the whole system (DistributedGH's second constructor).
struct SlabPlacement {
    int nx = 0;                     ///< i-planes of the whole grid
    std::vector<int> global_wells;  ///< the slab's wells' numbers in the whole system
    index_t total_wells = 0;
};

/// The same solver on a slab this rank generated itself (wells::generate_planes of
/// DistributedGH::slab_window with slab_granularity's groups), so that no rank holds the whole
/// system: solve() and update_values() take this rank's local vectors ([own cells, then its
/// wells]) and its slab, with every preconditioner the distributed solver takes (CPR on the
/// rank's slabs: design decision 56).
std::unique_ptr<LinearSolver> make_slab_solver(const SolverSettings& settings, const GHMatrix& slab,
                                               const SlabPlacement& where, MPI_Comm comm,
                                               bool gpu = false);

}  // namespace heptane::dist
