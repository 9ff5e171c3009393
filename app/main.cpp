#include <unistd.h>

#include <iostream>
#include <ostream>
#include <sstream>

#include "app/cli.hpp"
#include "app/mpi_session.hpp"

int main(int argc, char** argv) {
    using namespace heptane::app;
    const MpiSession mpi(&argc, &argv);
    if (!mpi_launched()) {
        return run_cli(argc, argv, std::cout, std::cerr, ::isatty(STDERR_FILENO) != 0);
    }
    // Under mpirun rank 0 speaks for every rank. A runtime error (exit 3) may have struck one
    // rank alone while the others wait for it in a collective: that rank says so and ends the
    // job (an input error is found by every rank alike, before any collective).
    const int rank = mpi_rank();
    std::ostream quiet(nullptr);
    std::ostringstream errors;
    const int code = rank == 0 ? run_cli(argc, argv, std::cout, std::cerr, false)
                               : run_cli(argc, argv, quiet, errors, false);
    if (code == kExitRuntime && mpi_ranks() > 1) {
        if (rank > 0) std::cerr << "heptane (rank " << rank << "): " << errors.str();
        return mpi_abort(code);
    }
    return code;
}
