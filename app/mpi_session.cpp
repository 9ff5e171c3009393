#include "app/mpi_session.hpp"

#include "core/base/errors.hpp"

#ifdef HEPTANE_HAVE_MPI
#include <mpi.h>

#include <cstdlib>

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

}  // namespace heptane::app
