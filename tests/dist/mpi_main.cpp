// main() of the MPI test executables (run by ctest under mpirun): MPI_Init around GoogleTest;
// every rank runs every test, and a failure on any rank makes mpirun fail.
#include <gtest/gtest.h>
#include <mpi.h>

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    const int failed = RUN_ALL_TESTS();
    MPI_Finalize();
    return failed;
}
