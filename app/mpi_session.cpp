#include "app/mpi_session.hpp"

#include "core/base/errors.hpp"

#ifdef HEPTANE_HAVE_MPI
#include <mpi.h>

#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "core/base/piece_sums.hpp"
#include "dist/distributed_gh.hpp"
#include "dist/distributed_solver.hpp"
#endif

namespace heptane::app {
namespace {

int g_rank = 0;
int g_ranks = 1;

#ifdef HEPTANE_HAVE_MPI
bool g_started = false;

bool launched_by_mpirun() {
    return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr;
}
#endif

}  // namespace

MpiSession::MpiSession([[maybe_unused]] int* argc, [[maybe_unused]] char*** argv) {
#ifdef HEPTANE_HAVE_MPI
    if (!launched_by_mpirun()) return;
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_ranks);
    g_started = true;
#endif
}

MpiSession::~MpiSession() {
#ifdef HEPTANE_HAVE_MPI
    if (g_started) MPI_Finalize();
#endif
}

int mpi_rank() { return g_rank; }
int mpi_ranks() { return g_ranks; }

bool mpi_launched() {
#ifdef HEPTANE_HAVE_MPI
    return g_started;
#else
    return false;
#endif
}

bool mpi_any(bool flag) {
#ifdef HEPTANE_HAVE_MPI
    if (g_started) {
        int mine = flag ? 1 : 0, any = 0;
        MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
        return any != 0;
    }
#endif
    return flag;
}

int mpi_abort(int code) {
#ifdef HEPTANE_HAVE_MPI
    if (g_started) MPI_Abort(MPI_COMM_WORLD, code);
#endif
    return code;
}

std::vector<double> mpi_allgather(double value) {
#ifdef HEPTANE_HAVE_MPI
    if (g_started) {
        std::vector<double> all(static_cast<std::size_t>(g_ranks));
        MPI_Allgather(&value, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, MPI_COMM_WORLD);
        return all;
    }
#endif
    return {value};
}

std::unique_ptr<LinearSolver> make_mpi_solver([[maybe_unused]] const SolverSettings& settings,
                                              [[maybe_unused]] const GHMatrix& A,
                                              [[maybe_unused]] bool gpu) {
#ifdef HEPTANE_HAVE_MPI
    return dist::make_distributed_solver(settings, A, MPI_COMM_WORLD, gpu);
#else
    throw Error("this heptane was built without MPI");
#endif
}

sim::NewtonSplit mpi_newton_split([[maybe_unused]] const SolverSettings& settings,
                                  [[maybe_unused]] int nx, [[maybe_unused]] int ny,
                                  [[maybe_unused]] int nz) {
#ifdef HEPTANE_HAVE_MPI
    return dist::newton_split(settings, nx, ny, nz, MPI_COMM_WORLD);
#else
    throw Error("this heptane was built without MPI");
#endif
}

std::unique_ptr<LinearSolver> make_mpi_slab_solver(
    [[maybe_unused]] const SolverSettings& settings, [[maybe_unused]] const GHMatrix& slab,
    [[maybe_unused]] int nx, [[maybe_unused]] const std::vector<int>& global_wells,
    [[maybe_unused]] long long total_wells, [[maybe_unused]] bool gpu) {
#ifdef HEPTANE_HAVE_MPI
    dist::SlabPlacement where;
    where.nx = nx;
    where.global_wells = global_wells;
    where.total_wells = total_wells;
    return dist::make_slab_solver(settings, slab, where, MPI_COMM_WORLD, gpu);
#else
    throw Error("this heptane was built without MPI");
#endif
}

MpiSlab::MpiSlab([[maybe_unused]] const wells::ModelSpec& spec,
                 [[maybe_unused]] const wells::Model* fields,
                 [[maybe_unused]] const SolverSettings* settings) {
#ifdef HEPTANE_HAVE_MPI
    const int nx = spec.grid.nx;
    const int g = settings != nullptr ? dist::checked_granularity(*settings, nx, spec.grid.ny,
                                                                  spec.grid.nz, MPI_COMM_WORLD)
                                      : 1;
    const std::array<int, 2> w = dist::DistributedGH::slab_window(nx, g_rank, g_ranks, g);
    const int first = slab_first_plane(nx, g_rank, g_ranks, g);
    const int end = slab_first_plane(nx, g_rank + 1, g_ranks, g);
    model_ = wells::generate_planes(spec, {w[0], w[1], first, end}, global_wells_, fields);
    nx_ = nx;
    K_ = model_.system.matrix.block_size();
    own_cells_ = static_cast<long long>(end - first) * spec.grid.ny * spec.grid.nz;
    total_wells_ = static_cast<long long>(spec.wells.size());
#else
    throw Error("this heptane was built without MPI");
#endif
}

MpiSlab::~MpiSlab() = default;

