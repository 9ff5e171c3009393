#include "core/linear_operator.hpp"

#include "core/spmv.hpp"
#include "core/vector_ops.hpp"

namespace heptane {

void GHOperator::apply(const double* x, double* y) const { spmv(A_, x, y); }

void GHOperator::apply_transpose(const double* x, double* y) const { spmv_transpose(A_, x, y); }

double GHOperator::minimal_bytes() const {
    // Structural nonzeros (padding excluded) once, plus x and y.
    return 8.0 * static_cast<double>(A_.nonzeros()) + 16.0 * static_cast<double>(A_.rows());
}

void CsrOperator::apply(const double* x, double* y) const { spmv(A_, x, y); }

void CsrOperator::apply_transpose(const double* x, double* y) const {
    for (std::int32_t i = 0; i < A_.cols; ++i) y[i] = 0.0;
    for (std::int32_t i = 0; i < A_.rows; ++i) {
        for (std::int32_t p = A_.row_ptr[i]; p < A_.row_ptr[i + 1]; ++p) {
            y[A_.col[p]] += A_.val[p] * x[i];
        }
    }
}

double CsrOperator::minimal_bytes() const {
    return 8.0 * static_cast<double>(A_.nonzeros()) + 16.0 * static_cast<double>(A_.rows);
}

void IdentityPreconditioner::apply(const double* r, double* z) const { vec::copy(r, z, n_); }

}  // namespace heptane
