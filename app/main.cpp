#include <unistd.h>

#include <iostream>

#include "app/cli.hpp"

int main(int argc, char** argv) {
    return heptane::app::run_cli(argc, argv, std::cout, std::cerr, ::isatty(STDERR_FILENO) != 0);
}
