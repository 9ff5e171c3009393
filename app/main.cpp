#include <unistd.h>

#include <iostream>
#include <ostream>

#include "app/cli.hpp"
#include "app/mpi_session.hpp"

int main(int argc, char** argv) {
    const heptane::app::MpiSession mpi(&argc, &argv);
    if (heptane::app::mpi_rank() > 0) {  // rank 0 speaks for every rank
        std::ostream quiet(nullptr);
        return heptane::app::run_cli(argc, argv, quiet, quiet, false);
    }
    return heptane::app::run_cli(argc, argv, std::cout, std::cerr, ::isatty(STDERR_FILENO) != 0);
}
