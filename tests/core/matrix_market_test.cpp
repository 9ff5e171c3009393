// MatrixMarket export: the files load in an independent reader (Eigen's) and reproduce the
// product; values survive the round trip exactly.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <unsupported/Eigen/SparseExtra>

#include "common/temp_file.hpp"
#include "common/test_systems.hpp"
#include "core/base/eigen_interop.hpp"
#include "core/matrix/formats.hpp"
#include "core/spmv/spmv.hpp"

namespace heptane {
namespace {

TEST(MatrixMarket, EigenReadsExportedSystemExactly) {
    const auto model = wells::generate(test::two_phase_spec(4, 3, 5, test::corner_wells(4, 3, 5)));
    const GHSystem& sys = model.system;
    const Csr csr = to_csr(sys.matrix);
    const test::TempFile a_file, b_file;
    const std::string& a_path = a_file.path();
    const std::string& b_path = b_file.path();
    {
        std::ofstream a(a_path), b(b_path);
        write_matrix_market(a, csr, "test system\nsecond comment line");
        write_matrix_market(b, sys.rhs);
    }
    Eigen::SparseMatrix<double> loaded;
    ASSERT_TRUE(Eigen::loadMarket(loaded, a_path));
    Eigen::VectorXd rhs;
    ASSERT_TRUE(Eigen::loadMarketVector(rhs, b_path));

    ASSERT_EQ(loaded.rows(), sys.matrix.rows());
    ASSERT_EQ(loaded.nonZeros(), sys.matrix.nonzeros());
    // Shortest round-trip decimals: the loaded matrix equals ours bit for bit.
    const Eigen::SparseMatrix<double> ours = to_eigen(csr);
    EXPECT_EQ((loaded - ours).norm(), 0.0);
    ASSERT_EQ(rhs.size(), static_cast<Eigen::Index>(sys.rhs.size()));
    for (std::size_t i = 0; i < sys.rhs.size(); ++i)
        EXPECT_EQ(rhs[static_cast<Eigen::Index>(i)], sys.rhs[i]);

    const auto x = test::random_vector(sys.rhs.size(), 3);
    const Eigen::Map<const Eigen::VectorXd> xv(x.data(), static_cast<Eigen::Index>(x.size()));
    const Eigen::VectorXd y = loaded * xv;
    EXPECT_TRUE(test::vectors_near(spmv(sys.matrix, x),
                                   std::vector<double>(y.data(), y.data() + y.size()),
                                   test::gh_spmv_tolerance(sys.matrix, x)));
}

TEST(MatrixMarket, HeaderAndOneBasedEntries) {
    Csr a;
    a.rows = 2;
    a.cols = 3;
    a.row_ptr = {0, 1, 3};
    a.col = {2, 0, 1};
    a.val = {0.1, -2.5, 1e-300};
    std::ostringstream s;
    write_matrix_market(s, a, "hello");
    EXPECT_EQ(s.str(),
              "%%MatrixMarket matrix coordinate real general\n%hello\n2 3 3\n1 3 0.1\n"
              "2 1 -2.5\n2 2 1e-300\n");
}

}  // namespace
}  // namespace heptane