std::vector<double> MpiSlab::local_rhs() const {
    const GHMatrix& A = model_.system.matrix;
    const std::vector<double>& rhs = model_.system.rhs;
    const long long K = A.block_size(), plane = static_cast<long long>(A.ny()) * A.nz();
    const long long own_at = (g_rank > 0 ? 1 : 0) * plane * K;  // after a halo plane below
    std::vector<double> b(rhs.begin() + own_at, rhs.begin() + own_at + own_cells_ * K);
    b.insert(b.end(), rhs.begin() + A.cell_unknowns(), rhs.end());
    return b;
}

long long MpiSlab::total_nonzeros() const {
    const GHMatrix& A = model_.system.matrix;
    // The perforations of the rank's wells and the connection entries of its own cells' rows.
    long long mine[2] = {static_cast<long long>(A.wells().num_perforations()), 0};
    if (A.has_nnc()) {
        const long long own_at = (g_rank > 0 ? 1 : 0) * static_cast<long long>(A.ny()) * A.nz();
        mine[1] = A.nnc().ptr[own_at + own_cells_] - A.nnc().ptr[own_at];
    }
#ifdef HEPTANE_HAVE_MPI
    MPI_Allreduce(MPI_IN_PLACE, mine, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
#endif
    const long long K = A.block_size();
    return GHMatrix::nonzeros(nx_, A.ny(), A.nz(), A.block_size(), mine[0], total_wells_) +
           mine[1] * K * K;
}

std::unique_ptr<LinearSolver> MpiSlab::solver(const SolverSettings& settings, bool gpu) const {
    return make_mpi_slab_solver(settings, model_.system.matrix, nx_, global_wells_, total_wells_,
                                gpu);
}

std::vector<double> MpiSlab::gather([[maybe_unused]] const std::vector<double>& local) const {
#ifdef HEPTANE_HAVE_MPI
    const long long own = own_cells_ * K_, nw = own_wells();
    if (static_cast<long long>(local.size()) != own + nw) {
        throw std::invalid_argument("MpiSlab::gather: not this rank's local vector");
    }
    // Counts of cells and wells of every rank, then the cells (in rank order: the slabs'
    // planes ascend), the wells' global numbers and values.
    const int mine[2] = {static_cast<int>(own), static_cast<int>(nw)};
    std::vector<int> counts(2 * static_cast<std::size_t>(g_ranks));
    MPI_Gather(mine, 2, MPI_INT, counts.data(), 2, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> cell_counts(static_cast<std::size_t>(g_ranks)), cell_at(cell_counts.size());
    std::vector<int> well_counts(cell_counts.size()), well_at(cell_counts.size());
    long long cells = 0, wells = 0;
    for (int q = 0; q < g_ranks && g_rank == 0; ++q) {
        cell_counts[q] = counts[2 * q], well_counts[q] = counts[2 * q + 1];
        cell_at[q] = static_cast<int>(cells), well_at[q] = static_cast<int>(wells);
        cells += cell_counts[q], wells += well_counts[q];
    }
    std::vector<double> whole(g_rank == 0 ? static_cast<std::size_t>(cells + wells) : 0);
    MPI_Gatherv(local.data(), mine[0], MPI_DOUBLE, whole.data(), cell_counts.data(), cell_at.data(),
                MPI_DOUBLE, 0, MPI_COMM_WORLD);
    std::vector<int> numbers(static_cast<std::size_t>(wells));
    std::vector<double> values(numbers.size());
    MPI_Gatherv(global_wells_.data(), mine[1], MPI_INT, numbers.data(), well_counts.data(),
                well_at.data(), MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Gatherv(local.data() + own, mine[1], MPI_DOUBLE, values.data(), well_counts.data(),
                well_at.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (std::size_t n = 0; n < numbers.size(); ++n) {
        whole[static_cast<std::size_t>(cells + numbers[n])] = values[n];
    }
    return whole;
#else
    throw Error("this heptane was built without MPI");
#endif
}

double MpiSlab::true_relative_residual([[maybe_unused]] const std::vector<double>& b,
                                       [[maybe_unused]] const std::vector<double>& x) const {
#ifdef HEPTANE_HAVE_MPI
    const dist::DistributedGH D(model_.system.matrix, nx_, global_wells_, total_wells_,
                                MPI_COMM_WORLD);
    std::vector<double> y(x.size());
    D.apply(x.data(), y.data());
    const std::array<double, 2> sums = distributed_sums<2>(
        D.size(),
        [&](index_t i, double* t) {
            const double r = b[static_cast<std::size_t>(i)] - y[static_cast<std::size_t>(i)];
            t[0] = r * r;
            t[1] = b[static_cast<std::size_t>(i)] * b[static_cast<std::size_t>(i)];
        },
        D);
    return sums[1] > 0.0 ? std::sqrt(sums[0]) / std::sqrt(sums[1]) : std::sqrt(sums[0]);
#else
    throw Error("this heptane was built without MPI");
#endif
}

}  // namespace heptane::app
