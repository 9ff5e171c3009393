#pragma once
/// @file MPI for a heptane that mpirun launched (issue 25). MPI starts only when the launcher's
/// environment names ranks (Open MPI's OMPI_COMM_WORLD_SIZE, PMI_SIZE of others), so a plain
/// `heptane` never touches MPI; a build without the dist/ module (no MPI found) is one rank.
/// Under mpirun `heptane run` and `heptane simulate` run: every rank builds the systems, the
/// CPU linear solver works on slabs (dist/), a simulation's ranks assemble their slabs' cells
/// (mpi_newton_split), rank 0 prints and writes the files.
#include <memory>
#include <vector>

#include "core/krylov/linear_solver.hpp"
#include "core/krylov/solver_settings.hpp"
#include "sim/newton_system.hpp"
#include "wells/generator.hpp"

namespace heptane::app {

/// Initializes MPI when launched by mpirun; finalizes it on destruction.
class MpiSession {
  public:
    MpiSession(int* argc, char*** argv);
    ~MpiSession();
    MpiSession(const MpiSession&) = delete;
    MpiSession& operator=(const MpiSession&) = delete;
};

/// This process's rank and the number of ranks (0 and 1 without MPI).
int mpi_rank();
int mpi_ranks();
/// Whether mpirun launched this process (MPI started), with any number of ranks: the solves
/// then go over the ranks' slabs (dist/), also on one rank (the baseline of a scaling run).
bool mpi_launched();

/// Whether `flag` holds on any rank (collective under mpirun; the flag itself otherwise): a
/// decision every rank must take together, such as stopping a simulation at a wall-clock
/// limit that each rank measures for itself.
bool mpi_any(bool flag);

/// Ends every rank of the job with `code` (MPI_Abort): a rank that failed alone must not
/// leave the others waiting in a collective. Returns `code` without MPI.
int mpi_abort(int code);

/// Every rank's `value`, in rank order (collective under mpirun; {value} otherwise).
std::vector<double> mpi_allgather(double value);

/// The distributed solver object of `settings` for A over every rank (dist/; GPU ranks with
/// `gpu`): throws Error in a build without MPI, NotSupported for settings the ranks do not run.
std::unique_ptr<LinearSolver> make_mpi_solver(const SolverSettings& settings, const GHMatrix& A,
                                              bool gpu);

/// This rank's share of a simulation's host Newton loop under mpirun (sim::NewtonSplit): the
/// cells of its slab of the solver `settings` makes (with the halo planes) to assemble, its
/// planes to measure, the measures joined over every rank with the one-process bits, only its
/// slab of the Jacobian held. Error in a build without MPI.
sim::NewtonSplit mpi_newton_split(const SolverSettings& settings, int nx, int ny, int nz);

/// The solver of `settings` over the ranks on this rank's own slab `slab` of a grid of nx
/// i-planes (its planes and halo planes, the wells `global_wells` of its planes out of
/// `total_wells`: dist::make_slab_solver; GPU ranks with gpu). Error in a build without MPI.
std::unique_ptr<LinearSolver> make_mpi_slab_solver(const SolverSettings& settings,
                                                   const GHMatrix& slab, int nx,
                                                   const std::vector<int>& global_wells,
                                                   long long total_wells, bool gpu);

/// This rank's own slab of a model under mpirun (wells::generate_planes of its window: its
/// i-planes, a halo plane on each side with a neighbour, the wells of its planes), so that no
/// rank generates or holds the whole system; its solver takes this rank's local vectors
/// ([its cells, then its wells]). Collective where marked. Error in a build without MPI.
class MpiSlab {
  public:
    /// `fields`: the whole grid's fields already read (build_model(deck, false)), for models
    /// whose fields come from files; `settings`: the solver's, whose split (CPR's aggregates,
    /// spatial blocks) the window follows (null: planes split one by one). InputError where the
    /// ranks outnumber that split's groups.
    explicit MpiSlab(const wells::ModelSpec& spec, const wells::Model* fields = nullptr,
                     const SolverSettings* settings = nullptr);  ///< collective
    ~MpiSlab();
    MpiSlab(const MpiSlab&) = delete;
    MpiSlab& operator=(const MpiSlab&) = delete;

    const wells::Model& model() const { return model_; }
    /// The slab's model, moved out (after it only gather() and own_cells() may be used).
    wells::Model take_model() { return std::move(model_); }
    /// This rank's entries of b.
    std::vector<double> local_rhs() const;
    long long own_cells() const { return own_cells_; }
    long long own_wells() const { return static_cast<long long>(global_wells_.size()); }
    /// The whole system's nonzeros (collective).
    long long total_nonzeros() const;
    /// The solver of `settings` on this slab (dist::make_slab_solver; GPU ranks with gpu).
    std::unique_ptr<LinearSolver> solver(const SolverSettings& settings, bool gpu) const;
    /// The whole vector on rank 0 from every rank's local one ([own cells, then its wells]):
    /// the cells in plane order, then the wells in their global order (empty on the other
    /// ranks; collective).
    std::vector<double> gather(const std::vector<double>& local) const;
    /// ||b - A x|| / ||b|| over every rank by the CPU product with halo exchanges, the sums
    /// canonical (collective).
    double true_relative_residual(const std::vector<double>& b, const std::vector<double>& x) const;

  private:
    wells::Model model_;
    int nx_ = 0, K_ = 1;
    long long own_cells_ = 0;
    std::vector<int> global_wells_;
    long long total_wells_ = 0;
};

}  // namespace heptane::app
