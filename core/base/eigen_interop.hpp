#pragma once
/// @file Conversion to Eigen. The one core header that includes Eigen: only tests and .cpp
/// files that need Eigen (SparseLU checks, reference solvers) include it.
#include <Eigen/SparseCore>

#include "core/matrix/formats.hpp"

namespace heptane {

/// CSR -> Eigen column-major sparse matrix (what SparseLU takes).
Eigen::SparseMatrix<double> to_eigen(const Csr& A);

}  // namespace heptane
