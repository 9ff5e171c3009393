#include "core/base/eigen_interop.hpp"

#include <vector>

namespace heptane {

Eigen::SparseMatrix<double> to_eigen(const Csr& A) {
    std::vector<Eigen::Triplet<double>> triplets;
    triplets.reserve(A.val.size());
    for (std::int32_t i = 0; i < A.rows; ++i) {
        for (std::int32_t p = A.row_ptr[i]; p < A.row_ptr[i + 1]; ++p) {
            triplets.emplace_back(i, A.col[p], A.val[p]);
        }
    }
    Eigen::SparseMatrix<double> out(A.rows, A.cols);
    out.setFromTriplets(triplets.begin(), triplets.end());
    return out;
}

}  // namespace heptane
